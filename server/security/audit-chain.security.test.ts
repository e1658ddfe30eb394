/**
 * The audit trail is a hash chain that `npm run audit:verify` checks, and
 * the app's database role can insert into it but cannot alter, disable or drop its triggers. Runs
 * on PGlite (the app's role taken with SET ROLE) and on PostgreSQL when TEST_DATABASE_URL is set
 * (the app's role a login of its own, the migrations run by the owner through DATABASE_OWNER_URL).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { asc, sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuditLog } from '#server/audit/audit.ts'
import { verifyAuditChain } from '#server/audit/audit-chain.ts'
import { type DatabaseHandle, grantAppRole, openDatabase } from '#server/db/client.ts'
import { auditEvents } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createTestApp, type TestApp, testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('the audit hash chain on $name', (backend) => {
  let t: TestApp
  const role = `glow_app_${randomBytes(4).toString('hex')}`
  let appDb: DatabaseHandle | undefined
  let databaseUrl: string | undefined

  /** Runs one statement as the app's role; rejects as the database refuses it. */
  async function asApp(statement: string): Promise<void> {
    if (appDb) {
      await appDb.db.execute(sql.raw(statement))
      return
    }
    await t.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`SET LOCAL ROLE ${role}`))
      await tx.execute(sql.raw(statement))
    })
  }

  beforeAll(async () => {
    t = await createTestApp(backend)
    await t.db.execute(sql.raw(`CREATE ROLE ${role} ${backend.name === 'postgres' ? 'LOGIN' : ''}`))
    if (backend.name === 'postgres') {
      const base = process.env.TEST_DATABASE_URL ?? ''
      const name = (await t.db.execute(sql`select current_database() as name`)) as unknown as {
        rows: { name: string }[]
      }
      const owner = new URL(base)
      owner.pathname = `/${name.rows[0]?.name}`
      const app = new URL(owner)
      app.username = role
      databaseUrl = app.toString()
      // As the server starts with DATABASE_URL and DATABASE_OWNER_URL: the owner migrates and grants.
      appDb = await openDatabase({ databaseUrl, ownerUrl: owner.toString() })
      expect(appDb.ownsAuditTable).toBe(false)
    } else {
      await grantAppRole((statement) => t.db.execute(sql.raw(statement)), role)
    }
  })
  afterAll(async () => {
    await appDb?.close()
    await t.close()
    if (backend.name === 'postgres') {
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
      await admin.connect()
      await admin.query(`drop role if exists ${role}`)
      await admin.end()
    }
  })

  it('links every event to the one before it, and the check finds the trail intact', async () => {
    // Events made by the product itself: a failed and a successful sign-in.
    for (const password of ['wrong-password-1', DEMO_ADMIN.password]) {
      await t.request('/api/auth/local', {
        method: 'POST',
        json: { identifier: DEMO_ADMIN.email, password },
      })
    }
    // And by the app's own role, which may insert.
    const appAudit = createAuditLog(appDb?.db ?? t.db, {
      now: () => new Date(),
      log: memoryLogger(),
    })
    if (appDb) {
      await appAudit.record({ action: 'session.logout', userId: t.demo.admin.id, ip: '10.0.0.1' })
    } else {
      await asApp(
        `INSERT INTO audit_events (action, ip, details) VALUES ('session.logout', '10.0.0.1', '{}')`,
      )
    }
    const rows = await t.db.select().from(auditEvents).orderBy(asc(auditEvents.seq))
    expect(rows.length).toBeGreaterThanOrEqual(3)
    rows.forEach((row, index) => {
      expect(row.seq).toBe(index + 1)
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/)
      expect(row.prev_hash).toBe(index === 0 ? null : rows[index - 1]?.hash)
    })
    const report = await verifyAuditChain(t.db)
    expect(report).toEqual({ events: rows.length, head: rows.at(-1)?.hash, problems: [] })
  })

  it("refuses the app's role any change to the trail or its triggers", async () => {
    const refusals: string[] = []
    for (const statement of [
      'ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete',
      'ALTER TABLE audit_events DISABLE TRIGGER ALL',
      'DROP TRIGGER audit_events_chain ON audit_events',
      "UPDATE audit_events SET ip = '6.6.6.6'",
      'DELETE FROM audit_events',
      'TRUNCATE audit_events',
    ]) {
      await asApp(statement).then(
        () => refusals.push(`${statement}: ALLOWED`),
        (error: unknown) => {
          const cause = (error as { cause?: { code?: string } }).cause
          refusals.push(`${statement}: ${cause?.code ?? (error as { code?: string }).code}`)
        },
      )
    }
    // 42501 insufficient privilege (not the owner, no UPDATE/DELETE/TRUNCATE grant).
    expect(refusals).toEqual(refusals.map((line) => line.replace(/: .*$/, ': 42501')))
    expect((await verifyAuditChain(t.db)).problems).toEqual([])
  })

  it('finds an event changed or deleted by someone who got past the triggers', async () => {
    const audit = createAuditLog(t.db, { now: () => new Date(), log: memoryLogger() })
    await audit.record({ action: 'invitation.created', userId: t.demo.admin.id })
    await audit.record({ action: 'invitation.used', userId: t.demo.admin.id })
    const before = await verifyAuditChain(t.db)
    expect(before.problems).toEqual([])
    expect(before.events).toBeGreaterThanOrEqual(5)
    // The owner can lift the append-only trigger; the chain still tells.
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete`)
      await tx.execute(sql`UPDATE audit_events SET ip = '6.6.6.6' WHERE seq = 2`)
      await tx.execute(sql`DELETE FROM audit_events WHERE seq = 3`)
      await tx.execute(sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete`)
    })
    const after = await verifyAuditChain(t.db)
    expect(after.problems).toEqual([
      'Event 2 was changed after it was written (its hash does not match).',
      'Event 3 is missing: deleted from the trail.',
    ])
    // Events cut off the end leave no gap: a head noted earlier finds them.
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete`)
      await tx.execute(sql`DELETE FROM audit_events WHERE seq = ${before.events}`)
      await tx.execute(sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete`)
    })
    const cut = await verifyAuditChain(t.db, { expectedHead: before.head ?? undefined })
    expect(cut.problems).toContain(
      `The noted head ${before.head} is no longer in the trail: events were removed.`,
    )

    if (databaseUrl) {
      // The operator's command on the same database: exit 1 and the same sentences.
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(run.status).toBe(1)
      expect(run.stdout).toContain('Audit trail BROKEN')
      expect(run.stdout).toContain('- Event 2 was changed after it was written')
      expect(run.stdout).toContain('- Event 3 is missing: deleted from the trail.')
    }
  })
})

import { PGlite } from '@electric-sql/pglite'
import { eq, sql } from 'drizzle-orm'
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { CONFLICT_RETRY_AFTER_SECONDS, CONFLICTING_CHANGE_MESSAGE } from '#server/app.ts'
import type { Transaction } from '#server/db/client.ts'
import { auditEvents, ledgerEntries, patientImportRows, users } from '#server/db/schema.ts'
import { postgresCode } from '#server/lib/log.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { retryTransactions } from './retry.ts'

/**
 * The engine raises the conflicts itself (`RAISE … USING ERRCODE`), so the error reaches the
 * wrapper and the error handler exactly as a real deadlock would through each driver (PGlite's
 * and node-postgres's error, wrapped by drizzle). A sequence counts the attempts: `nextval` is
 * not rolled back with the transaction that called it.
 */
const PROBE = [
  'create table retry_probe_plan (fail_first integer not null, state text not null)',
  "insert into retry_probe_plan values (0, '40P01')",
  'create table retry_probe_rows (attempt integer not null)',
  'create sequence retry_probe_attempts',
  `create function retry_probe_conflict() returns trigger language plpgsql as $$
  declare
    plan record;
  begin
    select * into plan from retry_probe_plan;
    if nextval('retry_probe_attempts') <= plan.fail_first then
      raise exception 'simulated conflict' using errcode = plan.state;
    end if;
    return new;
  end $$`,
  `create trigger retry_probe_conflict before update on users
    for each row execute function retry_probe_conflict()`,
  // At COMMIT, after the whole callback ran: as a serialization failure can come.
  `create constraint trigger retry_probe_commit after insert on ledger_entries
    deferrable initially deferred for each row execute function retry_probe_conflict()`,
]

describe.each(testBackends())('transactions that retry on $name', (backend) => {
  const t = useTestApp(backend)

  /** The next `failFirst` updates of a user (or probe attempts) fail with `state`. */
  async function plan(failFirst: number, state: '40P01' | '40001' = '40P01') {
    await t.db.execute(sql`update retry_probe_plan set fail_first = ${failFirst}, state = ${state}`)
    await t.db.execute(sql`select setval('retry_probe_attempts', 1, false)`)
  }

  /** How many attempts the sequence counted since {@link plan}. */
  async function attempts(): Promise<number> {
    const result = await t.db.execute(
      sql`select case when is_called then last_value else 0 end as n from retry_probe_attempts`,
    )
    const rows = (result as unknown as { rows: { n: number | string }[] }).rows
    return Number(rows[0]?.n ?? 0)
  }

  /** One attempt of a probe transaction: counted, one row written, then the planned failure. */
  const probeAttempt = async (tx: Transaction) => {
    await tx.execute(sql`insert into retry_probe_rows values (nextval('retry_probe_attempts'))`)
    await tx.execute(sql`
      do $$
      declare
        plan record;
      begin
        select * into plan from retry_probe_plan;
        if currval('retry_probe_attempts') <= plan.fail_first then
          raise exception 'simulated conflict' using errcode = plan.state;
        end if;
      end $$`)
    return 'committed'
  }

  async function probeRows(): Promise<number[]> {
    const result = await t.db.execute(sql`select attempt from retry_probe_rows order by attempt`)
    const rows = (result as unknown as { rows: { attempt: number | string }[] }).rows
    return rows.map((row) => Number(row.attempt))
  }

  beforeAll(async () => {
    for (const statement of PROBE) await t.db.execute(sql.raw(statement))
  })
  beforeEach(async () => {
    await plan(0)
    await t.db.execute(sql`delete from retry_probe_rows`)
  })

  it('runs a transaction that met a deadlock twice a third time, keeping only that attempt', async () => {
    await plan(2, '40P01')
    expect(await t.db.transaction(probeAttempt)).toBe('committed')
    expect(await attempts()).toBe(3)
    // The first two attempts were rolled back: their rows are gone.
    expect(await probeRows()).toEqual([3])
  })

  it('retries a serialization failure (40001) the same way', async () => {
    await plan(1, '40001')
    expect(await t.db.transaction(probeAttempt)).toBe('committed')
    expect(await attempts()).toBe(2)
    expect(await probeRows()).toEqual([2])
  })

  it('gives up after three attempts and throws the conflict as it came', async () => {
    await plan(100, '40P01')
    const failure = await t.db.transaction(probeAttempt).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(postgresCode(failure)).toBe('40P01')
    expect(await attempts()).toBe(3)
    expect(await probeRows()).toEqual([])
  })

  it('never runs again a transaction that failed for any other reason', async () => {
    let runs = 0
    const failure = await t.db
      .transaction(async (tx) => {
        runs++
        await tx.execute(sql`select 1 / 0`)
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(postgresCode(failure)).toBe('22012')
    expect(runs).toBe(1)
  })

  it('retries the outermost transaction only, and wraps a database once', async () => {
    await plan(1, '40P01')
    // A savepoint inside an aborted transaction cannot be run again on its own: the outer one is.
    const answer = await t.db.transaction((tx) => tx.transaction(probeAttempt))
    expect(answer).toBe('committed')
    expect(await attempts()).toBe(2)
    expect(retryTransactions(t.db)).toBe(t.db)
    await plan(100, '40P01')
    await t.db.transaction(probeAttempt).catch(() => undefined)
    // Wrapping again did not multiply the attempts.
    expect(await attempts()).toBe(3)
  })

  it('answers a role change that met two deadlocks as if nothing happened', async () => {
    const [before] = await t.db
      .select({ access_rights: users.access_rights })
      .from(users)
      .where(eq(users.id, t.demo.staff.id))
    expect(before?.access_rights).toBe('Staff')
    await plan(2, '40P01')
    const response = await t.request(`/api/users/${t.demo.staff.id}/role`, {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { access_rights: 'Manager' },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ id: t.demo.staff.id, access_rights: 'Manager' })
    expect(await attempts()).toBe(3)
    await plan(0)
    const back = await t.request(`/api/users/${t.demo.staff.id}/role`, {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { access_rights: 'Staff' },
    })
    expect(back.status).toBe(200)
  })

  it('answers 503 with Retry-After when every attempt meets a conflict, never 500', async () => {
    await plan(100, '40001')
    const logged = t.log.records.length
    const response = await t.request(`/api/users/${t.demo.staff.id}/role`, {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { access_rights: 'Manager' },
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('Retry-After')).toBe(String(CONFLICT_RETRY_AFTER_SECONDS))
    expect(await response.json()).toEqual({
      error: {
        status: 503,
        name: API_ERROR_NAMES.unavailable,
        message: CONFLICTING_CHANGE_MESSAGE,
        details: { retryAfterSeconds: CONFLICT_RETRY_AFTER_SECONDS },
      },
    })
    expect(await attempts()).toBe(3)
    await plan(0)
    const [after] = await t.db
      .select({ access_rights: users.access_rights })
      .from(users)
      .where(eq(users.id, t.demo.staff.id))
    expect(after?.access_rights).toBe('Staff')
    // One warning with the route and the SQLSTATE; no error line, no driver message.
    const lines = t.log.records.slice(logged)
    expect(lines.filter((line) => line.level >= 50)).toEqual([])
    expect(lines.filter((line) => line.level === 40)).toEqual([
      expect.objectContaining({
        msg: 'A conflicting change outlasted the retries on PUT /api/users/:id/role',
        route: 'PUT /api/users/:id/role',
        state: '40001',
      }),
    ])
    expect(JSON.stringify(lines)).not.toContain('simulated conflict')
  })

  it('imports a chunk whose commit met a conflict once: each opening balance posted and logged once', async () => {
    await plan(1, '40001')
    const since = await t.db.select({ id: auditEvents.id }).from(auditEvents)
    const known = new Set(since.map((event) => event.id))
    const fileId = 'e'.repeat(64)
    const response = await t.request('/api/patients/import', {
      method: 'POST',
      token: t.demo.adminToken,
      json: {
        file_id: fileId,
        rows: ['100', '200'].map((opening_balance, i) => ({
          row: 2 + i,
          first_name: 'Retry',
          last_name: `Import${i}`,
          email: `retry.import.${i}@import.example`,
          phone: null,
          birth_date: '1985-03-15',
          email_subscription: 'yes',
          sms_subscription: 'no',
          opening_balance,
        })),
      },
    })
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ created: 2, points_posted: 300 })
    // The first attempt failed at its commit, after it had posted both balances.
    expect(await attempts()).toBe(3)
    await plan(0)
    const entries = await t.db
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .innerJoin(patientImportRows, eq(patientImportRows.patient_id, ledgerEntries.patient_id))
      .where(eq(patientImportRows.file_id, fileId))
    expect(entries).toHaveLength(2)
    const logged = (
      await t.db
        .select({ id: auditEvents.id, details: auditEvents.details })
        .from(auditEvents)
        .where(eq(auditEvents.action, 'ledger.posted'))
    ).filter((event) => !known.has(event.id))
    // One line per committed entry: none for the attempt that was rolled back.
    expect(logged.map((event) => (event.details as { entry_id: number }).entry_id).sort()).toEqual(
      entries.map((entry) => entry.id).sort(),
    )
  })

  it('answers a change whose conflicts outlast the retries with 503 and when to try again', async () => {
    await plan(100, '40P01')
    const response = await t.request(`/api/users/${t.demo.admin.id}`, {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { title: '', first_name: 'Renamed', last_name: 'Admin' },
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('Retry-After')).toBe('1')
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      CONFLICTING_CHANGE_MESSAGE,
    )
    // The change and its audit event are one transaction: it ran three times, then gave up.
    expect(await attempts()).toBe(3)
  })
})

/** A drizzle database straight on each driver, not wrapped by `openDatabase`. */
const bareDrivers = [
  {
    name: 'pglite',
    async open() {
      const client = await PGlite.create('memory://')
      return { db: drizzlePglite(client), close: () => client.close() }
    },
  },
  ...(process.env.TEST_DATABASE_URL?.trim()
    ? [
        {
          name: 'postgres',
          async open() {
            const pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 })
            return { db: drizzleNodePg(pool), close: () => pool.end() }
          },
        },
      ]
    : []),
]

describe.each(bareDrivers)('retryTransactions on the bare $name driver', (driver) => {
  it('tells onRetry of each conflict it runs again after, and waits as delayMs says', async () => {
    const { db, close } = await driver.open()
    try {
      const retries: string[] = []
      const waits: number[] = []
      const retrying = retryTransactions(db, {
        attempts: 4,
        delayMs: (attempt) => {
          waits.push(attempt)
          return 0
        },
        onRetry: (state, attempt, attempts) => retries.push(`${state} ${attempt}/${attempts}`),
      })
      let runs = 0
      const states = ['40P01', '40001', '40P01']
      const answer = await retrying.transaction(async (tx) => {
        const state = states[runs++]
        if (state) {
          await tx.execute(
            sql.raw(`do $$ begin raise exception 'simulated' using errcode = '${state}'; end $$`),
          )
        }
        return runs
      })
      expect(answer).toBe(4)
      expect(retries).toEqual(['40P01 1/4', '40001 2/4', '40P01 3/4'])
      expect(waits).toEqual([1, 2, 3])
    } finally {
      await close()
    }
  })
})

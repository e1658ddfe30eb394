import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { count, eq, sql } from 'drizzle-orm'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import {
  DEMO_ADMIN,
  DEMO_MANAGER,
  DEMO_PRACTICE_NAME,
  DEMO_STAFF,
  seedIfEmpty,
} from '#server/demo/seed.ts'
import { verifyPassword } from '#server/security/passwords.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { MIGRATIONS_FOLDER, openDatabase } from './client.ts'
import {
  activities,
  appointments,
  coupons,
  outbox,
  patientPromotions,
  patients,
  personnelInvitations,
  plans,
  practices,
  procedures,
  products,
  promotions,
  users,
} from './schema.ts'

const EVERY_TABLE = [
  'practices',
  'users',
  'plans',
  'coupons',
  'personnel_invitations',
  'patients',
  'procedures',
  'products',
  'appointments',
  'activities',
  'promotions',
  'patient_promotions',
  'uploads',
  'verification_codes',
  'reset_codes',
  'outbox',
  'payments',
  'rate_limits',
  'audit_events',
  'test_gateway_customers',
  'test_gateway_subscriptions',
  'test_gateway_idempotency',
  'outbound_messages',
  'ledger_entries',
  'ledger_daily',
  'patient_daily',
  'promotion_sends',
  'points_reminders',
  'patient_import_rows',
]

describe.each(testBackends())('migrations and seed on $name', (backend) => {
  const t = useTestApp(backend)

  it('creates every table of the schema', async () => {
    // Both drivers answer `{ rows }`; the driver-neutral Database type leaves the result open.
    const result = (await t.db.execute(
      sql`select table_name from information_schema.tables where table_schema = current_schema()`,
    )) as unknown as { rows: { table_name: string }[] }
    const tables = result.rows.map((row) => row.table_name)
    for (const table of EVERY_TABLE) expect(tables).toContain(table)
  })

  it('seeds the four plans and the two coupons every installation starts with', async () => {
    const planRows = await t.db.select().from(plans).orderBy(plans.sort_order)
    expect(planRows.map((p) => [p.nickname, p.interval, p.amount])).toEqual([
      ['Glow Monthly Lite', 'month', 9900],
      ['Glow Yearly Lite', 'year', 106800],
      ['Glow EHR Monthly', 'month', 49900],
      ['Glow EHR Yearly', 'year', 540000],
    ])
    const couponRows = await t.db.select().from(coupons).orderBy(coupons.id)
    expect(couponRows.map((c) => [c.id, c.amount_off, c.percent_off, c.public])).toEqual([
      ['SAVE50OFF', 5000, null, false],
      ['WELCOME10', null, 10, true],
    ])
  })

  it('seeds the demo practice with one member of each role whose passwords verify', async () => {
    const [practice] = await t.db
      .select()
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    expect(practice?.practice_name).toBe(DEMO_PRACTICE_NAME)
    const staff = await t.db.select().from(users).where(eq(users.practice_id, t.demo.practiceId))
    const admin = staff.find((u) => u.email === DEMO_ADMIN.email)
    const member = staff.find((u) => u.email === DEMO_STAFF.email)
    expect(admin?.access_rights).toBe('Admin')
    expect(member?.access_rights).toBe('Staff')
    const manager = staff.find((u) => u.email === DEMO_MANAGER.email)
    expect(manager?.access_rights).toBe('Manager')
    expect(await verifyPassword(manager?.password_hash ?? '', DEMO_MANAGER.password)).toBe(true)
    expect(admin?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(await verifyPassword(admin?.password_hash ?? '', DEMO_ADMIN.password)).toBe(true)
    expect(await verifyPassword(member?.password_hash ?? '', DEMO_STAFF.password)).toBe(true)
    expect(await verifyPassword(admin?.password_hash ?? '', 'WrongPass123')).toBe(false)
  })

  it('seeds patients with distinct random unsubscribe ids and something in every area', async () => {
    const patientRows = await t.db.select().from(patients)
    expect(patientRows.length).toBeGreaterThanOrEqual(6)
    const ids = new Set(patientRows.map((p) => p.unsubscribe_id))
    expect(ids.size).toBe(patientRows.length)
    // 32 random bytes in base64url: 43 characters, 256 bits.
    for (const id of ids) expect(id).toMatch(/^[\w-]{43}$/)
    for (const table of [procedures, products, appointments, activities, promotions]) {
      const [row] = await t.db.select({ n: count() }).from(table)
      expect(row?.n).toBeGreaterThan(0)
    }
    const [claims] = await t.db.select({ n: count() }).from(patientPromotions)
    expect(claims?.n).toBeGreaterThan(0)
  })

  it('seeds one pending invitation with a random id, and its e-mail in the outbox', async () => {
    const invitations = await t.db.select().from(personnelInvitations)
    expect(invitations).toHaveLength(1)
    const [invitation] = invitations
    expect(invitation?.status).toBe('pending')
    expect(invitation?.id).toMatch(/^[\w-]{43}$/)
    expect(invitation?.expires_at.getTime()).toBeGreaterThan(Date.now())
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.to, invitation?.email ?? ''))
    expect(mail?.link).toBe(`http://localhost:3000/signup/personnel/${invitation?.id}`)
  })

  it('seeds only an empty database: a second run changes nothing', async () => {
    const before = await t.db.select({ n: count() }).from(patients)
    expect(await seedIfEmpty(t.db, { publicUrl: 'http://localhost:3000' })).toBe(false)
    const after = await t.db.select({ n: count() }).from(patients)
    expect(after).toEqual(before)
    const [userCount] = await t.db.select({ n: count() }).from(users)
    expect(userCount?.n).toBe(3)
  })

  it('enforces lower-case unique e-mails and the allowed access rights', async () => {
    const base = {
      practice_id: t.demo.practiceId,
      password_hash: 'x',
      first_name: 'A',
      last_name: 'B',
    }
    await expect(
      t.db.insert(users).values({ ...base, email: 'Upper@Example.com' }),
    ).rejects.toThrow()
    await expect(t.db.insert(users).values({ ...base, email: DEMO_ADMIN.email })).rejects.toThrow()
    await expect(
      t.db.insert(users).values({ ...base, email: 'x@example.com', access_rights: 'Root' }),
    ).rejects.toThrow()
  })
})

describe.each(testBackends().filter((backend) => backend.name === 'postgres'))(
  'several instances starting together on $name',
  () => {
    it('migrate and seed the shared database exactly once', async () => {
      const baseUrl = process.env.TEST_DATABASE_URL ?? ''
      const name = `glow_test_${randomBytes(6).toString('hex')}`
      const admin = new pg.Client({ connectionString: baseUrl })
      await admin.connect()
      await admin.query(`create database "${name}"`)
      const url = new URL(baseUrl)
      url.pathname = `/${name}`
      try {
        const handles = await Promise.all(
          [1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString() })),
        )
        try {
          const seeded = await Promise.all(
            handles.map((h) => seedIfEmpty(h.db, { publicUrl: 'http://localhost:3000' })),
          )
          expect(seeded.filter(Boolean)).toHaveLength(1)
          const first = handles[0]
          if (!first) throw new Error('no handle')
          const [practiceCount] = await first.db.select({ n: count() }).from(practices)
          expect(practiceCount?.n).toBe(1)
          const migrations = (await first.db.execute(
            sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
          )) as unknown as { rows: { n: number }[] }
          const journal = JSON.parse(
            readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
          ) as { entries: unknown[] }
          // One row per migration: none applied twice.
          expect(migrations.rows[0]?.n).toBe(journal.entries.length)
        } finally {
          await Promise.all(handles.map((h) => h.close()))
        }
      } finally {
        await admin.query(`drop database if exists "${name}" with (force)`)
        await admin.end()
      }
    })
  },
)

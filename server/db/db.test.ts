import { count, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyPassword } from '#server/services/passwords.ts'
import { createTestApp, type TestApp, testBackends } from '#server/test-support.ts'
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
import { DEMO_ADMIN, DEMO_PRACTICE_NAME, DEMO_STAFF, seedIfEmpty } from './seed.ts'

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
]

describe.each(testBackends())('migrations and seed on $name', (backend) => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp(backend)
  })
  afterAll(() => t?.close())

  it('creates every table of the schema', async () => {
    // Both drivers answer `{ rows }`; the driver-neutral Database type leaves the result open.
    const result = (await t.db.execute(
      sql`select table_name from information_schema.tables where table_schema = current_schema()`,
    )) as unknown as { rows: { table_name: string }[] }
    const tables = result.rows.map((row) => row.table_name)
    for (const table of EVERY_TABLE) expect(tables).toContain(table)
  })

  it('seeds the four plans and the two coupons of DESIGN.md section 6', async () => {
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

  it('seeds the demo practice with an Admin and a staff member whose passwords verify', async () => {
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
    expect(userCount?.n).toBe(2)
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

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { AUDIT_ACTIONS, safeDetails } from '#server/audit/audit.ts'
import { auditEvents } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { randomToken } from '#server/lib/random.ts'
import {
  type ApiCall,
  lastSmsCode,
  postJson,
  readySignUp,
  verifiedPhone,
} from '#server/testing/api-journeys.ts'
import { userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

type AuditRow = typeof auditEvents.$inferSelect

/** Every server source file (not tests), to prove no code path changes the audit trail. */
function serverSources(dir = 'server'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return serverSources(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

describe.each(testBackends())('the audit trail on $name', (backend) => {
  const t = useTestApp(backend)
  let call: ApiCall
  const secrets: string[] = []
  const smsCodes: string[] = []

  beforeAll(async () => {
    call = (path, init) => Promise.resolve(t.app.request(path, init))
  })

  async function eventsSince(id: number): Promise<AuditRow[]> {
    const rows = await t.db.select().from(auditEvents).orderBy(asc(auditEvents.id))
    return rows.filter((row) => row.id > id)
  }
  async function lastId(): Promise<number> {
    const [row] = await t.db
      .select({ id: sql<number>`coalesce(max(${auditEvents.id}), 0)` })
      .from(auditEvents)
    return Number(row?.id ?? 0)
  }

  it('records sign-in success and failure with who, when and from where', async () => {
    const before = await lastId()
    const ok = await postJson(call, '/api/auth/local', {
      identifier: DEMO_ADMIN.email,
      password: DEMO_ADMIN.password,
    })
    expect(ok.status).toBe(200)
    secrets.push(DEMO_ADMIN.password, ((await ok.json()) as { jwt: string }).jwt)
    const wrong = await postJson(call, '/api/auth/local', {
      identifier: DEMO_ADMIN.email,
      password: 'Not-The-Password-9',
    })
    const unknown = await postJson(call, '/api/auth/local', {
      identifier: 'nobody.here@example.com',
      password: 'Whatever-Pass-1',
    })
    expect([wrong.status, unknown.status]).toEqual([400, 400])
    secrets.push('Not-The-Password-9', 'Whatever-Pass-1')

    const rows = await eventsSince(before)
    expect(rows.map((row) => row.action)).toEqual([
      'signin.success',
      'signin.failure',
      'signin.failure',
    ])
    const [success, failure, stranger] = rows
    expect(success).toMatchObject({
      user_id: t.demo.admin.id,
      practice_id: t.demo.practiceId,
      ip: 'local',
    })
    expect(success?.created_at).toBeInstanceOf(Date)
    expect(failure).toMatchObject({
      user_id: t.demo.admin.id,
      details: { reason: 'wrong_password' },
    })
    // An unknown address is kept masked: enough to see a pattern, not to harvest e-mails.
    expect(stranger).toMatchObject({
      user_id: null,
      details: { reason: 'unknown_email', email: 'n***@example.com' },
    })
  })

  it('records a reset requested and used, and a sign-out', async () => {
    const user = await userWithPassword(t, 'audit', 'Old-Pass-123', {
      first_name: 'Audrey',
      last_name: 'Trail',
    })
    const email = user.email
    const before = await lastId()
    const asked = await postJson(call, '/api/auth/forgot-password', {
      email,
      url: 'http://localhost:3000/reset',
    })
    expect(asked.status).toBe(200)
    const outbox = (await (await call('/api/dev/outbox')).json()) as {
      messages: { to: string; link?: string | null }[]
    }
    const link = outbox.messages.find((m) => m.to === email)?.link ?? ''
    const code = new URL(link).searchParams.get('code') ?? ''
    expect(code).not.toBe('')
    const reset = await postJson(call, '/api/auth/reset-password', {
      password: 'Brand-New-Pass-7',
      passwordConfirmation: 'Brand-New-Pass-7',
      code,
    })
    expect(reset.status).toBe(200)
    const { jwt } = (await reset.json()) as { jwt: string }
    expect((await postJson(call, '/api/auth/logout', {}, jwt)).status).toBe(200)
    secrets.push('Old-Pass-123', 'Brand-New-Pass-7', code, jwt)

    const rows = await eventsSince(before)
    expect(rows.map((row) => [row.action, row.user_id])).toEqual([
      ['password_reset.requested', user?.id],
      ['password_reset.used', user?.id],
      ['session.logout', user?.id],
    ])
    expect(rows.every((row) => row.practice_id === t.demo.practiceId && row.ip === 'local')).toBe(
      true,
    )
  })

  it('records an invitation created and used, a payment and a registration', async () => {
    const before = await lastId()
    const invitedEmail = `invitee-${randomToken(6).toLowerCase()}@example.com`
    const invited = await postJson(
      call,
      '/api/personnel',
      { email: invitedEmail, first_name: 'Ivy', last_name: 'Vited', position: 'Staff' },
      t.demo.adminToken,
    )
    expect(invited.status).toBe(201)
    const invitation = (await invited.json()) as { id: string }
    const phone = nanpTestPhone(`555${String(Date.now()).slice(-7)}`)
    const authyId = await verifiedPhone(call, phone, invitedEmail)
    smsCodes.push(await lastSmsCode(call, `+1${phone}`))
    const registered = await postJson(call, '/api/auth/personnel/register', {
      id: invitation.id,
      title: '',
      first_name: 'Ivy',
      last_name: 'Vited',
      cell_phone: phone,
      country_code: '+1',
      password: 'Ivy-Secret-123',
      password_confirm: 'Ivy-Secret-123',
      authyId,
    })
    expect(registered.status, await registered.clone().text()).toBe(200)
    const ivy = ((await registered.json()) as { user: { id: number } }).user

    const payload = await readySignUp(call, 7_000_000 + Math.floor(Math.random() * 999_999))
    const signedUp = await postJson(call, '/api/auth/local/register', payload)
    expect(signedUp.status, await signedUp.clone().text()).toBe(200)
    const admin = ((await signedUp.json()) as { user: { id: number; practice_id: number } }).user
    secrets.push('Ivy-Secret-123', invitation.id, payload.password, authyId, payload.authyId)

    const rows = await eventsSince(before)
    expect(rows.map((row) => row.action)).toEqual([
      'invitation.created',
      'invitation.used',
      'payment.completed',
      'signup.registered',
    ])
    expect(rows[0]).toMatchObject({ user_id: t.demo.admin.id, practice_id: t.demo.practiceId })
    expect(rows[1]).toMatchObject({ user_id: ivy.id, practice_id: t.demo.practiceId })
    expect(rows[2]?.details).toMatchObject({ customer_id: payload.stripe_id })
    expect(rows[3]).toMatchObject({ user_id: admin.id, practice_id: admin.practice_id })
  })

  it('never holds a password, code, token or link id', async () => {
    const rows = await t.db.select().from(auditEvents)
    expect(rows.length).toBeGreaterThanOrEqual(10)
    const text = JSON.stringify(rows)
    expect(secrets.length).toBeGreaterThan(8)
    for (const secret of secrets) expect(text).not.toContain(secret)
    expect(text).not.toMatch(/tok_|eyJ|\$argon2/)
    const values = rows.flatMap((row) => Object.values(row.details ?? {}))
    for (const code of smsCodes) expect(values).not.toContain(code)
    expect(rows.every((row) => (AUDIT_ACTIONS as readonly string[]).includes(row.action))).toBe(
      true,
    )
  })

  it('drops secret-looking details whatever a caller passes', () => {
    expect(
      safeDetails({
        password: 'x',
        resetCode: 'y',
        token: 'z',
        card_number: '4242',
        jwt: 'j',
        reason: 'ok',
      }),
    ).toEqual({ reason: 'ok' })
  })

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    const count = async () => (await t.db.select().from(auditEvents)).length
    const rows = await count()
    await expect(
      t.db.update(auditEvents).set({ action: 'signin.success' }).where(eq(auditEvents.id, 1)),
    ).rejects.toThrow()
    await expect(t.db.delete(auditEvents).where(eq(auditEvents.id, 1))).rejects.toThrow()
    await expect(t.db.execute(sql`truncate table audit_events`)).rejects.toThrow()
    expect(await count()).toBe(rows)
  })

  it('has no code path that updates or deletes audit rows', () => {
    const offenders = serverSources().filter((path) =>
      /\.(update|delete)\(\s*auditEvents\b|(update|delete from|truncate)\s+"?audit_events/i.test(
        readFileSync(path, 'utf8').replace(/CREATE TRIGGER[\s\S]*?;/g, ''),
      ),
    )
    expect(offenders).toEqual([])
  })
})

import { eq } from 'drizzle-orm'
import { decodeJwt } from 'jose'
import { beforeEach, describe, expect, it } from 'vitest'
import { REMEMBER_TTL_SECONDS, SESSION_TTL_SECONDS, verifySession } from '#server/auth/jwt.ts'
import { users } from '#server/db/schema.ts'
import { type ApiCall, postJson } from '#server/testing/api-journeys.ts'
import { userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { httpBackends, mintToken, TEST_JWT_SECRET } from '#server/testing/test-app.ts'

const HOUR = 60 * 60 * 1000

describe.each(httpBackends())('sessions on $name', (backend) => {
  const t = useTestApp(backend)
  let call: ApiCall
  let user: { id: number; practice_id: number; email: string }
  const password = 'Session-Pass-42'
  beforeEach(async () => {
    t.setNow(undefined)
    // A fresh app per test: rate-limit counters never leak between tests.
    const app = t.makeApp()
    call = (path, init) => Promise.resolve(app.request(path, init))
    user = await userWithPassword(t, 'session', password, { first_name: 'Sess', last_name: 'Ion' })
  })

  const usersList = (token: string) =>
    call('/api/users', { headers: { Authorization: `Bearer ${token}` } })

  async function signIn(remember?: boolean): Promise<string> {
    const response = await postJson(call, '/api/auth/local', {
      identifier: user.email,
      password,
      ...(remember === undefined ? {} : { remember }),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { jwt: string }).jwt
  }

  it('lasts 8 hours without Remember me and 30 days with it', async () => {
    const short = decodeJwt(await signIn())
    const long = decodeJwt(await signIn(true))
    expect((short.exp ?? 0) - (short.iat ?? 0)).toBe(SESSION_TTL_SECONDS)
    expect((long.exp ?? 0) - (long.iat ?? 0)).toBe(REMEMBER_TTL_SECONDS)
    expect(SESSION_TTL_SECONDS).toBe(8 * 3600)
    expect(REMEMBER_TTL_SECONDS).toBe(30 * 24 * 3600)
  })

  it('refuses an 8-hour token after 8 hours and a 30-day token after 30 days', async () => {
    const start = new Date('2026-05-01T08:00:00Z')
    const short = await mintToken(user, { now: start })
    const long = await mintToken(user, { now: start, remember: true })
    t.setNow(new Date(start.getTime() + 8 * HOUR - 1000))
    expect((await usersList(short)).status).toBe(200)
    t.setNow(new Date(start.getTime() + 8 * HOUR + 1000))
    expect((await usersList(short)).status).toBe(401)
    expect((await usersList(long)).status).toBe(200)
    t.setNow(new Date(start.getTime() + 30 * 24 * HOUR + 1000))
    expect((await usersList(long)).status).toBe(401)
  })

  it('POST /auth/logout makes the token stop working on the server', async () => {
    const jwt = await signIn()
    const other = await signIn(true)
    expect((await usersList(jwt)).status).toBe(200)
    const out = await postJson(call, '/api/auth/logout', {}, jwt)
    expect(out.status).toBe(200)
    expect(await out.json()).toEqual({ ok: true })
    expect((await usersList(jwt)).status).toBe(401)
    // Signing out ends every session of the user, on every device.
    expect((await usersList(other)).status).toBe(401)
    const [row] = await t.db
      .select({ at: users.tokens_valid_after })
      .from(users)
      .where(eq(users.id, user.id))
    expect(row?.at).toBeInstanceOf(Date)
    // Logging out needs a live session: the ended token cannot do it again.
    expect((await postJson(call, '/api/auth/logout', {}, jwt)).status).toBe(401)
  })

  it('a token made after a sign-out in the same second works; the one before does not', async () => {
    const second = new Date('2026-05-02T10:00:00.000Z')
    t.setNow(new Date(second.getTime() + 100))
    const before = await mintToken(user, { now: new Date(second.getTime() + 100) })
    t.setNow(new Date(second.getTime() + 400))
    expect((await postJson(call, '/api/auth/logout', {}, before)).status).toBe(200)
    t.setNow(new Date(second.getTime() + 700))
    const after = await signIn()
    // Both tokens carry the same whole-second `iat`: only the millisecond claim tells them apart.
    expect(decodeJwt(after).iat).toBe(decodeJwt(before).iat)
    expect((await usersList(before)).status).toBe(401)
    expect((await usersList(after)).status).toBe(200)
    const claims = await verifySession(after, TEST_JWT_SECRET, second)
    expect(claims.issuedAt.getTime()).toBe(second.getTime() + 700)
  })

  it('a password reset ends every earlier session but not the one it hands out', async () => {
    const earlier = await signIn(true)
    const asked = await postJson(call, '/api/auth/forgot-password', {
      email: user.email,
      url: 'http://localhost:3000/reset',
    })
    expect(asked.status).toBe(200)
    const outbox = (await (await call('/api/dev/outbox')).json()) as {
      messages: { to: string; link?: string | null }[]
    }
    const code = new URL(
      outbox.messages.find((m) => m.to === user.email)?.link ?? 'http://x',
    ).searchParams.get('code')
    const reset = await postJson(call, '/api/auth/reset-password', {
      password: 'Fresh-Pass-9876',
      passwordConfirmation: 'Fresh-Pass-9876',
      code,
    })
    expect(reset.status).toBe(200)
    const { jwt } = (await reset.json()) as { jwt: string }
    expect((await usersList(earlier)).status).toBe(401)
    expect((await usersList(jwt)).status).toBe(200)
  })
})

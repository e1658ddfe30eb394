import { eq } from 'drizzle-orm'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { createApp } from '#server/app.ts'
import { users } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { randomToken } from '#server/lib/random.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import { VERIFICATION_RULES } from '#server/messaging/verification.ts'
import { AUTH_LIMITS, dummyPasswordHash } from '#server/modules/auth/routes.ts'
import { PERSONNEL_REGISTER_LIMIT } from '#server/modules/personnel/routes.ts'
import { COUPON_LOOKUP_LIMIT } from '#server/modules/practice/routes.ts'
import { SIGN_UP_LIMITS } from '#server/modules/sign-up/routes.ts'
import { type HashingGate, passwordHashing } from '#server/security/passwords.ts'
import { createPostgresRateLimitStore } from '#server/security/rate-limit.ts'
import {
  type ApiCall,
  lastSmsCode,
  postJson,
  readySignUp,
  TEST_BILLING_INFORMATION,
} from '#server/testing/api-journeys.ts'
import { userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const T0 = new Date('2026-07-01T09:00:00Z')
const MINUTE = 60_000

/** What was measured for the report: the request number that first answered 429. */
const measured: string[] = []

describe.each(testBackends())('rate limits on $name', (backend) => {
  const t = useTestApp(backend)
  let call: ApiCall
  let clock = T0
  afterAll(async () => {
    if (measured.length) console.info(`rate limits (${backend.name}):\n  ${measured.join('\n  ')}`)
    measured.length = 0
  })
  beforeEach(() => {
    clock = T0
    t.setNow(clock)
    // A fresh app per test, so every test starts with empty (in-memory) counters.
    const app = t.makeApp()
    call = (path, init) => Promise.resolve(app.request(path, init))
  })
  const advance = (ms: number) => {
    clock = new Date(clock.getTime() + ms)
    t.setNow(clock)
  }

  /**
   * Sends `send(i)` until the first 429 (at most `limit` + 5 times); answers the number of the
   * request that got it, and checks the 429 says so clearly in the JSON error shape.
   */
  async function firstRefusal(
    name: string,
    limit: number,
    send: (i: number) => Promise<Response>,
  ): Promise<number> {
    for (let i = 1; i <= limit + 5; i++) {
      const response = await send(i)
      if (response.status === 429) {
        const body = (await response.json()) as {
          error: { name: string; message: string; details: { retryAfterSeconds?: number } }
        }
        expect(body.error.name).toBe('RateLimitError')
        expect(body.error.message).toMatch(/Too many|Please wait/)
        measured.push(`${name}: request ${i} → 429 (limit ${limit})`)
        return i
      }
      expect(response.status, `${name} #${i}`).toBeLessThan(500)
    }
    throw new Error(`${name}: no 429 after ${limit + 5} requests`)
  }

  /**
   * Another app on this database that keeps its counts in Postgres, as a second server process
   * would: answers the function that calls it.
   */
  function postgresInstance(): ApiCall {
    const now = () => clock
    const app = createApp({
      db: t.db,
      mail: createOutboxMail(t.db, { now }),
      sms: createOutboxSms(t.db, { now }),
      config: t.config,
      now,
      log: t.log,
      rateLimitStore: createPostgresRateLimitStore(t.db),
    })
    return (path, init) => Promise.resolve(app.request(path, init))
  }

  async function newUser(password = 'Limit-Pass-123') {
    const { email } = await userWithPassword(t, 'limit', password, {
      first_name: 'Lim',
      last_name: 'It',
    })
    return { email, password }
  }

  it('sign-in: after 5 failures of an account its failing address waits, doubling; the right password then gets in', async () => {
    const user = await newUser()
    const n = await firstRefusal('sign-in failures per account (suspect address)', 6, () =>
      postJson(call, '/api/auth/local', { identifier: user.email, password: 'Wrong-Pass-1' }),
    )
    // Five failures, one more try after the first one-second wait, then 429.
    expect(n).toBe(AUTH_LIMITS.signInFailuresPerAccount.max + 2)
    const right = await postJson(call, '/api/auth/local', {
      identifier: user.email,
      password: user.password,
    })
    expect(right.status).toBe(429)
    advance(1000 + 1)
    expect(
      (await postJson(call, '/api/auth/local', { identifier: user.email, password: user.password }))
        .status,
    ).toBe(200)
  })

  it('sign-in: 30 failures per address in 15 minutes, then 429; successes never count', async () => {
    for (let i = 0; i < 35; i++) {
      const staff = await postJson(call, '/api/auth/local', {
        identifier: DEMO_ADMIN.email,
        password: DEMO_ADMIN.password,
      })
      expect(staff.status).toBe(200)
    }
    const n = await firstRefusal('sign-in failures per address', 30, (i) =>
      postJson(call, '/api/auth/local', {
        identifier: `nobody-${i}@example.com`,
        password: 'Wrong-Pass-1',
      }),
    )
    expect(n).toBe(AUTH_LIMITS.signInAccountsPerIp.max + 1)
    advance(15 * MINUTE + 1000)
    const again = await postJson(call, '/api/auth/local', {
      identifier: DEMO_ADMIN.email,
      password: DEMO_ADMIN.password,
    })
    expect(again.status).toBe(200)
  })

  it('forgot-password: 5 per e-mail an hour, 30 per address in 15 minutes', async () => {
    const user = await newUser()
    const url = 'http://localhost:3000/reset'
    expect(
      await firstRefusal('forgot-password per e-mail', 5, () =>
        postJson(call, '/api/auth/forgot-password', { email: user.email, url }),
      ),
    ).toBe(AUTH_LIMITS.forgotPasswordPerEmail.max + 1)
    advance(61 * MINUTE)
    expect(
      await firstRefusal('forgot-password per address', 30, (i) =>
        postJson(call, '/api/auth/forgot-password', { email: `x${i}@example.com`, url }),
      ),
    ).toBe(AUTH_LIMITS.forgotPasswordPerIp.max + 1)
  })

  it('forgot-password sends links only to allowed origins', async () => {
    const user = await newUser()
    for (const url of [
      'https://evil.example/reset',
      'http://localhost:3001/reset',
      'javascript:alert(1)',
    ]) {
      const response = await postJson(call, '/api/auth/forgot-password', { email: user.email, url })
      expect(response.status, url).toBe(400)
    }
    const outbox = (await (await call('/api/dev/outbox')).json()) as { messages: { to: string }[] }
    expect(outbox.messages.some((m) => m.to === user.email)).toBe(false)
  })

  it('promo code lookups: 20 per address in 15 minutes, so private codes cannot be guessed', async () => {
    const n = await firstRefusal('promo code lookups per address', COUPON_LOOKUP_LIMIT.max, (i) =>
      call(`/api/practice/coupons/GUESS${i}`),
    )
    expect(n).toBe(COUPON_LOOKUP_LIMIT.max + 1)
    // The real code is refused too while the address waits; then it works again.
    expect((await call('/api/practice/coupons/SAVE50OFF')).status).toBe(429)
    advance(15 * MINUTE + 1000)
    expect((await call('/api/practice/coupons/SAVE50OFF')).status).toBe(200)
  })

  it('reset-password: 30 attempts per address in 15 minutes', async () => {
    expect(
      await firstRefusal('reset-password per address', 30, () =>
        postJson(call, '/api/auth/reset-password', {
          password: 'Glow2Rewards-Teal',
          passwordConfirmation: 'Glow2Rewards-Teal',
          code: randomToken(),
        }),
      ),
    ).toBe(AUTH_LIMITS.resetPasswordPerIp.max + 1)
  })

  it('get-code: 30 seconds between codes and 5 codes an hour per phone', async () => {
    const phone = nanpTestPhone(`555${String(Date.now()).slice(-7)}`)
    const get = () =>
      postJson(call, '/api/auth/get-code', { email: 'p@example.com', phone, countryCode: '+1' })
    expect((await get()).status).toBe(200)
    expect((await get()).status).toBe(429)
    measured.push('get-code resend gap per phone: second request within 30 s → 429')
    advance(VERIFICATION_RULES.resendGapMs + 1000)
    let sent = 1
    for (; sent < 10; sent++) {
      const response = await get()
      if (response.status === 429) break
      expect(response.status).toBe(200)
      advance(VERIFICATION_RULES.resendGapMs + 1000)
    }
    expect(sent).toBe(VERIFICATION_RULES.maxCodesPerHour)
    measured.push(`get-code per phone an hour: code ${sent + 1} → 429 (limit 5)`)
  })

  it('verify-code: 5 attempts per code, then 429 even for the right code', async () => {
    const phone = nanpTestPhone(`556${String(Date.now()).slice(-7)}`)
    const sent = await postJson(call, '/api/auth/get-code', {
      email: 'v@example.com',
      phone,
      countryCode: '+1',
    })
    const { authyId } = (await sent.json()) as { authyId: string }
    const code = await lastSmsCode(call, `+1${phone}`)
    const wrong = code === '000000' ? '111111' : '000000'
    expect(
      await firstRefusal('verify-code attempts per code', 5, () =>
        postJson(call, '/api/auth/verify-code', { authyId, phone, code: wrong }),
      ),
    ).toBe(VERIFICATION_RULES.maxAttempts + 1)
    expect((await postJson(call, '/api/auth/verify-code', { authyId, phone, code })).status).toBe(
      429,
    )
  })

  it('availability checks: 60 per address a minute', async () => {
    expect(
      await firstRefusal('check-email per address', 60, (i) =>
        postJson(call, '/api/auth/check-email', {
          email: `free-${i}@example.com`,
          phone: '5550001111',
        }),
      ),
    ).toBe(SIGN_UP_LIMITS.checkEmail.max + 1)
    advance(MINUTE + 1000)
    const again = await postJson(call, '/api/auth/check-email', {
      email: 'free-again@example.com',
      phone: '5550001111',
    })
    expect(again.status).toBe(200)
  })

  it('pay, register and personnel registration: per-address limits on well-formed calls', async () => {
    expect(
      await firstRefusal('pay per address', SIGN_UP_LIMITS.pay.max, (i) =>
        postJson(call, '/api/auth/pay', {
          token: `tok_unknown${i}`,
          email: 'limits@example.com',
          billingInformation: TEST_BILLING_INFORMATION,
        }),
      ),
    ).toBe(SIGN_UP_LIMITS.pay.max + 1)
    advance(61 * MINUTE)
    const payload = await readySignUp(call, 9_000_000 + Math.floor(Math.random() * 999_999))
    // The first call signs up; repeats of the same payload answer the same user, and all count.
    expect(
      await firstRefusal('register per address', SIGN_UP_LIMITS.register.max, () =>
        postJson(call, '/api/auth/local/register', payload),
      ),
    ).toBe(SIGN_UP_LIMITS.register.max + 1)
    expect(
      await firstRefusal('personnel register per address', PERSONNEL_REGISTER_LIMIT.max, () =>
        postJson(call, '/api/auth/personnel/register', {
          id: randomToken(32),
          title: '',
          first_name: 'Ivy',
          last_name: 'Vited',
          cell_phone: '5550101234',
          country_code: '+1',
          password: 'Glow2Rewards-Teal',
          password_confirm: 'Glow2Rewards-Teal',
          authyId: randomToken(32),
        }),
      ),
    ).toBe(PERSONNEL_REGISTER_LIMIT.max + 1)
  })

  it("two instances share the pair counts: a typist's failures slow the typist on both, never a colleague", async () => {
    const [a, b] = [postgresInstance(), postgresInstance()]
    // Days before T0: the shared table's windows of the next test (days after T0) stay apart.
    advance(-24 * 60 * MINUTE * Math.floor(Math.random() * 1000 + 1))
    const typist = await newUser()
    const colleague = await newUser('Colleague-Pass-123')
    const signIn = (on: ApiCall, identifier: string, password: string) =>
      postJson(on, '/api/auth/local', { identifier, password })
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      statuses.push((await signIn(i % 2 ? a : b, typist.email, 'Wrong-Pass-1')).status)
    }
    // Five failures, the one try after the first wait, then the shared delay on either instance.
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429, 429])
    expect((await signIn(a, typist.email, typist.password)).status).toBe(429)
    expect((await signIn(b, colleague.email, colleague.password)).status).toBe(200)
    expect((await signIn(a, colleague.email, colleague.password)).status).toBe(200)
  })

  it('two app instances on one database share the counts (Postgres store)', async () => {
    const [a, b] = [postgresInstance(), postgresInstance()]
    // Each test run is its own window: the shared table outlives the in-memory apps.
    advance(24 * 60 * MINUTE * Math.floor(Math.random() * 1000 + 1))
    const n = await firstRefusal('sign-in failures per address across two instances', 30, (i) =>
      postJson(i % 2 ? a : b, '/api/auth/local', {
        identifier: `shared-${i}@example.com`,
        password: 'Wrong-Pass-1',
      }),
    )
    expect(n).toBe(31)
  })
})

describe.each(testBackends())(
  'sign-in does not tell whether an e-mail exists on $name',
  (backend) => {
    const t = useTestApp(backend)

    /**
     * One sign-in on a fresh app (so the per-address and per-account limits stay out of it), with
     * the argon2 work it did counted at the hashing gate: the same work is what makes the two
     * cases take the same time, and counting it cannot flake on a busy machine as a stopwatch can.
     */
    async function attempt(identifier: string) {
      const hashes: number[] = []
      const counting: HashingGate = {
        ...passwordHashing,
        run: (work, priority) => {
          hashes.push(1)
          return passwordHashing.run(work, priority)
        },
      }
      const app = t.makeApp({}, { hashing: counting })
      const response = await app.request('/api/auth/local', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ identifier, password: 'Not-The-Password-1' }),
      })
      return { status: response.status, text: await response.text(), hashes: hashes.length }
    }

    it('answers an unknown e-mail and a wrong password alike, with the same argon2 work', async () => {
      for (let i = 0; i < 3; i++) {
        const known = await attempt(DEMO_ADMIN.email)
        const unknown = await attempt(`nobody-${i}@example.com`)
        expect([known.status, unknown.status]).toEqual([400, 400])
        expect(unknown.text).toBe(known.text)
        // One verification each: the unknown e-mail's against a dummy hash.
        expect([known.hashes, unknown.hashes]).toEqual([1, 1])
      }
      // The dummy hash costs what a real one does: the same argon2id memory, passes and lanes.
      const [admin] = await t.db
        .select({ hash: users.password_hash })
        .from(users)
        .where(eq(users.email, DEMO_ADMIN.email))
      const cost = (hash: string) => hash.split('$').slice(1, 4).join('$')
      expect(cost(await dummyPasswordHash())).toBe(cost(admin?.hash ?? ''))
      expect(cost(await dummyPasswordHash())).toMatch(/^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/)
    })
  },
)

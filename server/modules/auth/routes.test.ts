import { desc, eq } from 'drizzle-orm'
import { decodeJwt } from 'jose'
import * as v from 'valibot'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { SessionSchema } from '#domain/session.ts'
import { type AppType, createApp } from '#server/app.ts'
import { outbox, resetCodes } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { randomToken } from '#server/lib/random.ts'
import { HCAPTCHA_TEST_SECRET, HCAPTCHA_TEST_TOKEN } from '#server/security/captcha.ts'
import { userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { httpBackends, mintToken } from '#server/testing/test-app.ts'
import { AUTH_LIMITS, LOG_FOREIGN_RESET_PAGE_EVERY_MS } from './routes.ts'
import { hashResetCode, RESET_CODE_TTL_MS } from './service.ts'

const TOO_MANY = 'Too many attempts. Please wait a few minutes and try again.'

type ErrorAnswer = { error: { status: number; name: string; message: string } }

describe.each(httpBackends())('auth routes on $name', (backend) => {
  const t = useTestApp(backend)
  // A fresh app per test: the rate-limit counters live in the app, so tests never share them.
  let app: AppType
  beforeEach(() => {
    t.setNow(undefined)
    app = t.makeApp()
  })

  function post(path: string, body: unknown, token?: string) {
    return app.request(`/api${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    })
  }

  function getInit(token?: string) {
    return app.request('/api/users-permissions/init', {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    })
  }

  /** A user of the demo practice with its own password, so tests can change it freely. */
  async function createUser(password = 'OldPass123'): Promise<{ id: number; email: string }> {
    const { id, email } = await userWithPassword(t, 'reset', password, {
      first_name: 'Rhea',
      last_name: 'Setter',
      access_rights: 'Staff',
    })
    return { id, email }
  }

  async function emailsTo(address: string) {
    await t.deliver()
    return t.db.select().from(outbox).where(eq(outbox.to, address)).orderBy(desc(outbox.id))
  }

  /** Asks for a reset link for `email` and returns the code the e-mail carries. */
  async function resetCodeFor(email: string): Promise<string> {
    const response = await post('/auth/forgot-password', {
      email,
      url: 'http://localhost:3000/reset',
    })
    expect(response.status).toBe(200)
    const [mail] = await emailsTo(email)
    const code = mail?.link ? new URL(mail.link).searchParams.get('code') : null
    if (!code) throw new Error(`no reset e-mail to ${email}`)
    return code
  }

  describe('POST /auth/local', () => {
    it('signs the demo admin in with a JWT of 8 hours and the session answer', async () => {
      const response = await post('/auth/local', {
        identifier: DEMO_ADMIN.email,
        password: DEMO_ADMIN.password,
      })
      expect(response.status).toBe(200)
      const body = await response.json()
      const session = v.parse(SessionSchema, body)
      expect(session.user).toMatchObject({
        email: DEMO_ADMIN.email,
        first_name: 'Demo',
        last_name: 'Admin',
        access_rights: 'Admin',
        practice_id: t.demo.practiceId,
      })
      expect(session.practice).toMatchObject({
        id: t.demo.practiceId,
        practice_name: 'Glow Demo Med Spa',
      })
      expect(JSON.stringify(body)).not.toMatch(/password|argon2/i)
      const claims = decodeJwt(session.jwt)
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(8 * 60 * 60)
      expect((await getInit(session.jwt)).status).toBe(200)
    })

    it('gives a 30-day token with Remember me and compares the e-mail case-insensitively', async () => {
      const response = await post('/auth/local', {
        identifier: '  Demo@Example.COM ',
        password: DEMO_ADMIN.password,
        remember: true,
      })
      expect(response.status).toBe(200)
      const { jwt } = v.parse(SessionSchema, await response.json())
      const claims = decodeJwt(jwt)
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(30 * 24 * 60 * 60)
    })

    it('answers a wrong password and an unknown e-mail alike', async () => {
      const wrong = await post('/auth/local', { identifier: DEMO_ADMIN.email, password: 'nope' })
      const unknown = await post('/auth/local', {
        identifier: 'nobody@example.com',
        password: 'nope',
      })
      expect(wrong.status).toBe(400)
      expect(unknown.status).toBe(400)
      const wrongBody = (await wrong.json()) as ErrorAnswer
      expect(wrongBody.error.message).toBe('Invalid Email or Password')
      expect(await unknown.json()).toEqual(wrongBody)
    })

    // That an unknown e-mail still costs one argon2 verification is counted, not timed, in
    // server/security/rate-limits.security.test.ts.

    it('refuses a malformed body with a 400 that names the field', async () => {
      const response = await post('/auth/local', { identifier: '', password: '' })
      expect(response.status).toBe(400)
      expect(((await response.json()) as ErrorAnswer).error.message).toContain(
        'Please fill email field',
      )
    })

    it('slows an account after 5 failures for the failing address only, never for the right password elsewhere', async () => {
      const user = await createUser('RightPass123')
      for (let i = 0; i < AUTH_LIMITS.signInFailuresPerAccount.max + 1; i++) {
        const response = await post('/auth/local', { identifier: user.email, password: 'wrong' })
        expect(response.status).toBe(400)
      }
      // The address that keeps failing waits, with the spec's sign-in texts kept for the rest.
      const slowed = await post('/auth/local', { identifier: user.email, password: 'RightPass123' })
      expect(slowed.status).toBe(429)
      expect(slowed.headers.get('Retry-After')).toBe('1')
      expect(await slowed.json()).toMatchObject({
        error: { status: 429, name: 'RateLimitError', message: TOO_MANY },
      })
      // Another address, without failures, is let in with the right password at once.
      const elsewhere = await t.makeApp({ trustProxy: true }).request('/api/auth/local', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.1' },
        body: JSON.stringify({ identifier: user.email, password: 'RightPass123' }),
      })
      expect(elsewhere.status).toBe(200)

      t.setNow(new Date(Date.now() + AUTH_LIMITS.signInFailuresPerAccount.windowMs + 1000))
      const later = await post('/auth/local', { identifier: user.email, password: 'RightPass123' })
      expect(later.status).toBe(200)
    })

    it('allows 30 accounts failing from one address in 15 minutes, then answers 429 to an account new there', async () => {
      for (let i = 0; i < AUTH_LIMITS.signInAccountsPerIp.max; i++) {
        const response = await post('/auth/local', {
          identifier: `spray-${i}@example.com`,
          password: 'guess',
        })
        expect(response.status).toBe(400)
      }
      const limited = await post('/auth/local', {
        identifier: DEMO_ADMIN.email,
        password: DEMO_ADMIN.password,
      })
      expect(limited.status).toBe(429)
      expect(((await limited.json()) as ErrorAnswer).error.message).toBe(TOO_MANY)
    })
  })

  describe('POST /auth/local with the captcha on (HCAPTCHA_SECRET set)', () => {
    let previous: string | undefined
    beforeEach(() => {
      previous = process.env.HCAPTCHA_SECRET
      process.env.HCAPTCHA_SECRET = HCAPTCHA_TEST_SECRET
      app = t.makeApp()
    })
    afterEach(() => {
      if (previous === undefined) delete process.env.HCAPTCHA_SECRET
      else process.env.HCAPTCHA_SECRET = previous
    })

    const credentials = { identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }

    it("refuses a sign-in without a token: 'This field is required.'", async () => {
      const response = await post('/auth/local', credentials)
      expect(response.status).toBe(400)
      expect(((await response.json()) as ErrorAnswer).error.message).toBe('This field is required.')
    })

    it('refuses a wrong token before looking at the password', async () => {
      const response = await post('/auth/local', { ...credentials, recaptchaToken: 'forged' })
      expect(response.status).toBe(400)
      expect(((await response.json()) as ErrorAnswer).error.message).toBe(
        'The human check failed. Please try again.',
      )
    })

    it("accepts hCaptcha's test token with the test secret, without a network call", async () => {
      const response = await post('/auth/local', {
        ...credentials,
        recaptchaToken: HCAPTCHA_TEST_TOKEN,
      })
      expect(response.status).toBe(200)
    })
  })

  describe('POST /auth/forgot-password', () => {
    it('answers known and unknown e-mails alike and e-mails only the known one', async () => {
      const user = await createUser()
      const known = await post('/auth/forgot-password', {
        email: user.email.toUpperCase(),
        url: 'http://localhost:3000/reset',
      })
      const unknown = await post('/auth/forgot-password', {
        email: 'nobody-here@example.com',
        url: 'http://localhost:3000/reset',
      })
      expect(known.status).toBe(200)
      expect(unknown.status).toBe(200)
      expect(await known.json()).toEqual(await unknown.json())

      expect(await emailsTo('nobody-here@example.com')).toHaveLength(0)
      const mails = await emailsTo(user.email)
      expect(mails).toHaveLength(1)
      const link = new URL(mails[0]?.link ?? '')
      expect(`${link.origin}${link.pathname}`).toBe('http://localhost:3000/reset')
      const code = link.searchParams.get('code') ?? ''
      // At least 128 random bits, written in base64url.
      expect(code).toMatch(/^[\w-]{22,}$/)
      expect(mails[0]?.text).toContain(link.toString())

      const stored = await t.db.select().from(resetCodes).where(eq(resetCodes.user_id, user.id))
      expect(stored).toHaveLength(1)
      expect(stored[0]?.code_hash).toBe(hashResetCode(code))
      expect(stored[0]?.code_hash).not.toContain(code)
      expect(stored[0]?.expires_at.getTime()).toBeGreaterThan(
        Date.now() + RESET_CODE_TTL_MS - 60_000,
      )
    })

    it('sends no link to a foreign host', async () => {
      const user = await createUser()
      const response = await post('/auth/forgot-password', {
        email: user.email,
        url: 'https://evil.example/reset',
      })
      expect(response.status).toBe(400)
      expect(await emailsTo(user.email)).toHaveLength(0)
    })

    it("refuses a malformed e-mail with 'Please enter a valid email'", async () => {
      const response = await post('/auth/forgot-password', {
        email: 'not-an-email',
        url: 'http://localhost:3000/reset',
      })
      expect(response.status).toBe(400)
      expect(((await response.json()) as ErrorAnswer).error.message).toBe(
        'email: Please enter a valid email',
      )
    })

    it('allows 5 requests per e-mail an hour, then answers 429', async () => {
      const user = await createUser()
      for (let i = 0; i < AUTH_LIMITS.forgotPasswordPerEmail.max; i++) {
        const response = await post('/auth/forgot-password', {
          email: user.email,
          url: 'http://localhost:3000/reset',
        })
        expect(response.status).toBe(200)
      }
      const limited = await post('/auth/forgot-password', {
        email: user.email,
        url: 'http://localhost:3000/reset',
      })
      expect(limited.status).toBe(429)
      expect(((await limited.json()) as ErrorAnswer).error.message).toBe(TOO_MANY)
      expect(await emailsTo(user.email)).toHaveLength(AUTH_LIMITS.forgotPasswordPerEmail.max)
    })
  })

  describe('POST /auth/reset-password', () => {
    it('sets the new password, signs in, and ends every earlier session', async () => {
      const user = await createUser('OldPass123')
      const oldToken = await mintToken(
        { id: user.id, practice_id: t.demo.practiceId },
        { now: new Date(Date.now() - 60_000) },
      )
      expect((await getInit(oldToken)).status).toBe(200)

      const code = await resetCodeFor(user.email)
      const response = await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass123',
        code,
      })
      expect(response.status).toBe(200)
      const session = v.parse(SessionSchema, await response.json())
      expect(session.user.email).toBe(user.email)

      expect((await getInit(oldToken)).status).toBe(401)
      expect(await (await getInit(session.jwt)).json()).toEqual({ hasAdmin: true })

      const oldPassword = await post('/auth/local', {
        identifier: user.email,
        password: 'OldPass123',
      })
      expect(oldPassword.status).toBe(400)
      const newPassword = await post('/auth/local', {
        identifier: user.email,
        password: 'NewPass123',
      })
      expect(newPassword.status).toBe(200)
    })

    it('accepts a code once: the same link again is outdated', async () => {
      const user = await createUser()
      const code = await resetCodeFor(user.email)
      const body = { password: 'NewPass123', passwordConfirmation: 'NewPass123', code }
      expect((await post('/auth/reset-password', body)).status).toBe(200)
      const again = await post('/auth/reset-password', body)
      expect(again.status).toBe(400)
      expect(((await again.json()) as ErrorAnswer).error.message).toBe(
        'Password Reset link is outdated!',
      )
    })

    it('refuses a code after one hour', async () => {
      const user = await createUser('OldPass123')
      const code = await resetCodeFor(user.email)
      t.setNow(new Date(Date.now() + RESET_CODE_TTL_MS + 1000))
      const response = await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass123',
        code,
      })
      expect(response.status).toBe(400)
      expect(((await response.json()) as ErrorAnswer).error.message).toBe(
        'Password Reset link is outdated!',
      )
      t.setNow(undefined)
      expect(
        (await post('/auth/local', { identifier: user.email, password: 'OldPass123' })).status,
      ).toBe(200)
    })

    it('refuses an unknown code and a mismatched confirmation', async () => {
      const unknown = await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass123',
        code: randomToken(),
      })
      expect(unknown.status).toBe(400)
      expect(((await unknown.json()) as ErrorAnswer).error.message).toBe(
        'Password Reset link is outdated!',
      )
      const mismatch = await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass124',
        code: randomToken(),
      })
      expect(mismatch.status).toBe(400)
      expect(((await mismatch.json()) as ErrorAnswer).error.message).toContain(
        'Passwords should match',
      )
    })

    it('a new reset link lifts the lock that failed guesses put on the account', async () => {
      const user = await createUser()
      for (let i = 0; i < AUTH_LIMITS.signInFailuresPerAccount.max; i++) {
        await post('/auth/local', { identifier: user.email, password: 'wrong' })
      }
      const code = await resetCodeFor(user.email)
      await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass123',
        code,
      })
      const response = await post('/auth/local', { identifier: user.email, password: 'NewPass123' })
      expect(response.status).toBe(200)
    })
  })

  describe('POST /auth/reset-code-status (a reset link judged when opened)', () => {
    const status = async (code: string) => {
      const response = await post('/auth/reset-code-status', { code })
      expect(response.status).toBe(200)
      return response.json()
    }

    it('answers valid for a fresh code, and only invalid for a used, expired or unknown one', async () => {
      const user = await createUser()
      const code = await resetCodeFor(user.email)
      expect(await status(code)).toEqual({ valid: true })
      expect(await status(randomToken(32))).toEqual({ valid: false })
      expect(await status('')).toEqual({ valid: false })

      t.setNow(new Date(Date.now() + RESET_CODE_TTL_MS + 1000))
      expect(await status(code)).toEqual({ valid: false })
      t.setNow(undefined)

      const used = await post('/auth/reset-password', {
        password: 'NewPass123',
        passwordConfirmation: 'NewPass123',
        code,
      })
      expect(used.status).toBe(200)
      expect(await status(code)).toEqual({ valid: false })
    })
  })

  describe('POST /auth/forgot-password: where the link may point, and when the e-mail leaves', () => {
    it('accepts a loopback alias of a localhost PUBLIC_URL in development', async () => {
      const user = await createUser()
      const response = await post('/auth/forgot-password', {
        email: user.email,
        url: 'http://127.0.0.1:3000/reset',
      })
      expect(response.status).toBe(200)
      const [mail] = await emailsTo(user.email)
      expect(new URL(mail?.link ?? '').origin).toBe('http://127.0.0.1:3000')
    })

    it('refuses a reset page on another site with 400 and a clear sentence, no error line, no limit spent', async () => {
      const user = await createUser()
      for (const [on, url] of [
        [app, 'https://evil.example/reset'],
        [t.makeApp({ production: true }), 'http://127.0.0.1:3000/reset'],
      ] as const) {
        const linesBefore = t.log.lines.length
        // Far more calls than the per-address limit of forgot-password allows.
        for (let i = 0; i < AUTH_LIMITS.forgotPasswordPerIp.max + 10; i++) {
          const response = await on.request('/api/auth/forgot-password', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: user.email, url }),
          })
          expect(response.status, url).toBe(400)
          expect(((await response.json()) as ErrorAnswer).error.message).toBe(
            AUTH_MESSAGES.forgotPasswordFailure,
          )
        }
        // One warning that names the origin and how to allow it; never an error-level line.
        const written = t.log.lines.slice(linesBefore)
        expect(written.filter((line) => line.startsWith('error'))).toEqual([])
        const warnings = written.filter((line) => line.includes('A reset link was asked for'))
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toMatch(/^warn: /)
        expect(warnings[0]).toContain(new URL(url).origin)
        expect(warnings[0]).toContain('ALLOWED_ORIGINS')
        // No limit was counted: the real page still gets its link from the same address.
        const real = await on.request('/api/auth/forgot-password', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: user.email, url: 'http://localhost:3000/reset' }),
        })
        expect(real.status).toBe(200)
      }
    })

    it('warns about a reset page on another site again only after the quiet period', async () => {
      const start = new Date('2026-09-01T08:00:00Z')
      t.setNow(start)
      const on = t.makeApp()
      const ask = () =>
        on.request('/api/auth/forgot-password', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: 'x@example.com', url: 'https://elsewhere.example/reset' }),
        })
      const warnings = () =>
        t.log.lines.filter((line) => line.includes('https://elsewhere.example')).length
      const before = warnings()
      await ask()
      await ask()
      expect(warnings()).toBe(before + 1)
      t.setNow(new Date(start.getTime() + LOG_FOREIGN_RESET_PAGE_EVERY_MS + 1000))
      await ask()
      expect(warnings()).toBe(before + 2)
    })

    it('answers before the e-mail is handed to the mail server: the send is queued, then delivered', async () => {
      const user = await createUser()
      let release = () => {}
      const handed: string[] = []
      const slowMail = {
        send: async (message: { to: string }) => {
          handed.push(message.to)
          await new Promise<void>((resolve) => (release = resolve))
        },
      }
      const slow = createApp({
        db: t.db,
        mail: slowMail,
        sms: { send: async () => {} },
        config: t.config,
        log: t.log,
      })
      const response = await slow.request('/api/auth/forgot-password', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: user.email, url: 'http://localhost:3000/reset' }),
      })
      // Answered while the mail server has not taken the message (it never will, until released).
      expect(response.status).toBe(200)
      await vi.waitFor(() => expect(handed).toEqual([user.email]))
      release()
    })
  })

  describe('GET /users-permissions/init', () => {
    it('needs a session', async () => {
      expect((await getInit()).status).toBe(401)
    })

    it("tells whether the user's practice has an Admin", async () => {
      const response = await getInit(t.demo.staffToken)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ hasAdmin: true })
    })
  })
})

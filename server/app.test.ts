import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { ApiErrorBodySchema } from '#domain/api-error.ts'
import { PlansAnswerSchema } from '#domain/plans.ts'
import { OutboxAnswerSchema } from '#domain/practice-data.ts'
import { createApp } from '#server/app.ts'
import type { Database } from '#server/db/client.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends, mintToken } from '#server/testing/test-app.ts'

/** Asserts the one JSON error shape and returns its `error`. */
async function expectError(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
  const body = v.parse(ApiErrorBodySchema, await response.json())
  expect(body.error.status).toBe(status)
  expect(body.error.message.length).toBeGreaterThan(0)
  return body.error
}

describe.each(httpBackends())('the API app on $name', (backend) => {
  const t = useTestApp(backend)

  describe('basics', () => {
    it('answers GET /api/health with {ok:true}', async () => {
      const response = await t.request('/api/health')
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ ok: true })
    })

    it('answers an unknown /api path with a 404 JSON error', async () => {
      const error = await expectError(await t.request('/api/no/such/thing'), 404)
      expect(error.name).toBe('NotFoundError')
      await expectError(await t.request('/api/health', { method: 'POST' }), 404)
    })

    it('does not serve the SPA when no dist folder is configured', async () => {
      await expectError(await t.request('/dashboard'), 404)
    })
  })

  describe('security headers', () => {
    it('sends CSP without inline script, nosniff, referrer policy, no framing; no HSTS in development', async () => {
      const response = await t.request('/api/health')
      const csp = response.headers.get('Content-Security-Policy') ?? ''
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("script-src 'self' https://js.hcaptcha.com")
      expect(csp).toContain('https://js.stripe.com')
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/)
      expect(csp).toContain("style-src 'self' 'unsafe-inline'")
      expect(csp).toContain("img-src 'self' data: blob:")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).toContain("base-uri 'self'")
      expect(csp).toContain("form-action 'self'")
      expect(csp).toMatch(/frame-src [^;]*hcaptcha\.com[^;]*stripe\.com/)
      expect(csp).toMatch(/connect-src 'self'[^;]*hcaptcha\.com[^;]*stripe\.com/)
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
      expect(response.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
      expect(response.headers.get('X-Frame-Options')).toBe('DENY')
      expect(response.headers.get('Strict-Transport-Security')).toBeNull()
    })

    it('sends the headers on errors too', async () => {
      const response = await t.request('/api/nothing-here')
      expect(response.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'")
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
    })

    it('sends HSTS in production', async () => {
      const response = await t.makeApp({ production: true }).request('/api/health')
      expect(response.headers.get('Strict-Transport-Security')).toMatch(/^max-age=\d+/)
    })

    it('sets a readable, SameSite=Strict XSRF-TOKEN cookie with a page, not with API answers', async () => {
      expect((await t.request('/api/health')).headers.get('Set-Cookie')).toBeNull()
      const response = await t.request('/signin')
      const cookie = response.headers.get('Set-Cookie') ?? ''
      expect(cookie).toMatch(/^XSRF-TOKEN=[\w-]{43};/)
      expect(cookie).toContain('Path=/')
      expect(cookie).toContain('SameSite=Strict')
      expect(cookie).not.toMatch(/HttpOnly/i)
      const again = await t.request('/signin', {
        headers: { Cookie: cookie.split(';')[0] ?? '' },
      })
      expect(again.headers.get('Set-Cookie')).toBeNull()
    })

    it('lets an unsafe request without the XSRF cookie through (a bearer-token client)', async () => {
      const response = await t.request('/api/patients', {
        method: 'POST',
        token: t.demo.adminToken,
        json: { first_name: 'No', last_name: 'Header' },
      })
      expect(response.status).toBe(201)
    })
  })

  describe('bad input never reaches a 500', () => {
    it('answers malformed JSON with 400 and the JSON error shape', async () => {
      const error = await expectError(
        await t.request('/api/patients/unsubscribe/some-link', {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: '{"email_subscription": fal',
        }),
        400,
      )
      expect(error.name).toBe('ValidationError')
      expect(error.message).toMatch(/malformed json/i)
    })

    it('answers a body that is not JSON with 415', async () => {
      const error = await expectError(
        await t.request('/api/patients', {
          method: 'POST',
          token: t.demo.adminToken,
          headers: { 'Content-Type': 'text/plain' },
          body: 'first_name=A',
        }),
        415,
      )
      expect(error.name).toBe('UnsupportedMediaTypeError')
      await expectError(
        await t.request('/api/patients', { method: 'POST', token: t.demo.adminToken }),
        415,
      )
    })

    it('answers a body over 100 KB with 413', async () => {
      const error = await expectError(
        await t.request('/api/patients', {
          method: 'POST',
          token: t.demo.adminToken,
          json: { first_name: 'A'.repeat(101 * 1024), last_name: 'B' },
        }),
        413,
      )
      expect(error.name).toBe('PayloadTooLargeError')
    })

    it('answers a schema violation with 400 naming the field', async () => {
      const error = await expectError(
        await t.request('/api/patients', {
          method: 'POST',
          token: t.demo.adminToken,
          json: { first_name: 'Ann', last_name: 'Lee', email: 'not-an-email' },
        }),
        400,
      )
      expect(error.message).toMatch(/^email: /)
      expect(error.details).toMatchObject({ issues: [{ path: 'email' }] })
    })

    it('answers ids that are not positive 32-bit integers with 400', async () => {
      for (const id of ['abc', '1.5', '-1', '0', '99999999999', '1e3', '%20']) {
        const error = await expectError(
          await t.request(`/api/patients/${id}`, { token: t.demo.adminToken }),
          400,
        )
        expect(error.message).toBe('id must be a positive whole number.')
      }
      await expectError(
        await t.request('/api/procedures?practice=x', { token: t.demo.adminToken }),
        400,
      )
      await expectError(await t.request('/api/procedures', { token: t.demo.adminToken }), 400)
      await expectError(
        await t.request(`/api/appointments/${t.demo.practiceId}/2026-02-30`, {
          token: t.demo.adminToken,
        }),
        400,
      )
    })

    it('turns an unexpected failure into a 500 JSON error without a stack, logged server-side', async () => {
      const log = memoryLogger()
      const broken = new Proxy(
        {},
        {
          get() {
            throw new Error('database unreachable at /srv/secret/socket')
          },
        },
      ) as Database
      const app = createApp({
        db: broken,
        mail: createOutboxMail(broken),
        sms: createOutboxSms(broken),
        config: t.config,
        log,
      })
      const response = await app.request('/api/users', {
        headers: { Authorization: `Bearer ${t.demo.adminToken}` },
      })
      const error = await expectError(response, 500)
      expect(error.name).toBe('InternalServerError')
      expect(JSON.stringify(error)).not.toMatch(/secret|at |\.ts/)
      expect(log.lines.join('\n')).toMatch(
        /Unhandled error on GET \/api\/users.*database unreachable/s,
      )
    })
  })

  describe('development outbox', () => {
    it('lists e-mails and SMS newest first in the OutboxMessage shape, and logs no codes', async () => {
      const mail = createOutboxMail(t.db, { log: t.log })
      const first = new Date('2030-01-01T10:00:00Z')
      await mail.send({ to: 'first@example.com', subject: 'First', text: 'one' })
      await createOutboxMail(t.db, { now: () => first, log: t.log }).send({
        to: 'older@example.com',
        subject: 'Older',
        text: 'older',
        link: 'http://localhost:3000/x',
      })
      await createOutboxSms(t.db, { now: () => new Date('2030-01-01T10:05:00Z'), log: t.log }).send(
        {
          to: '+15551234567',
          text: 'Your Glow Rewards code is 654321',
          code: '654321',
        },
      )

      const response = await t.request('/api/dev/outbox')
      expect(response.status).toBe(200)
      const { messages } = v.parse(OutboxAnswerSchema, await response.json())
      expect(messages.slice(0, 2)).toEqual([
        {
          channel: 'sms',
          to: '+15551234567',
          subject: null,
          text: 'Your Glow Rewards code is 654321',
          code: '654321',
          link: null,
          sentAt: '2030-01-01T10:05:00.000Z',
        },
        {
          channel: 'email',
          to: 'older@example.com',
          subject: 'Older',
          text: 'older',
          code: null,
          link: 'http://localhost:3000/x',
          // An e-mail also shows its HTML part and headers (none for this one).
          html: null,
          headers: {},
          sentAt: '2030-01-01T10:00:00.000Z',
        },
      ])
      const times = messages.map((m) => Date.parse(m.sentAt))
      expect([...times].sort((a, b) => b - a)).toEqual(times)
      expect(t.log.lines.join('\n')).not.toContain('654321')
      expect(t.log.lines.join('\n')).not.toContain('first@example.com')
    })

    it('is not there in production', async () => {
      await expectError(await t.makeApp({ production: true }).request('/api/dev/outbox'), 404)
    })
  })

  describe('plans and coupons (public)', () => {
    it('lists the plans and only the public coupons, without a session', async () => {
      const response = await t.request('/api/practice/plans')
      expect(response.status).toBe(200)
      const answer = v.parse(PlansAnswerSchema, await response.json())
      expect(answer.plans.data.map((p) => p.nickname)).toEqual([
        'Glow Monthly Lite',
        'Glow Yearly Lite',
        'Glow EHR Monthly',
        'Glow EHR Yearly',
      ])
      expect(answer.coupons.data).toEqual([{ id: 'WELCOME10', amount_off: null, percent_off: 10 }])
    })

    it('finds a coupon by its code, private ones too, else 404 Invalid promo code', async () => {
      const privateOne = await t.request('/api/practice/coupons/SAVE50OFF')
      expect(privateOne.status).toBe(200)
      expect(await privateOne.json()).toEqual({
        id: 'SAVE50OFF',
        amount_off: 5000,
        percent_off: null,
      })
      const publicOne = await t.request('/api/practice/coupons/WELCOME10')
      expect(await publicOne.json()).toEqual({ id: 'WELCOME10', amount_off: null, percent_off: 10 })
      // Codes are matched in any case: what the person typed is the code they read.
      const lower = await t.request('/api/practice/coupons/save50off')
      expect(((await lower.json()) as { id: string }).id).toBe('SAVE50OFF')
      for (const code of ['NOPE1234', "x'or'1'='1"]) {
        const error = await expectError(
          await t.request(`/api/practice/coupons/${encodeURIComponent(code)}`),
          404,
        )
        expect(error.message).toBe('Invalid promo code')
      }
    })
  })

  it('mints tokens other suites can use', async () => {
    const token = await mintToken(t.demo.staff)
    expect((await t.request(`/api/users/${t.demo.staff.id}`, { token })).status).toBe(200)
  })
})

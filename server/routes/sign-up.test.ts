import { and, desc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createApp } from '#server/app.ts'
import { type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { outbox, payments, verificationCodes } from '#server/db/schema.ts'
import { DEMO_ADMIN, seedIfEmpty } from '#server/db/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/services/mail.ts'
import { createTestGateway, type TestGateway } from '#server/services/payments/index.ts'
import { createOutboxSms } from '#server/services/sms.ts'
import { VERIFICATION_MESSAGES } from '#server/services/verification.ts'
import { AVAILABILITY_MESSAGES } from './sign-up.ts'

const T0 = new Date('2026-06-01T09:00:00Z')

describe('sign-up calls', () => {
  let handle: DatabaseHandle
  let gateway: TestGateway
  let now = T0
  let app: ReturnType<typeof createApp>
  let phoneCounter = 0
  const nextPhone = () => `555${String(2000000 + ++phoneCounter).slice(1)}`

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(`/api${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  async function lastCodeFor(phone: string): Promise<string> {
    const [message] = await handle.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+1${phone}`)))
      .orderBy(desc(outbox.id))
      .limit(1)
    if (!message?.code) throw new Error(`no SMS to ${phone}`)
    return message.code
  }

  async function tokenFor(number: string): Promise<string> {
    const response = await post('/payments/test-tokens', {
      number,
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
      name: 'Jane Doe',
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { id: string }).id
  }

  const billingInformation = {
    billing_address_1: '1 Main Street',
    billing_address_2: '',
    billing_city: 'Austin',
    billing_state: 'TX',
    billing_zip: '73301',
  }

  beforeAll(async () => {
    handle = await openDatabase({ dataDir: 'memory' })
    await seedIfEmpty(handle.db, { publicUrl: 'http://localhost:3000' })
  })
  afterAll(() => handle.close())
  beforeEach(() => {
    now = T0
    gateway = createTestGateway({ now: () => now })
    app = createApp({
      db: handle.db,
      mail: createOutboxMail(handle.db),
      sms: createOutboxSms(handle.db),
      payments: gateway,
      config: {
        jwtSecret: 'test-secret-test-secret-test-secret',
        publicUrl: 'http://localhost:3000',
        allowedOrigins: ['http://localhost:3000'],
        production: false,
      },
      now: () => now,
      log: memoryLogger(),
    })
  })

  describe('POST /auth/check-email', () => {
    it('answers OK as text for a free e-mail and phone', async () => {
      const response = await post('/auth/check-email', {
        email: 'new@clinic.com',
        phone: nextPhone(),
      })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(await response.text()).toBe(AVAILABILITY_MESSAGES.ok)
    })

    it('finds a taken e-mail whatever its case', async () => {
      const response = await post('/auth/check-email', {
        email: DEMO_ADMIN.email.toUpperCase(),
        phone: nextPhone(),
      })
      expect(response.status).toBe(409)
      expect(await response.text()).toBe('Email is already taken.')
    })

    it('finds a taken phone by its digits', async () => {
      // The demo Admin's phone is 5550100101.
      const response = await post('/auth/check-email', {
        email: 'new@clinic.com',
        phone: '+555 010-0101',
      })
      expect(response.status).toBe(409)
      expect(await response.text()).toBe('Phone number is already taken.')
    })

    it('refuses bad input with a JSON 400 and a non-JSON body with 415', async () => {
      const bad = await post('/auth/check-email', { email: 'not-an-email', phone: 'abc' })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ error: { status: 400, name: 'ValidationError' } })
      const missing = await post('/auth/check-email', { email: 'a@b.co' })
      expect(missing.status).toBe(400)
      const text = await post('/auth/check-email', 'email=a@b.co', { 'Content-Type': 'text/plain' })
      expect(text.status).toBe(415)
    })

    it('limits one client to 60 checks a minute', async () => {
      const body = { email: 'rate@clinic.com', phone: nextPhone() }
      for (let i = 0; i < 60; i++) expect((await post('/auth/check-email', body)).status).toBe(200)
      const limited = await post('/auth/check-email', body)
      expect(limited.status).toBe(429)
      expect(await limited.json()).toMatchObject({ error: { status: 429, name: 'RateLimitError' } })
      now = new Date(T0.getTime() + 61_000)
      expect((await post('/auth/check-email', body)).status).toBe(200)
    })
  })

  describe('POST /auth/get-code and /auth/verify-code', () => {
    it('texts a 6-digit code to the outbox and keeps only its hash', async () => {
      const phone = nextPhone()
      const response = await post('/auth/get-code', {
        email: 'jane@clinic.com',
        phone,
        countryCode: '+1',
      })
      expect(response.status).toBe(200)
      const { authyId } = (await response.json()) as { authyId: string }
      expect(authyId).toMatch(/^[\w-]{43}$/)
      const code = await lastCodeFor(phone)
      expect(code).toMatch(/^\d{6}$/)
      const [row] = await handle.db
        .select()
        .from(verificationCodes)
        .where(eq(verificationCodes.id, authyId))
      expect(row?.code_hash).toMatch(/^[0-9a-f]{64}$/)
      expect(Object.values(row ?? {}).map(String)).not.toContain(code)
    })

    it('refuses a second code within 30 seconds with a clear 429', async () => {
      const phone = nextPhone()
      const body = { email: 'jane@clinic.com', phone, countryCode: '+1' }
      expect((await post('/auth/get-code', body)).status).toBe(200)
      now = new Date(T0.getTime() + 5_000)
      const again = await post('/auth/get-code', body)
      expect(again.status).toBe(429)
      expect(await again.json()).toMatchObject({
        error: { status: 429, message: VERIFICATION_MESSAGES.resendTooSoon(25) },
      })
      now = new Date(T0.getTime() + 31_000)
      expect((await post('/auth/get-code', body)).status).toBe(200)
    })

    it('verifies the right code and refuses a wrong one', async () => {
      const phone = nextPhone()
      const { authyId } = (await (
        await post('/auth/get-code', { email: 'jane@clinic.com', phone, countryCode: '+1' })
      ).json()) as { authyId: string }
      const code = await lastCodeFor(phone)
      const wrong = await post('/auth/verify-code', {
        authyId,
        phone,
        code: code === '000000' ? '111111' : '000000',
      })
      expect(wrong.status).toBe(400)
      expect(await wrong.json()).toMatchObject({
        error: { message: 'Incorrect Confirmation Code entered' },
      })
      const right = await post('/auth/verify-code', { authyId, phone, code })
      expect(right.status).toBe(200)
      expect(await right.json()).toEqual({ verified: true })
      const [row] = await handle.db
        .select()
        .from(verificationCodes)
        .where(eq(verificationCodes.id, authyId))
      expect(row?.verified_at).toEqual(T0)
    })

    it('refuses an expired code', async () => {
      const phone = nextPhone()
      const { authyId } = (await (
        await post('/auth/get-code', { email: 'jane@clinic.com', phone, countryCode: '+1' })
      ).json()) as { authyId: string }
      const code = await lastCodeFor(phone)
      now = new Date(T0.getTime() + 10 * 60_000 + 1)
      const response = await post('/auth/verify-code', { authyId, phone, code })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error: { message: VERIFICATION_MESSAGES.expired },
      })
    })

    it('kills the code after 5 wrong attempts', async () => {
      const phone = nextPhone()
      const { authyId } = (await (
        await post('/auth/get-code', { email: 'jane@clinic.com', phone, countryCode: '+1' })
      ).json()) as { authyId: string }
      const code = await lastCodeFor(phone)
      const wrongCode = code === '000000' ? '111111' : '000000'
      for (let i = 0; i < 5; i++) {
        expect((await post('/auth/verify-code', { authyId, phone, code: wrongCode })).status).toBe(
          400,
        )
      }
      const dead = await post('/auth/verify-code', { authyId, phone, code })
      expect(dead.status).toBe(429)
      expect(await dead.json()).toMatchObject({
        error: { message: VERIFICATION_MESSAGES.tooManyAttempts },
      })
    })
  })

  describe('POST /payments/test-tokens', () => {
    it('answers a token for a valid card and Stripe wording for a bad one', async () => {
      expect(await tokenFor('4242 4242 4242 4242')).toMatch(/^tok_/)
      const bad = await post('/payments/test-tokens', {
        number: '4242424242424241',
        exp_month: 12,
        exp_year: 2030,
        cvc: '123',
      })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({
        error: {
          status: 400,
          message: 'Your card number is incorrect.',
          details: { code: 'incorrect_number' },
        },
      })
    })

    it('does not exist when payments are not in test mode', async () => {
      const stripeLike = createApp({
        db: handle.db,
        mail: createOutboxMail(handle.db),
        sms: createOutboxSms(handle.db),
        payments: {
          mode: 'stripe',
          createCustomer: async () => ({ customerId: 'cus_x' }),
          createSubscription: async () => ({ subscriptionId: 'sub_x' }),
        },
        config: {
          jwtSecret: 'x'.repeat(32),
          publicUrl: 'http://localhost:3000',
          allowedOrigins: [],
          production: false,
        },
        log: memoryLogger(),
      })
      const response = await stripeLike.request('/api/payments/test-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          number: '4242424242424242',
          exp_month: 12,
          exp_year: 2030,
          cvc: '123',
        }),
      })
      expect(response.status).toBe(404)
    })
  })

  describe('POST /auth/pay', () => {
    it('creates the customer and remembers the token', async () => {
      const token = await tokenFor('4242424242424242')
      const response = await post('/auth/pay', {
        token,
        email: 'Billing@Clinic.com',
        billingInformation: {
          ...billingInformation,
          card: { number: '4242424242424242', cvv: '123', name: 'Jane Doe' },
        },
      })
      expect(response.status).toBe(200)
      const { id } = (await response.json()) as { id: string }
      expect(id).toMatch(/^cus_test_/)
      const rows = await handle.db.select().from(payments).where(eq(payments.token, token))
      expect(rows).toEqual([
        expect.objectContaining({ token, email: 'billing@clinic.com', customer_id: id }),
      ])
      expect(gateway.customers).toEqual([
        expect.objectContaining({
          id,
          email: 'billing@clinic.com',
          billing: expect.objectContaining({
            name: 'Jane Doe',
            line1: '1 Main Street',
            postalCode: '73301',
          }),
        }),
      ])
    })

    it.each([
      ['4000000000000002', 'Your card was declined.'],
      ['4000000000009995', 'Your card has insufficient funds.'],
    ])('answers 402 with the provider message for %s', async (number, message) => {
      const token = await tokenFor(number)
      const response = await post('/auth/pay', {
        token,
        email: 'billing@clinic.com',
        billingInformation,
      })
      expect(response.status).toBe(402)
      expect(await response.json()).toMatchObject({
        error: { status: 402, name: 'PaymentError', message },
      })
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        0,
      )
    })

    it('answers the same id to a retry and charges once', async () => {
      const token = await tokenFor('4242424242424242')
      const body = { token, email: 'billing@clinic.com', billingInformation }
      const first = (await (await post('/auth/pay', body)).json()) as { id: string }
      const second = await post('/auth/pay', body)
      expect(second.status).toBe(200)
      expect(await second.json()).toEqual(first)
      expect(gateway.customers).toHaveLength(1)
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        1,
      )
    })

    it('stores one payment and charges once for two concurrent calls', async () => {
      const token = await tokenFor('4242424242424242')
      const body = { token, email: 'billing@clinic.com', billingInformation }
      const [a, b] = await Promise.all([post('/auth/pay', body), post('/auth/pay', body)])
      expect(a.status).toBe(200)
      expect(b.status).toBe(200)
      expect(await a.json()).toEqual(await b.json())
      expect(gateway.customers).toHaveLength(1)
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        1,
      )
    })

    it('keeps one payment row when two server instances race on one token', async () => {
      const token = await tokenFor('4242424242424242')
      const body = { token, email: 'billing@clinic.com', billingInformation }
      const other = createApp({
        db: handle.db,
        mail: createOutboxMail(handle.db),
        sms: createOutboxSms(handle.db),
        payments: gateway,
        config: {
          jwtSecret: 'x'.repeat(32),
          publicUrl: 'http://localhost:3000',
          allowedOrigins: [],
          production: false,
        },
        now: () => now,
        log: memoryLogger(),
      })
      const [a, b] = await Promise.all([
        post('/auth/pay', body),
        other.request('/api/auth/pay', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(await a.json()).toEqual(await b.json())
      expect(gateway.customers).toHaveLength(1)
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        1,
      )
    })

    it('refuses the same token for another e-mail, a malformed token and missing billing', async () => {
      const token = await tokenFor('4242424242424242')
      await post('/auth/pay', { token, email: 'billing@clinic.com', billingInformation })
      const other = await post('/auth/pay', {
        token,
        email: 'someone@else.com',
        billingInformation,
      })
      expect(other.status).toBe(409)
      const malformed = await post('/auth/pay', {
        token: 'cus_123',
        email: 'a@b.co',
        billingInformation,
      })
      expect(malformed.status).toBe(400)
      const noBilling = await post('/auth/pay', {
        token,
        email: 'billing@clinic.com',
        billingInformation: {},
      })
      expect(noBilling.status).toBe(400)
    })
  })
})

import { randomBytes } from 'node:crypto'
import { and, desc, eq, sql } from 'drizzle-orm'
import * as v from 'valibot'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { SessionSchema } from '#domain/session.ts'
import { AVAILABILITY_MESSAGES } from '#domain/sign-up/api.ts'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { createApp } from '#server/app.ts'
import type { DatabaseHandle } from '#server/db/client.ts'
import { openJson, type SealedJson } from '#server/db/data-key.ts'
import {
  nextechConnections,
  nextechSyncRuns,
  outbox,
  payments,
  practices,
  users,
  verificationCodes,
} from '#server/db/schema.ts'
import { DEMO_ADMIN, seedIfEmpty } from '#server/demo/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboundQueue, type OutboundQueue } from '#server/messaging/outbound.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import { VERIFICATION_MESSAGES } from '#server/messaging/verification.ts'
import {
  createTestGateway,
  type PaymentProvider,
  type TestGateway,
} from '#server/payments/index.ts'
import {
  readySignUp as readySampleSignUp,
  TEST_BILLING_INFORMATION,
} from '#server/testing/api-journeys.ts'
import { TEST_JWT_SECRET, testBackends } from '#server/testing/test-app.ts'
import { REGISTER_MESSAGES } from './service.ts'

const T0 = new Date('2026-06-01T09:00:00Z')

const billingInformation = TEST_BILLING_INFORMATION

/** Nextech credentials distinctive enough to be searched for in rows and answers. */
const NEXTECH = {
  client_id: 'nx-client-5c1d9e',
  username: 'nx-user-7a2f40',
  password: 'nx-pass-b83e61',
  nx_practice_id: 'nx-practice-e4d072',
}

/** The data key of the app under test (DATA_ENCRYPTION_KEY in a real deployment). */
const DATA_KEY = randomBytes(32)

describe.each(testBackends())('sign-up calls on $name', (backend) => {
  let handle: DatabaseHandle
  let gateway: TestGateway
  let now = T0
  let app: ReturnType<typeof createApp>
  let log: ReturnType<typeof memoryLogger>
  let seed = 0
  // Phones and e-mails differ in every test, so per-phone limits and taken e-mails never leak.
  const nextSeed = () => ++seed + Math.floor(Math.random() * 1000) * 1000
  const nextPhone = () => nanpTestPhone(`555${String(nextSeed()).padStart(7, '0')}`)

  // Every app of this file shares the one table of queued messages; draining any queue sends all.
  let outbound: OutboundQueue
  const appWith = (payments: PaymentProvider) => {
    const mail = createOutboxMail(handle.db, { now: () => now })
    const sms = createOutboxSms(handle.db, { now: () => now })
    outbound = createOutboundQueue({ db: handle.db, mail, sms, log, now: () => now })
    return createApp({
      db: handle.db,
      mail,
      sms,
      outbound,
      payments,
      config: {
        jwtSecret: TEST_JWT_SECRET,
        publicUrl: 'http://localhost:3000',
        allowedOrigins: ['http://localhost:3000'],
        production: false,
        dataKey: DATA_KEY,
      },
      now: () => now,
      log,
    })
  }

  const post = (path: string, body: unknown, headers: Record<string, string> = {}, on = app) =>
    on.request(`/api${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  async function lastCodeFor(phone: string): Promise<string> {
    // Another app's worker may have claimed the message (SKIP LOCKED) and be sending it right now:
    // drain, then look again for a moment before calling it missing.
    for (let attempt = 0; attempt < 40; attempt++) {
      await outbound.drain()
      const [message] = await handle.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+1${phone}`)))
        .orderBy(desc(outbox.id))
        .limit(1)
      if (message?.code) return message.code
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`no SMS to ${phone}`)
  }

  async function getCode(phone: string, email = 'jane@clinic.com'): Promise<string> {
    const response = await post('/auth/get-code', { email, phone, countryCode: '+1' })
    expect(response.status).toBe(200)
    return ((await response.json()) as { authyId: string }).authyId
  }

  async function verifiedPhone(phone: string): Promise<string> {
    const authyId = await getCode(phone)
    const code = await lastCodeFor(phone)
    expect((await post('/auth/verify-code', { authyId, phone, code })).status).toBe(200)
    return authyId
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

  async function pay(email: string, number = '4242424242424242'): Promise<string> {
    const token = await tokenFor(number)
    const response = await post('/auth/pay', { token, email, billingInformation })
    expect(response.status).toBe(200)
    return ((await response.json()) as { id: string }).id
  }

  /** A whole sign-up as the wizard makes it: verified phone, payment, then the payload. */
  const readySignUp = (
    options: { ehr?: boolean; coupon?: string | null; nextech?: boolean } = {},
  ) =>
    readySampleSignUp((path, init) => Promise.resolve(app.request(path, init)), nextSeed(), {
      term: 'year',
      ehr: options.ehr,
      coupon: options.coupon,
      practice: options.nextech ? { e_record: 'nextech', nextech: NEXTECH } : {},
      verifyPhone: (phone) => verifiedPhone(phone),
      pay: (email) => pay(email),
    })

  const countPractices = async (email: string) =>
    (await handle.db.select().from(practices).where(eq(practices.practice_email, email))).length

  beforeAll(async () => {
    handle = await backend.open()
    await seedIfEmpty(handle.db, { publicUrl: 'http://localhost:3000' })
  })
  afterAll(() => handle.close())
  beforeEach(() => {
    now = T0
    log = memoryLogger()
    gateway = createTestGateway({ now: () => now })
    app = appWith(gateway)
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
      // The demo Admin's phone is 5552100101.
      const response = await post('/auth/check-email', {
        email: 'new@clinic.com',
        phone: '+555 210-0101',
      })
      expect(response.status).toBe(409)
      expect(await response.text()).toBe('Phone number is already taken.')
    })

    it('refuses bad input with a JSON 400 and a non-JSON body with 415', async () => {
      const bad = await post('/auth/check-email', { email: 'not-an-email', phone: 'abc' })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ error: { status: 400, name: 'ValidationError' } })
      expect((await post('/auth/check-email', { email: 'a@b.co' })).status).toBe(400)
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
      const authyId = await getCode(phone)
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
      await getCode(phone)
      now = new Date(T0.getTime() + 5_000)
      const again = await post('/auth/get-code', {
        email: 'jane@clinic.com',
        phone,
        countryCode: '+1',
      })
      expect(again.status).toBe(429)
      expect(await again.json()).toMatchObject({
        error: { status: 429, message: VERIFICATION_MESSAGES.resendTooSoon(25) },
      })
      now = new Date(T0.getTime() + 31_000)
      await getCode(phone)
    })

    it('refuses a phone of the wrong length with the spec message', async () => {
      const response = await post('/auth/get-code', {
        email: 'jane@clinic.com',
        phone: '55512345',
        countryCode: '+1',
      })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error: { message: 'phone: Phone number should contain only 7 or 10 digits' },
      })
    })

    it('verifies the right code and refuses a wrong one', async () => {
      const phone = nextPhone()
      const authyId = await getCode(phone)
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
      const authyId = await getCode(phone)
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
      const authyId = await getCode(phone)
      const code = await lastCodeFor(phone)
      const wrongCode = code === '000000' ? '111111' : '000000'
      for (let i = 0; i < 5; i++) {
        const response = await post('/auth/verify-code', { authyId, phone, code: wrongCode })
        expect(response.status).toBe(400)
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
      const stripeLike = appWith({
        mode: 'stripe',
        createCustomer: async () => ({ customerId: 'cus_x' }),
        createSubscription: async () => ({ subscriptionId: 'sub_x' }),
        getSubscription: async () => {
          throw new Error('not used')
        },
        updateCard: async () => {
          throw new Error('not used')
        },
        setCancelAtPeriodEnd: async () => undefined,
      })
      const response = await post(
        '/payments/test-tokens',
        { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
        {},
        stripeLike,
      )
      expect(response.status).toBe(404)
    })
  })

  describe('POST /auth/pay', () => {
    it('creates the customer, remembers the token and never reads card data', async () => {
      const token = await tokenFor('4242424242424242')
      const response = await post('/auth/pay', {
        token,
        email: 'Billing@Clinic.com',
        billingInformation: {
          ...billingInformation,
          card: { number: '4242424242424242', cvv: '123' },
        },
      })
      expect(response.status).toBe(200)
      const { id } = (await response.json()) as { id: string }
      expect(id).toMatch(/^cus_test_/)
      const rows = await handle.db.select().from(payments).where(eq(payments.token, token))
      expect(rows).toEqual([
        expect.objectContaining({ token, email: 'billing@clinic.com', customer_id: id }),
      ])
      expect(await gateway.listCustomers()).toEqual([
        {
          id,
          email: 'billing@clinic.com',
          last4: '4242',
          // Brand, last four and expiry only: what Settings shows of the card on file.
          card: { brand: 'Visa', last4: '4242', expMonth: 12, expYear: 2030 },
          billing: {
            name: 'Jane Doe',
            line1: '1 Main Street',
            line2: null,
            city: 'Austin',
            state: 'TX',
            postalCode: '73301',
            country: 'US',
          },
        },
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
      expect(await gateway.listCustomers()).toHaveLength(1)
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        1,
      )
    })

    it('stores one payment and charges once for two concurrent calls', async () => {
      const token = await tokenFor('4242424242424242')
      const body = { token, email: 'billing@clinic.com', billingInformation }
      const [a, b] = await Promise.all([post('/auth/pay', body), post('/auth/pay', body)])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(await a.json()).toEqual(await b.json())
      expect(await gateway.listCustomers()).toHaveLength(1)
      expect(await handle.db.select().from(payments).where(eq(payments.token, token))).toHaveLength(
        1,
      )
    })

    it('keeps one payment row when two server instances race on one token', async () => {
      const token = await tokenFor('4242424242424242')
      const body = { token, email: 'billing@clinic.com', billingInformation }
      const other = appWith(gateway)
      const [a, b] = await Promise.all([
        post('/auth/pay', body),
        post('/auth/pay', body, {}, other),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(await a.json()).toEqual(await b.json())
      expect(await gateway.listCustomers()).toHaveLength(1)
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
        token: 'cus_1',
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

  describe('POST /auth/local/register', () => {
    it('creates the practice and its Admin, subscribes, welcomes, and the Admin can sign in', async () => {
      const payload = await readySignUp({ ehr: true, coupon: 'WELCOME10' })
      const email = payload.email.toLowerCase()
      const response = await post('/auth/local/register', { ...payload, access_rights: 'Staff' })
      expect(response.status).toBe(200)
      const answer = await response.json()
      const { user } = answer as { user: Record<string, unknown> }
      // The new Admin is signed in: the answer is the session a sign-in answers, and
      // its token opens the new practice's portal.
      const session = v.parse(SessionSchema, answer)
      expect(session.practice).toMatchObject({
        practice_name: 'Glow Test Clinic',
        image_path: null,
      })
      const portal = await app.request('/api/practice', {
        headers: { Authorization: `Bearer ${session.jwt}` },
      })
      expect(portal.status).toBe(200)
      expect(await portal.json()).toMatchObject({
        id: session.practice.id,
        practice_name: 'Glow Test Clinic',
      })
      expect(user).toMatchObject({
        email,
        first_name: 'Jane',
        last_name: 'Doe',
        title: 'Dr.',
        position: 'Provider',
        access_rights: 'Admin',
      })
      expect(JSON.stringify(user)).not.toMatch(/password|argon2/)

      const [row] = await handle.db.select().from(users).where(eq(users.email, email))
      expect(row?.access_rights).toBe('Admin')
      expect(row?.password_hash).toMatch(/^\$argon2id\$/)
      expect(row?.cell_phone).toBe(payload.cell_phone)
      const [practice] = await handle.db
        .select()
        .from(practices)
        .where(eq(practices.id, row?.practice_id ?? -1))
      expect(practice).toMatchObject({
        practice_name: 'Glow Test Clinic',
        practice_email: payload.practice.practice_email,
        stripe_customer_id: payload.stripe_id,
        plan_id: 'plan_glow_yearly_lite',
        coupon_id: 'WELCOME10',
        subscription_ehr: true,
        subscription_months: 12,
        subscription_status: 'active',
        billing_zip: '73301',
      })
      const [verification] = await handle.db
        .select()
        .from(verificationCodes)
        .where(eq(verificationCodes.id, payload.authyId))
      expect(verification?.used_at).toEqual(T0)
      expect(await gateway.listSubscriptions()).toEqual([
        expect.objectContaining({
          customerId: payload.stripe_id,
          planIds: ['plan_glow_yearly_lite', 'plan_glow_ehr_yearly'],
          coupon: 'WELCOME10',
        }),
      ])
      // The subscription's id is kept for Settings.
      const [kept] = await handle.db
        .select({ id: practices.stripe_subscription_id })
        .from(practices)
        .where(eq(practices.stripe_customer_id, payload.stripe_id))
      expect(kept?.id).toBe((await gateway.listSubscriptions())[0]?.id)
      await outbound.drain()
      const welcome = await handle.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.channel, 'email'), eq(outbox.to, email)))
      expect(welcome).toEqual([
        expect.objectContaining({
          subject: 'Welcome to Glow Rewards',
          link: 'http://localhost:3000/signin',
        }),
      ])

      const signIn = await post('/auth/local', { identifier: email, password: payload.password })
      expect(signIn.status).toBe(200)
      expect(await signIn.json()).toMatchObject({ user: { email, access_rights: 'Admin' } })
    })

    it('answers a retry of the same payload with the same user, without a second account or charge', async () => {
      const payload = await readySignUp()
      const first = await post('/auth/local/register', payload)
      expect(first.status).toBe(200)
      const again = await post('/auth/local/register', payload)
      expect(again.status).toBe(200)
      expect(await again.json()).toEqual(await first.json())
      expect(await countPractices(payload.practice.practice_email)).toBe(1)
      expect(await gateway.listCustomers()).toHaveLength(1)
      expect(await gateway.listSubscriptions()).toHaveLength(1)
    })

    it('makes one account for two concurrent submits of one payload', async () => {
      const payload = await readySignUp()
      const [a, b] = await Promise.all([
        post('/auth/local/register', payload),
        post('/auth/local/register', payload),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(await a.json()).toEqual(await b.json())
      expect(await countPractices(payload.practice.practice_email)).toBe(1)
      expect(await gateway.listSubscriptions()).toHaveLength(1)
    })

    it('answers 409 for an e-mail that is taken', async () => {
      const payload = await readySignUp()
      const response = await post('/auth/local/register', {
        ...payload,
        email: DEMO_ADMIN.email.toUpperCase(),
      })
      expect(response.status).toBe(409)
      expect(await response.json()).toMatchObject({
        error: { status: 409, message: 'Email is already taken.' },
      })
      expect(await countPractices(payload.practice.practice_email)).toBe(0)
    })

    it('refuses a phone that was not verified, or a verification used before', async () => {
      const payload = await readySignUp()
      now = new Date(T0.getTime() + 31_000)
      const unverified = await getCode(payload.cell_phone)
      const response = await post('/auth/local/register', { ...payload, authyId: unverified })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error: { message: 'Please verify your phone number before signing up.' },
      })
      const unknown = await post('/auth/local/register', { ...payload, authyId: 'made-up' })
      expect(unknown.status).toBe(400)
      expect(await countPractices(payload.practice.practice_email)).toBe(0)

      expect((await post('/auth/local/register', payload)).status).toBe(200)
      const second = await readySignUp()
      const reused = await post('/auth/local/register', {
        ...second,
        authyId: payload.authyId,
        cell_phone: payload.cell_phone,
      })
      expect(reused.status).toBe(400)
      expect(await countPractices(second.practice.practice_email)).toBe(0)
    })

    it('refuses a sign-up without a payment for the practice e-mail', async () => {
      const payload = await readySignUp()
      const unpaid = await post('/auth/local/register', { ...payload, stripe_id: 'cus_test_none' })
      expect(unpaid.status).toBe(402)
      expect(await unpaid.json()).toMatchObject({
        error: { status: 402, message: REGISTER_MESSAGES.paymentRequired },
      })
      const otherEmail = await post('/auth/local/register', {
        ...payload,
        practice: { ...payload.practice, practice_email: 'other.practice@example.com' },
      })
      expect(otherEmail.status).toBe(402)
      expect(await countPractices(payload.practice.practice_email)).toBe(0)
    })

    it('refuses a payment that already opened another practice', async () => {
      const first = await readySignUp()
      expect((await post('/auth/local/register', first)).status).toBe(200)
      const second = await readySignUp()
      const response = await post('/auth/local/register', {
        ...second,
        stripe_id: first.stripe_id,
        practice: { ...second.practice, practice_email: first.practice.practice_email },
      })
      expect(response.status).toBe(409)
      expect(await response.json()).toMatchObject({
        error: { message: REGISTER_MESSAGES.paymentUsed },
      })
      expect(await gateway.listSubscriptions()).toHaveLength(1)
    })

    it('re-validates the fields, the plans, the promo code and Nextech', async () => {
      const payload = await readySignUp()
      const badName = await post('/auth/local/register', { ...payload, first_name: 'J' })
      expect(badName.status).toBe(400)
      expect(await badName.json()).toMatchObject({
        error: { message: 'first_name: First name should contain minimum 2 characters' },
      })
      const weak = await post('/auth/local/register', { ...payload, password: 'password' })
      expect(weak.status).toBe(400)
      const wrongPlan = await post('/auth/local/register', {
        ...payload,
        billingInformation: { ...payload.billingInformation, plan: ['plan_glow_monthly_lite'] },
      })
      expect(wrongPlan.status).toBe(400)
      expect(await wrongPlan.json()).toMatchObject({
        error: { message: REGISTER_MESSAGES.plansUnavailable },
      })
      const promo = await post('/auth/local/register', { ...payload, coupon: 'NOSUCHCODE' })
      expect(promo.status).toBe(400)
      expect(await promo.json()).toMatchObject({ error: { message: 'Invalid promo code' } })
      const nextech = await post('/auth/local/register', {
        ...payload,
        practice: {
          ...payload.practice,
          e_record: 'nextech',
          nextech: { client_id: 'c', username: 'u', password: 'p', nx_practice_id: 'x' },
        },
      })
      expect(nextech.status).toBe(400)
      expect(await nextech.json()).toMatchObject({
        error: {
          message:
            'billingInformation.subscription_ehr: The Nextech integration needs the EHR plan',
        },
      })
      // Accepting the Business Associates Agreement is signing it: no signature, no
      // practice, whatever the rest of the call says.
      const { sign: _sign, ...unsigned } = payload.billingInformation
      const unsignedAnswers = await Promise.all(
        [unsigned, { ...unsigned, sign: null }].map(async (billingInformation) => {
          const refused = await post('/auth/local/register', { ...payload, billingInformation })
          return { status: refused.status, body: await refused.json() }
        }),
      )
      expect(unsignedAnswers).toMatchObject([
        {
          status: 400,
          body: {
            error: { message: expect.stringMatching(/^billingInformation\.sign: .*"sign"/) },
          },
        },
        {
          status: 400,
          body: {
            error: {
              message: 'billingInformation.sign: Please accept the Business Associates Agreement',
            },
          },
        },
      ])
      const notJson = await post('/auth/local/register', '[1,2]')
      expect(notJson.status).toBe(400)
      expect(await countPractices(payload.practice.practice_email)).toBe(0)
    })

    it('keeps a Nextech practice with its settings sealed at rest, never answered, and the EHR plan', async () => {
      const payload = await readySignUp({ nextech: true, ehr: true })
      const registered = await post('/auth/local/register', payload)
      expect(registered.status).toBe(200)
      const [practice] = await handle.db
        .select()
        .from(practices)
        .where(eq(practices.practice_email, payload.practice.practice_email))
      expect(practice).toMatchObject({ e_record: 'nextech', subscription_ehr: true })
      // The row holds ciphertext only; the data key opens it.
      const stored = JSON.stringify(practice?.nextech)
      for (const value of Object.values(NEXTECH)) expect(stored).not.toContain(value)
      expect(practice?.nextech).toMatchObject({ v: 1, alg: 'A256GCM' })
      expect(openJson(practice?.nextech as SealedJson, DATA_KEY)).toEqual(NEXTECH)
      // Neither the sign-up answer nor the session of a sign-in carries them.
      const signedIn = await post('/auth/local', {
        identifier: payload.email,
        password: payload.password,
      })
      expect(signedIn.status).toBe(200)
      const answers = `${await registered.text()}${await signedIn.text()}`
      for (const value of Object.values(NEXTECH)) expect(answers).not.toContain(value)
      // The fields were tried at once, in the background: Nextech does not know this client.
      const connection = await vi.waitFor(async () => {
        const [row] = await handle.db
          .select()
          .from(nextechConnections)
          .where(eq(nextechConnections.practice_id, practice?.id ?? 0))
        expect(row).toBeDefined()
        return row
      })
      expect(connection).toMatchObject({ status: 'failing', last_error_reason: 'client_id' })
    })

    it('connects a practice that gave working Nextech fields, and starts its first sync', async () => {
      const payload = await readySignUp({ nextech: true, ehr: true })
      payload.practice.nextech = { ...NEXTECH_SANDBOX_LOGIN }
      const registered = await post('/auth/local/register', payload)
      expect(registered.status).toBe(200)
      const [practice] = await handle.db
        .select({ id: practices.id })
        .from(practices)
        .where(eq(practices.practice_email, payload.practice.practice_email))
      const run = await vi.waitFor(
        async () => {
          const [row] = await handle.db
            .select()
            .from(nextechSyncRuns)
            .where(eq(nextechSyncRuns.practice_id, practice?.id ?? 0))
          expect(row?.status).toBe('done')
          return row
        },
        { timeout: 20_000 },
      )
      expect(run).toMatchObject({ trigger: 'connect' })
      const [connection] = await handle.db
        .select()
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, practice?.id ?? 0))
      expect(connection).toMatchObject({ status: 'connected' })
      expect(connection?.last_sync_at).not.toBeNull()
    })

    it('rolls the practice back when the user cannot be stored', async () => {
      const payload = await readySignUp()
      // A database that refuses this one user row, as a failing disk or constraint would.
      await handle.db.execute(
        sql.raw(`create or replace function refuse_user() returns trigger language plpgsql as $$
          begin raise exception 'user insert refused'; end $$`),
      )
      await handle.db.execute(
        sql.raw(`create trigger refuse_user before insert on users for each row
          when (new.first_name = 'Rollback') execute function refuse_user()`),
      )
      try {
        const response = await post('/auth/local/register', { ...payload, first_name: 'Rollback' })
        expect(response.status).toBe(500)
        expect(await response.json()).toMatchObject({ error: { status: 500 } })
      } finally {
        await handle.db.execute(sql.raw('drop trigger refuse_user on users'))
        await handle.db.execute(sql.raw('drop function refuse_user()'))
      }
      expect(await countPractices(payload.practice.practice_email)).toBe(0)
      const [verification] = await handle.db
        .select()
        .from(verificationCodes)
        .where(eq(verificationCodes.id, payload.authyId))
      expect(verification?.used_at).toBeNull()
      expect(await gateway.listSubscriptions()).toHaveLength(0)
      // The verified phone and the payment still work for the next try.
      expect((await post('/auth/local/register', payload)).status).toBe(200)
    })

    it('keeps the account and marks it past due when the subscription fails', async () => {
      const payload = await readySignUp()
      const failing: PaymentProvider = {
        ...gateway,
        createSubscription: async () => Promise.reject(new Error('provider down')),
      }
      const response = await post('/auth/local/register', payload, {}, appWith(failing))
      expect(response.status).toBe(200)
      const [practice] = await handle.db
        .select()
        .from(practices)
        .where(eq(practices.practice_email, payload.practice.practice_email))
      expect(practice?.subscription_status).toBe('past_due')
      expect(log.lines.join('\n')).not.toContain(payload.password)
    })
  })
})

import { and, eq, sql } from 'drizzle-orm'
import { type Context, Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { isNanpNumber } from '#domain/fields.ts'
import { toRole } from '#domain/permissions.ts'
import type { Plan } from '#domain/plans.ts'
import { selectedPlanIds } from '#domain/pricing.ts'
import type { SessionUser } from '#domain/session.ts'
import {
  AVAILABILITY_MESSAGES,
  CheckEmailBodySchema,
  GetCodeAnswerSchema,
  GetCodeInputSchema,
  PayAnswerSchema,
  type PayPayload,
  PayPayloadSchema,
  RegisterBodySchema,
  SignUpAnswerSchema,
  type SignUpPayload,
  SignUpPayloadSchema,
  VerifyCodeAnswerSchema,
  VerifyCodeInputSchema,
} from '#domain/sign-up/api.ts'
import { SIGN_UP_MESSAGES } from '#domain/sign-up/messages.ts'
import { SESSION_USER_COLUMNS, sessionAnswer } from '#server/auth/session-answer.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { sealJson } from '#server/db/data-key.ts'
import { coupons, payments, planColumns, plans, practices, users } from '#server/db/schema.ts'
import { ApiError, badRequest, conflict } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { maskEmail } from '#server/lib/log.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import {
  consumeVerification,
  issueCode,
  phoneDigits,
  VerificationError,
  verifyCode,
} from '#server/messaging/verification.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { type CustomerBilling, PaymentError } from '#server/payments/index.ts'
import { type CaptchaVerifier, captchaVerifierFromEnv } from '#server/security/captcha.ts'
import { hashPassword, verifyPassword } from '#server/security/passwords.ts'
import { createRateLimiter, type RateLimitStore } from '#server/security/rate-limit.ts'
import { createTakenContacts } from './taken-contacts.ts'
import { welcomeEmail } from './welcome-email.ts'

/** The answers of `POST /auth/local/register` beyond the field rules. */
export const REGISTER_MESSAGES = {
  emailTaken: 'Email is already taken.',
  paymentRequired: 'Please complete the payment before signing up.',
  paymentUsed: 'This payment was already used to sign up another practice.',
  plansUnavailable: 'The chosen plan is not available. Please choose your plan again.',
  invalidPromo: SIGN_UP_MESSAGES.invalidPromo,
} as const

/** Per-IP limits of the public sign-up calls; per-phone code limits live in the verification. */
export const SIGN_UP_LIMITS = {
  checkEmail: { max: 60, windowMs: 60 * 1000 },
  /** SMS one address can have sent in an hour (it was 100, each costing the practice). */
  getCode: { max: 10, windowMs: 60 * 60 * 1000 },
  verifyCode: { max: 100, windowMs: 60 * 60 * 1000 },
  pay: { max: 50, windowMs: 60 * 60 * 1000 },
  register: { max: 50, windowMs: 60 * 60 * 1000 },
} as const

/**
 * SMS the whole server sends in an hour to callers without a practice (everyone on the public
 * get-code call), unless `SMS_HOURLY_BUDGET` says otherwise: an SMS-pumping run across many
 * addresses stops here, with an error in the log for the operator.
 */
export const DEFAULT_SMS_HOURLY_BUDGET = 200

/** The texts of get-code beyond the field rules. */
export const GET_CODE_MESSAGES = {
  /** Ours: a number that is not a North American one (NANP) cannot receive our SMS. */
  notNorthAmerican:
    'Please enter a US or Canadian phone number: a 3-digit area code and a 7-digit number.',
  /** Ours: the hourly SMS budget is spent. */
  budgetSpent:
    'We cannot send more confirmation codes right now. Please try again in a little while.',
} as const

/** Shown with every 429 of the per-IP limits. */
export const TOO_MANY_REQUESTS_MESSAGE =
  'Too many attempts. Please wait a few minutes and try again.'

const STRIPE_TOKEN = /^tok_\w{1,200}$/

/** A fixed Stripe-style customer id, as `POST /auth/pay` answers it. */
const CUSTOMER_ID = /^cus_\w{1,200}$/

function tooMany(retryAfterSeconds: number, message = TOO_MANY_REQUESTS_MESSAGE): ApiError {
  return new ApiError(429, API_ERROR_NAMES.rateLimit, message, { retryAfterSeconds })
}

function verificationFailure(error: VerificationError): ApiError {
  return error.status === 429
    ? tooMany(error.retryAfterSeconds ?? 60, error.message)
    : badRequest(error.message)
}

function paymentFailure(error: PaymentError): ApiError {
  return new ApiError(error.status, API_ERROR_NAMES.payment, error.message, { code: error.code })
}

/** The billing details of `POST /auth/pay` in the provider's terms. */
function customerBilling(billing: PayPayload['billingInformation']): CustomerBilling {
  return {
    name: billing.name.trim(),
    line1: billing.billing_address_1.trim(),
    line2: billing.billing_address_2.trim() || null,
    city: billing.billing_city.trim(),
    state: billing.billing_state.trim(),
    postalCode: billing.billing_zip.trim(),
    country: billing.country,
  }
}

/** The SQLSTATE and constraint of a Postgres error, also when drizzle wraps it in `cause`. */
function postgresError(error: unknown): { code?: string; constraint?: string } {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown }
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      return { code, constraint: typeof constraint === 'string' ? constraint : undefined }
    }
    current = (current as { cause?: unknown }).cause
  }
  return {}
}

const userColumns = SESSION_USER_COLUMNS

type UserRow = {
  id: number
  email: string
  username: string | null
  title: string | null
  first_name: string
  last_name: string
  image_path: string | null
  position: string | null
  access_rights: string
  practice_id: number
}

/** A user as the API answers it (domain/session.ts), never with the password hash. */
function toSessionUser(row: UserRow): SessionUser {
  return {
    id: row.id,
    email: row.email,
    ...(row.username ? { username: row.username } : {}),
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    image_path: row.image_path,
    position: row.position,
    access_rights: toRole(row.access_rights),
    practice_id: row.practice_id,
  }
}

/** Options of {@link signUpRoutes}. */
export type SignUpRouteOptions = {
  /** Where the per-IP counters live; the app's store by default. */
  rateLimitStore?: RateLimitStore
  /** The human check; `null` turns it off. Default: hCaptcha when `HCAPTCHA_SECRET` is set. */
  captcha?: CaptchaVerifier | null
  /** SMS a practice-less caller may have sent per hour, server-wide; default from the env. */
  smsHourlyBudget?: number
}

/**
 * The public calls of the sign-up wizard (spec section 7), mounted under
 * `/api/auth`. Bodies are the domain's shapes (domain/sign-up/api.ts), re-validated here.
 * - `POST /check-email {email, phone}`: text/plain `OK`, or 409 `Email is already taken.` /
 *   `Phone number is already taken.` (e-mail compared case-insensitively, phone by its digits,
 *   against every user). Refused input answers the usual JSON error (400, 415), as does the 429
 *   of the per-IP limit (60 a minute).
 * - `POST /get-code {email, phone, countryCode}`: `{authyId}`; texts a 6-digit code; 429 when
 *   asked again within 30 s or more than 5 times an hour for one phone.
 * - `POST /verify-code {authyId, phone, code}`: `{verified: true}`; 400
 *   `Incorrect Confirmation Code entered`, 400 for an expired code, 429 after 5 attempts.
 * - `POST /pay {token, email, billingInformation}`: `{id}` (the customer id kept as
 *   `stripe_id`); 402 with the provider's message for a refused card; idempotent per token: a
 *   repeat answers the same id and never charges again.
 * - `POST /local/register` (the spec's payload): `{user}`, the new practice's Admin. It needs the
 *   phone verified for that `authyId` and not used before (400 otherwise), and a payment whose
 *   customer is `stripe_id` and whose e-mail is the practice e-mail (402 otherwise). Practice and
 *   Admin are created in one transaction; then the subscription is made with the provider and a
 *   welcome e-mail is sent. A taken e-mail answers 409 `Email is already taken.`; the same
 *   payload again (same e-mail, payment and password) answers the same user, so a retry never
 *   makes a second account or a second charge.
 */
export function signUpRoutes(ctx: ServerContext, options: SignUpRouteOptions = {}) {
  const limiter = createRateLimiter(options.rateLimitStore ?? ctx.rateLimitStore)
  // SMS_PER_ADDRESS_HOURLY raises the per-address Get Code limit where every caller shares one
  // address (a clinic behind one NAT, or the test harness on 127.0.0.1); the default stays 10.
  const perAddressSms = Number(process.env.SMS_PER_ADDRESS_HOURLY?.trim() || Number.NaN)
  const limits = {
    ...SIGN_UP_LIMITS,
    getCode: { ...SIGN_UP_LIMITS.getCode, max: perAddressSms || SIGN_UP_LIMITS.getCode.max },
  }
  const limit = async (c: Context, name: keyof typeof SIGN_UP_LIMITS) => {
    const key = `sign-up:${name}:ip:${ctx.clientIp(c)}`
    const decision = await limiter.consume(key, limits[name], ctx.now().getTime())
    if (!decision.allowed) throw tooMany(decision.retryAfterSeconds)
  }
  const takenContacts = createTakenContacts(ctx.db, { now: () => ctx.now().getTime() })
  const captcha =
    options.captcha === undefined
      ? captchaVerifierFromEnv(process.env, { production: ctx.config.production, log: ctx.log })
      : options.captcha
  const smsBudget = {
    max:
      options.smsHourlyBudget ??
      (Number(process.env.SMS_HOURLY_BUDGET?.trim() || Number.NaN) || DEFAULT_SMS_HOURLY_BUDGET),
    windowMs: 60 * 60 * 1000,
  }
  // Two concurrent calls for one token in this process share one provider call.
  const paymentsInFlight = new Map<string, { email: string; customerId: Promise<string> }>()

  async function payOnce(body: PayPayload, email: string, ip: string): Promise<string> {
    const [earlier] = await ctx.db
      .select({ email: payments.email, customer_id: payments.customer_id })
      .from(payments)
      .where(eq(payments.token, body.token))
      .limit(1)
    if (earlier) {
      if (earlier.email !== email) throw conflict('This card payment was made for another e-mail.')
      return earlier.customer_id
    }
    let customerId: string
    try {
      // The idempotency key makes the provider answer the first result to any repeat, also
      // from another server instance, so a token is charged once.
      ;({ customerId } = await ctx.payments.createCustomer({
        token: body.token,
        email,
        billingInformation: customerBilling(body.billingInformation),
        idempotencyKey: `pay:${body.token}`,
      }))
    } catch (error) {
      if (error instanceof PaymentError) throw paymentFailure(error)
      throw error
    }
    const [stored] = await ctx.db
      .insert(payments)
      .values({ token: body.token, email, customer_id: customerId, created_at: ctx.now() })
      .onConflictDoNothing({ target: payments.token })
      .returning({ customer_id: payments.customer_id })
    if (stored) {
      // Recorded once per charged card token: never the token or any card data.
      await ctx.audit.record({
        action: 'payment.completed',
        ip,
        details: { customer_id: stored.customer_id, email: maskEmail(email) },
      })
      return stored.customer_id
    }
    // Another instance stored this token first; its row is the one answer.
    const [winner] = await ctx.db
      .select({ customer_id: payments.customer_id })
      .from(payments)
      .where(eq(payments.token, body.token))
      .limit(1)
    if (!winner) throw new Error('payment row vanished after a token conflict')
    return winner.customer_id
  }

  /** The plans the payload may subscribe to, derived on the server from the term and EHR. */
  async function subscriptionPlans(body: SignUpPayload): Promise<string[]> {
    const rows = await ctx.db.select(planColumns).from(plans).where(eq(plans.active, true))
    const available: Plan[] = rows.map((row) => ({
      ...row,
      interval: row.interval === 'year' ? 'year' : 'month',
    }))
    const choice = body.billingInformation
    const term = choice.subscription_months === 12 ? 'year' : 'month'
    const expected = selectedPlanIds(available, term, choice.subscription_ehr)
    const sent = [...choice.plan].sort()
    // The Lite plan is always part of it, and the client's ids must be exactly the server's.
    const lite = expected[0]
    const matches =
      lite !== undefined &&
      expected.length === (choice.subscription_ehr ? 2 : 1) &&
      sent.length === expected.length &&
      [...expected].sort().every((id, i) => id === sent[i])
    if (!matches) throw badRequest(REGISTER_MESSAGES.plansUnavailable)
    return expected
  }

  async function couponOf(body: SignUpPayload): Promise<string | null> {
    const code = (body.coupon ?? body.billingInformation.promo_code ?? '').trim()
    if (code === '') return null
    const [row] = await ctx.db
      .select({ id: coupons.id })
      .from(coupons)
      // The same in any case, as the coupon lookup finds it.
      .where(sql`upper(${coupons.id}) = upper(${code})`)
      .limit(1)
    if (!row) throw badRequest(REGISTER_MESSAGES.invalidPromo)
    return row.id
  }

  /** Subscribes the practice; a failure leaves the account and marks it for billing follow-up. */
  async function subscribe(
    practiceId: number,
    customerId: string,
    planIds: string[],
    coupon: string | null,
  ) {
    try {
      const { subscriptionId } = await ctx.payments.createSubscription({
        customerId,
        planIds,
        coupon,
        idempotencyKey: `subscribe:${customerId}`,
      })
      // Kept for Settings: the subscription is read, changed and cancelled by this id.
      await ctx.db
        .update(practices)
        .set({ stripe_subscription_id: subscriptionId })
        .where(eq(practices.id, practiceId))
    } catch (error) {
      // The card was accepted by /auth/pay and the account exists; the subscription can be
      // retried from billing, so the sign-up itself succeeds.
      ctx.log.warn(
        `Subscription for practice ${practiceId} failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      )
      await ctx.db
        .update(practices)
        .set({ subscription_status: 'past_due' })
        .where(eq(practices.id, practiceId))
    }
  }

  /** Queues the welcome e-mail in the transaction that creates the account. */
  async function queueWelcome(
    tx: Transaction,
    to: string,
    firstName: string,
    practiceName: string,
  ) {
    const link = new URL('/signin', ctx.config.publicUrl).toString()
    await ctx.outbound.enqueue(
      tx,
      templateMail(welcomeEmail, to, { firstName, practiceName, link }),
    )
  }

  /** The earlier answer to the same payload, or 409 when the e-mail belongs to someone else. */
  async function repeatedSignUp(
    existing: UserRow & { password_hash: string },
    body: SignUpPayload,
  ): Promise<SessionUser> {
    const [practice] = await ctx.db
      .select({ stripe_customer_id: practices.stripe_customer_id })
      .from(practices)
      .where(eq(practices.id, existing.practice_id))
      .limit(1)
    const same =
      existing.access_rights === 'Admin' &&
      practice?.stripe_customer_id === body.stripe_id &&
      (await ctx.hashing.run(() => verifyPassword(existing.password_hash, body.password)))
    if (!same) throw conflict(REGISTER_MESSAGES.emailTaken)
    return toSessionUser(existing)
  }

  async function createAccount(
    tx: Transaction,
    body: SignUpPayload,
    input: { email: string; passwordHash: string; planIds: string[]; coupon: string | null },
  ): Promise<UserRow> {
    const at = ctx.now()
    // One registration per payment at a time, so a payment can never open two practices.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`register:${body.stripe_id}`}))`)
    const [used] = await tx
      .select({ id: practices.id })
      .from(practices)
      .where(eq(practices.stripe_customer_id, body.stripe_id))
      .limit(1)
    if (used) throw conflict(REGISTER_MESSAGES.paymentUsed)
    try {
      await consumeVerification(tx, { authyId: body.authyId, phone: body.cell_phone }, at)
    } catch (error) {
      if (error instanceof VerificationError) throw verificationFailure(error)
      throw error
    }
    const p = body.practice
    const [practice] = await tx
      .insert(practices)
      .values({
        practice_name: p.practice_name.trim(),
        office_name: p.office_name?.trim() || null,
        url: p.url.trim(),
        practice_phone: phoneDigits(p.practice_phone),
        practice_email: p.practice_email.trim().toLowerCase(),
        practice_address: p.practice_address.trim(),
        practice_address_2: p.practice_address_2.trim() || null,
        city: p.city.trim(),
        practice_zip: p.practice_zip.trim().toUpperCase(),
        state: p.state.trim(),
        country: p.country,
        e_record: p.e_record,
        // The EHR credentials are sealed at rest and never answered.
        nextech: p.nextech ? sealJson(p.nextech, ctx.config.dataKey) : null,
        stripe_customer_id: body.stripe_id,
        plan_id: input.planIds[0] ?? null,
        coupon_id: input.coupon,
        subscription_basic: true,
        subscription_ehr: body.billingInformation.subscription_ehr,
        subscription_months: body.billingInformation.subscription_months,
        subscription_status: 'active',
        billing_address_1: body.billing_address.trim(),
        billing_address_2: body.billing_address_2.trim() || null,
        billing_city: body.billing_city.trim(),
        billing_state: body.billing_state.trim(),
        billing_zip: body.billing_zip.trim(),
        created_at: at,
      })
      .returning({ id: practices.id })
    if (!practice) throw new Error('practice row was not created')
    const [user] = await tx
      .insert(users)
      .values({
        practice_id: practice.id,
        email: input.email,
        username: body.username.trim() || input.email,
        password_hash: input.passwordHash,
        title: body.title.trim() || null,
        first_name: body.first_name.trim(),
        last_name: body.last_name.trim(),
        cell_phone: phoneDigits(body.cell_phone),
        country_code: body.country_code,
        position: body.position,
        // The first user of a new practice is its Admin, whatever the client sent (spec 6).
        access_rights: 'Admin',
        created_at: at,
      })
      .returning(userColumns)
    if (!user) throw new Error('user row was not created')
    await queueWelcome(tx, input.email, user.first_name, p.practice_name.trim())
    return user
  }

  return new Hono<AppEnv>()
    .post(
      '/check-email',
      operation({
        summary: 'Check that an e-mail and phone are free',
        description:
          'Answers `text/plain`, as the specification says. The e-mail is compared case-insensitively and the phone by its digits, against every user.',
        tag: 'Sign-up',
        public: true,
        responses: {
          200: { description: 'Both are free.', text: [AVAILABILITY_MESSAGES.ok] },
          409: {
            description: 'One of them is taken.',
            text: [AVAILABILITY_MESSAGES.emailTaken, AVAILABILITY_MESSAGES.phoneTaken],
          },
          429: TOO_MANY,
        },
      }),
      jsonBody(CheckEmailBodySchema),
      async (c) => {
        await limit(c, 'checkEmail')
        const { email, phone } = c.req.valid('json')
        // A snapshot of every user's e-mail and phone, not a query per check.
        const taken = await takenContacts.get()
        if (taken.emails.has(email.trim().toLowerCase())) {
          return c.text(AVAILABILITY_MESSAGES.emailTaken, 409)
        }
        if (taken.phones.has(phoneDigits(phone))) {
          return c.text(AVAILABILITY_MESSAGES.phoneTaken, 409)
        }
        return c.text(AVAILABILITY_MESSAGES.ok, 200)
      },
    )
    .post(
      '/get-code',
      operation({
        summary: 'Send a phone confirmation code',
        description:
          'Texts a 6-digit code to the phone and answers the verification id. At most one code every 30 seconds and 5 an hour per phone.',
        tag: 'Sign-up',
        public: true,
        responses: {
          200: { description: 'The code was sent.', json: GetCodeAnswerSchema },
          429: TOO_MANY,
          502: 'The SMS provider could not send the code.',
        },
      }),
      jsonBody(GetCodeInputSchema),
      async (c) => {
        const { email, phone, countryCode, captchaToken } = c.req.valid('json')
        // Only numbers the product can text: the +1 countries, a real area and exchange code.
        if (!isNanpNumber(phoneDigits(phone))) throw badRequest(GET_CODE_MESSAGES.notNorthAmerican)
        await limit(c, 'getCode')
        if (captcha) {
          if (!captchaToken) throw badRequest(AUTH_MESSAGES.captchaRequired)
          if (!(await captcha.verify(captchaToken, ctx.clientIp(c)))) {
            throw badRequest(AUTH_MESSAGES.captchaInvalid)
          }
        }
        const at = ctx.now().getTime()
        const budget = await limiter.check('sms:practice-less', smsBudget, at)
        if (!budget.allowed) throw tooMany(budget.retryAfterSeconds, GET_CODE_MESSAGES.budgetSpent)
        try {
          const answer = await issueCode(
            { db: ctx.db, outbound: ctx.outbound, now: ctx.now },
            { email, phone, countryCode },
          )
          await limiter.fail('sms:practice-less', smsBudget, at)
          const spent = await limiter.check('sms:practice-less', smsBudget, at)
          if (!spent.allowed) {
            // Said once per hour, when the last SMS of the budget left: the operator decides.
            ctx.log.error(
              `Alert: the hourly SMS budget (${smsBudget.max} codes to callers without a practice) is spent; get-code answers 429 for ${Math.ceil(spent.retryAfterSeconds / 60)} minutes. Raise SMS_HOURLY_BUDGET if this is real demand, or look for SMS pumping.`,
            )
          }
          return c.json(answer)
        } catch (error) {
          if (error instanceof VerificationError) throw verificationFailure(error)
          throw error
        }
      },
    )
    .post(
      '/verify-code',
      operation({
        summary: 'Confirm the phone code',
        description: 'Checks the code typed; 5 attempts per code, valid for 10 minutes.',
        tag: 'Sign-up',
        public: true,
        responses: {
          200: { description: 'The phone is verified.', json: VerifyCodeAnswerSchema },
          400: 'Incorrect Confirmation Code entered (or an expired code, or a refused body).',
          429: TOO_MANY,
        },
      }),
      jsonBody(VerifyCodeInputSchema),
      async (c) => {
        await limit(c, 'verifyCode')
        const input = c.req.valid('json')
        try {
          await verifyCode({ db: ctx.db, now: ctx.now }, input)
          return c.json({ verified: true as const })
        } catch (error) {
          if (error instanceof VerificationError) throw verificationFailure(error)
          throw error
        }
      },
    )
    .post(
      '/pay',
      operation({
        summary: 'Pay for the subscription',
        description:
          'Creates the paying customer from a one-time card token. Idempotent per token: a repeat answers the same customer id and never charges again.',
        tag: 'Sign-up',
        public: true,
        responses: {
          200: {
            description: 'The customer id, sent later as `stripe_id`.',
            json: PayAnswerSchema,
          },
          400: 'The body or the card token is not valid.',
          402: "The card was refused: the provider's message.",
          409: 'This card token was used for another e-mail.',
          429: TOO_MANY,
        },
      }),
      jsonBody(PayPayloadSchema),
      async (c) => {
        await limit(c, 'pay')
        const body = c.req.valid('json')
        if (!STRIPE_TOKEN.test(body.token)) throw badRequest('The card token is malformed.')
        const email = body.email.trim().toLowerCase()
        let pending = paymentsInFlight.get(body.token)
        if (pending && pending.email !== email) {
          throw conflict('This card payment was made for another e-mail.')
        }
        if (!pending) {
          pending = {
            email,
            customerId: payOnce(body, email, ctx.clientIp(c)).finally(() =>
              paymentsInFlight.delete(body.token),
            ),
          }
          paymentsInFlight.set(body.token, pending)
        }
        return c.json({ id: await pending.customerId })
      },
    )
    .post(
      '/local/register',
      operation({
        summary: 'Sign a practice up',
        description:
          'Creates the practice and its Admin in one transaction (every field re-validated, `access_rights` forced to Admin), subscribes it and e-mails a welcome. Needs the phone verified under `authyId` and the payment of `stripe_id` for the practice e-mail. Answers the new Admin signed in, with the session a sign-in answers. The same payload again answers the same user.',
        tag: 'Sign-up',
        public: true,
        body: SignUpPayloadSchema,
        responses: {
          200: { description: 'The new Admin, signed in.', json: SignUpAnswerSchema },
          400: 'A refused field, an unverified phone, an unknown promo code or an unavailable plan.',
          402: 'Please complete the payment before signing up.',
          409: 'Email is already taken, or the payment was already used.',
          429: TOO_MANY,
        },
      }),
      jsonBody(RegisterBodySchema),
      async (c) => {
        await limit(c, 'register')
        const body = c.req.valid('json')
        const email = body.email.trim().toLowerCase()

        const [existing] = await ctx.db
          .select({ ...userColumns, password_hash: users.password_hash })
          .from(users)
          .where(eq(users.email, email))
          .limit(1)
        if (existing) {
          await repeatedSignUp(existing, body)
          return c.json(await sessionAnswer(ctx, existing.id, false))
        }

        const [payment] = CUSTOMER_ID.test(body.stripe_id)
          ? await ctx.db
              .select({ id: payments.id })
              .from(payments)
              .where(
                and(
                  eq(payments.customer_id, body.stripe_id),
                  eq(payments.email, body.practice.practice_email.trim().toLowerCase()),
                ),
              )
              .limit(1)
          : []
        if (!payment) {
          throw new ApiError(402, API_ERROR_NAMES.payment, REGISTER_MESSAGES.paymentRequired)
        }
        const planIds = await subscriptionPlans(body)
        const coupon = await couponOf(body)
        const passwordHash = await ctx.hashing.run(() => hashPassword(body.password))

        let user: UserRow
        try {
          user = await ctx.db.transaction((tx) =>
            createAccount(tx, body, { email, passwordHash, planIds, coupon }),
          )
        } catch (error) {
          // Two sign-ups at once (a double click, a retry racing the first try): the payment lock
          // or the e-mail's unique index decides; the same payload then gets the winner's answer.
          const { code, constraint } = postgresError(error)
          const emailRace = code === '23505' && constraint === 'users_email_unique'
          const paymentRace = error instanceof ApiError && error.status === 409
          if (!emailRace && !paymentRace) throw error
          const [winner] = await ctx.db
            .select({ ...userColumns, password_hash: users.password_hash })
            .from(users)
            .where(eq(users.email, email))
            .limit(1)
          if (winner) {
            await repeatedSignUp(winner, body)
            return c.json(await sessionAnswer(ctx, winner.id, false))
          }
          throw emailRace ? conflict(REGISTER_MESSAGES.emailTaken) : error
        }
        takenContacts.invalidate()

        await ctx.audit.record({
          action: 'signup.registered',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { customer_id: body.stripe_id },
        })
        ctx.outbound.kick()
        await subscribe(user.practice_id, body.stripe_id, planIds, coupon)
        // The new owner is signed in, as a sign-in would: the answer is a session, which
        // the app stores, so the thank-you page's next step lands in the portal.
        return c.json(await sessionAnswer(ctx, user.id, false))
      },
    )
}

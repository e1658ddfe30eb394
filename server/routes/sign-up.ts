import { eq, or, sql } from 'drizzle-orm'
import { type Context, Hono } from 'hono'
import * as v from 'valibot'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { EmailSchema } from '#domain/fields.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { payments, users } from '#server/db/schema.ts'
import { ApiError, conflict } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { type CustomerBilling, PaymentError } from '#server/services/payments/index.ts'
import {
  issueCode,
  phoneDigits,
  VerificationError,
  verifyCode,
} from '#server/services/verification.ts'

/** The availability answers of `POST /auth/check-email` (spec section 8 matches on these texts). */
export const AVAILABILITY_MESSAGES = {
  ok: 'OK',
  emailTaken: 'Email is already taken.',
  phoneTaken: 'Phone number is already taken.',
} as const

/** Per-IP limits of the public sign-up calls; per-phone code limits live in the verification. */
export const SIGN_UP_LIMITS = {
  checkEmail: { max: 60, windowMs: 60 * 1000 },
  getCode: { max: 100, windowMs: 60 * 60 * 1000 },
  verifyCode: { max: 100, windowMs: 60 * 60 * 1000 },
  pay: { max: 50, windowMs: 60 * 60 * 1000 },
} as const

/** Shown with every 429 of these calls. */
export const TOO_MANY_REQUESTS_MESSAGE =
  'Too many attempts. Please wait a few minutes and try again.'

const trimmed = v.pipe(v.string(), v.trim())

/** A phone as any of our forms send it: digits with spaces, dashes, brackets or a leading plus. */
const PhoneInput = v.pipe(
  trimmed,
  v.regex(/^\+?[\d\s().-]+$/, 'Phone number should contain only numbers'),
  v.check((text) => {
    const digits = phoneDigits(text).length
    return digits >= 7 && digits <= 15
  }, 'Phone number should contain 7 to 15 digits'),
)

/** Body of `POST /auth/check-email`. */
export const CheckEmailBodySchema = v.object({ email: EmailSchema, phone: PhoneInput })

/** Body of `POST /auth/get-code`. */
export const GetCodeBodySchema = v.object({
  email: EmailSchema,
  phone: PhoneInput,
  countryCode: v.optional(
    v.pipe(trimmed, v.regex(/^\+?\d{1,3}$/, 'Country code should look like +1')),
    '+1',
  ),
})

/** Body of `POST /auth/verify-code`. */
export const VerifyCodeBodySchema = v.object({
  authyId: v.pipe(trimmed, v.nonEmpty('Please get a Confirmation Code first'), v.maxLength(100)),
  phone: PhoneInput,
  code: v.pipe(v.string('Please fill confirmation code field'), v.trim(), v.maxLength(20)),
})

const BillingText = (name: string, min: number) =>
  v.pipe(
    trimmed,
    v.minLength(min, `${name} should contain minimum ${min} characters`),
    v.maxLength(200),
  )

/**
 * Body of `POST /auth/pay`. Only the billing address and the cardholder's name are read: card
 * numbers and CVVs have no business on our server, so any such keys are dropped unread.
 */
export const PayBodySchema = v.object({
  token: v.pipe(trimmed, v.regex(/^tok_[\w]{1,200}$/, 'The card token is missing or malformed')),
  email: EmailSchema,
  billingInformation: v.object({
    billing_address_1: BillingText('Billing address', 3),
    billing_address_2: v.optional(v.nullable(v.pipe(trimmed, v.maxLength(200)))),
    billing_city: BillingText('Billing city', 3),
    billing_state: v.pipe(trimmed, v.nonEmpty('Please choose billing state'), v.maxLength(50)),
    billing_zip: v.pipe(
      trimmed,
      v.minLength(5, 'Billing zip should contain 5 to 9 characters'),
      v.maxLength(10, 'Billing zip should contain 5 to 9 characters'),
    ),
    country: v.optional(v.nullable(v.picklist(['US', 'CA']))),
    card: v.optional(v.object({ name: v.optional(v.nullable(v.pipe(trimmed, v.maxLength(200)))) })),
  }),
})
export type PayBody = v.InferOutput<typeof PayBodySchema>

/** A small fixed-window counter kept in memory, per server instance. */
function createWindowCounter() {
  const windows = new Map<string, { start: number; count: number }>()
  return (key: string, max: number, windowMs: number, at: number): number | null => {
    const current = windows.get(key)
    if (!current || at - current.start >= windowMs) {
      // Forget finished windows now and then so the map stays small.
      if (windows.size > 10_000) {
        for (const [k, w] of windows) if (at - w.start >= windowMs) windows.delete(k)
      }
      windows.set(key, { start: at, count: 1 })
      return null
    }
    current.count += 1
    return current.count > max ? Math.ceil((current.start + windowMs - at) / 1000) : null
  }
}

/**
 * The caller's address for per-IP limits: the socket's address when served by Node. A proxy's
 * `X-Forwarded-For` is not trusted here, since any client can write it.
 */
function clientIp(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming
  return incoming?.socket?.remoteAddress ?? 'local'
}

function tooMany(retryAfterSeconds: number, message = TOO_MANY_REQUESTS_MESSAGE): ApiError {
  return new ApiError(429, API_ERROR_NAMES.rateLimit, message, { retryAfterSeconds })
}

function verificationFailure(error: VerificationError): ApiError {
  return error.status === 429
    ? tooMany(error.retryAfterSeconds ?? 60, error.message)
    : new ApiError(400, API_ERROR_NAMES.validation, error.message)
}

function paymentFailure(error: PaymentError): ApiError {
  return new ApiError(error.status, API_ERROR_NAMES.payment, error.message, { code: error.code })
}

/** The billing details of `POST /auth/pay` in the provider's terms. */
function customerBilling(billing: PayBody['billingInformation']): CustomerBilling {
  return {
    name: billing.card?.name ?? null,
    line1: billing.billing_address_1,
    line2: billing.billing_address_2 ?? null,
    city: billing.billing_city,
    state: billing.billing_state,
    postalCode: billing.billing_zip,
    country: billing.country ?? 'US',
  }
}

/**
 * The public calls of the sign-up wizard (spec section 7, DESIGN.md section 4), mounted under
 * `/api/auth`:
 * - `POST /check-email {email, phone}`: text/plain `OK`, or 409 `Email is already taken.` /
 *   `Phone number is already taken.` (e-mail compared case-insensitively, phone by its digits).
 *   Refused input answers the usual JSON error (400, 415), as does the 429 of the per-IP limit.
 * - `POST /get-code {email, phone, countryCode}`: `{authyId}`; texts a 6-digit code; 429 when
 *   asked again within 30 s or more than 5 times an hour for one phone.
 * - `POST /verify-code {authyId, phone, code}`: `{verified: true}`; 400
 *   `Incorrect Confirmation Code entered`, 400 for an expired code, 429 after 5 attempts.
 * - `POST /pay {token, email, billingInformation}`: `{id}` (the customer id kept as
 *   `stripe_id`); 402 with the provider's message for a refused card; idempotent per token.
 * - `POST /local/register`: see {@link registerRoute}.
 */
export function signUpRoutes(ctx: ServerContext) {
  const overLimit = createWindowCounter()
  const limit = (c: Context, name: keyof typeof SIGN_UP_LIMITS) => {
    const { max, windowMs } = SIGN_UP_LIMITS[name]
    const wait = overLimit(`${name}:${clientIp(c)}`, max, windowMs, ctx.now().getTime())
    if (wait !== null) throw tooMany(wait)
  }
  // Two concurrent calls for one token in this process share one provider call.
  const paymentsInFlight = new Map<string, { email: string; customerId: Promise<string> }>()

  async function payOnce(body: PayBody): Promise<string> {
    const email = body.email.trim().toLowerCase()
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
    if (stored) return stored.customer_id
    // Another instance stored this token first; its row is the one answer.
    const [winner] = await ctx.db
      .select({ customer_id: payments.customer_id })
      .from(payments)
      .where(eq(payments.token, body.token))
      .limit(1)
    if (!winner) throw new Error('payment row vanished after a token conflict')
    return winner.customer_id
  }

  return new Hono<AppEnv>()
    .post('/check-email', jsonBody(CheckEmailBodySchema), async (c) => {
      limit(c, 'checkEmail')
      const { email, phone } = c.req.valid('json')
      const address = email.trim().toLowerCase()
      const digits = phoneDigits(phone)
      const taken = await ctx.db
        .select({ email: users.email, phone: users.cell_phone })
        .from(users)
        .where(
          or(
            eq(users.email, address),
            eq(sql`regexp_replace(coalesce(${users.cell_phone}, ''), '\\D', '', 'g')`, digits),
          ),
        )
        .limit(5)
      if (taken.some((row) => row.email === address)) {
        return c.text(AVAILABILITY_MESSAGES.emailTaken, 409)
      }
      if (taken.length > 0) return c.text(AVAILABILITY_MESSAGES.phoneTaken, 409)
      return c.text(AVAILABILITY_MESSAGES.ok, 200)
    })
    .post('/get-code', jsonBody(GetCodeBodySchema), async (c) => {
      limit(c, 'getCode')
      const { email, phone, countryCode } = c.req.valid('json')
      try {
        const answer = await issueCode(
          { db: ctx.db, sms: ctx.sms, now: ctx.now },
          {
            email,
            phone,
            countryCode: countryCode.startsWith('+') ? countryCode : `+${countryCode}`,
          },
        )
        return c.json(answer)
      } catch (error) {
        if (error instanceof VerificationError) throw verificationFailure(error)
        throw error
      }
    })
    .post('/verify-code', jsonBody(VerifyCodeBodySchema), async (c) => {
      limit(c, 'verifyCode')
      const input = c.req.valid('json')
      try {
        await verifyCode({ db: ctx.db, now: ctx.now }, input)
        return c.json({ verified: true as const })
      } catch (error) {
        if (error instanceof VerificationError) throw verificationFailure(error)
        throw error
      }
    })
    .post('/pay', jsonBody(PayBodySchema), async (c) => {
      limit(c, 'pay')
      const body = c.req.valid('json')
      const email = body.email.trim().toLowerCase()
      let pending = paymentsInFlight.get(body.token)
      if (pending && pending.email !== email) {
        throw conflict('This card payment was made for another e-mail.')
      }
      if (!pending) {
        pending = {
          email,
          customerId: payOnce(body).finally(() => paymentsInFlight.delete(body.token)),
        }
        paymentsInFlight.set(body.token, pending)
      }
      return c.json({ id: await pending.customerId })
    })
}

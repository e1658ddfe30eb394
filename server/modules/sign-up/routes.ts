import { type Context, Hono } from 'hono'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { isNanpNumber } from '#domain/fields.ts'
import {
  AVAILABILITY_MESSAGES,
  CheckEmailBodySchema,
  GetCodeAnswerSchema,
  GetCodeInputSchema,
  PayAnswerSchema,
  PayPayloadSchema,
  RegisterBodySchema,
  SignUpAnswerSchema,
  SignUpPayloadSchema,
  VerifyCodeAnswerSchema,
  VerifyCodeInputSchema,
} from '#domain/sign-up/api.ts'
import { sessionAnswer } from '#server/auth/session-answer.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { answeringPayment } from '#server/http/payment.ts'
import { refuseWhenLimited } from '#server/http/rate-limited.ts'
import { jsonBody } from '#server/http/validate.ts'
import { verifying } from '#server/http/verification.ts'
import { issueCode, phoneDigits, verifyCode } from '#server/messaging/verification.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { type CaptchaVerifier, captchaVerifierFromEnv } from '#server/security/captcha.ts'
import { createRateLimiter, type RateLimitStore } from '#server/security/rate-limit.ts'
import { signUpService } from './service.ts'

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
 * The public calls of the sign-up wizard, mounted under
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
    refuseWhenLimited(decision, TOO_MANY_REQUESTS_MESSAGE)
  }
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
  const signUp = signUpService(ctx)

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
        const taken = await signUp.takenContact(email, phone)
        if (taken === 'email') return c.text(AVAILABILITY_MESSAGES.emailTaken, 409)
        if (taken === 'phone') return c.text(AVAILABILITY_MESSAGES.phoneTaken, 409)
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
        refuseWhenLimited(budget, GET_CODE_MESSAGES.budgetSpent)
        const answer = await verifying(() =>
          issueCode(
            { db: ctx.db, outbound: ctx.outbound, now: ctx.now },
            { email, phone, countryCode },
          ),
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
        await verifying(() => verifyCode({ db: ctx.db, now: ctx.now }, input))
        return c.json({ verified: true as const })
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
        const id = await answeringPayment(() => signUp.pay(c.req.valid('json'), ctx.clientIp(c)))
        return c.json({ id })
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
        const userId = await signUp.register(c.req.valid('json'), ctx.clientIp(c))
        // The new owner is signed in, as a sign-in would: the answer is a session, which
        // the app stores, so the thank-you page's next step lands in the portal.
        return c.json(await sessionAnswer(ctx, userId, false))
      },
    )
}

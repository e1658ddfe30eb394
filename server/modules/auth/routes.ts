import { Hono } from 'hono'
import { OkAnswerSchema } from '#domain/api-answers.ts'
import {
  AUTH_MESSAGES,
  type ForgotPasswordAnswer,
  ForgotPasswordAnswerSchema,
  ForgotPasswordPayloadSchema,
  type InitPermissionsAnswer,
  InitPermissionsAnswerSchema,
  type ResetCodeStatusAnswer,
  ResetCodeStatusAnswerSchema,
  ResetCodeStatusPayloadSchema,
  SignInPayloadSchema,
} from '#domain/auth.ts'
import { ResetPasswordPayloadSchema } from '#domain/reset-password.ts'
import { ChangePasswordPayloadSchema, SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { SessionSchema } from '#domain/session.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember } from '#server/auth/permissions.ts'
import { sessionAnswer } from '#server/auth/session-answer.ts'
import {
  createSignInThrottle,
  signInDelaySeconds as delayAfter,
  MAX_SIGN_IN_DELAY_SECONDS,
} from '#server/auth/sign-in-throttle.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { type CaptchaVerifier, captchaVerifierFromEnv } from '#server/security/captcha.ts'
import { createRateLimiter, type RateLimitStore } from '#server/security/rate-limit.ts'
import { AUTH_LIMITS } from './limits.ts'
import { practiceHasAdmin } from './queries.ts'
import { authService, refuseWhenLimited } from './service.ts'

export { dummyPasswordHash, refuseWhenLimited } from './service.ts'

const MINUTE = 60 * 1000

export { AUTH_LIMITS, MAX_SIGN_IN_DELAY_SECONDS }

/** The wait asked of a suspect address after `failures` failures of an account (doubling). */
export function signInDelaySeconds(failures: number): number {
  return delayAfter(failures, AUTH_LIMITS.signInFailuresPerAccount.max)
}

/** Reset-code status questions per client address. */
const RESET_STATUS_PER_IP = { max: 60, windowMs: 15 * MINUTE }

/** What the auth routes take besides the app's context; tests swap them. */
export type AuthRouteOptions = {
  /** The human check; `null` turns it off. Default: hCaptcha when `HCAPTCHA_SECRET` is set. */
  captcha?: CaptchaVerifier | null
  /** Where the counters live. Default: the app's store (memory, or Postgres shared by instances). */
  rateLimitStore?: RateLimitStore
  /** Overrides of {@link AUTH_LIMITS}. */
  limits?: Partial<typeof AUTH_LIMITS>
}

/** A reset page on another site is logged (as a warning) at most once per this many ms. */
export const LOG_FOREIGN_RESET_PAGE_EVERY_MS = 10 * MINUTE

/** The loopback names of one machine: a page on any of them is the same site in development. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]']

/**
 * The origins reset links may point at: PUBLIC_URL's, ALLOWED_ORIGINS, and outside production
 * the loopback aliases of a loopback PUBLIC_URL (`127.0.0.1:3000` for `localhost:3000`).
 */
export function resetLinkOrigins(config: {
  publicUrl: string
  allowedOrigins: string[]
  production: boolean
}): Set<string> {
  const publicUrl = new URL(config.publicUrl)
  const origins = new Set([...config.allowedOrigins, publicUrl.origin])
  if (!config.production && LOOPBACK_HOSTS.includes(publicUrl.hostname)) {
    for (const host of LOOPBACK_HOSTS) {
      const alias = new URL(publicUrl.origin)
      alias.hostname = host
      origins.add(alias.origin)
    }
  }
  return origins
}

/**
 * `/auth/local`, `/auth/forgot-password` and `/auth/reset-password`: argon2id sign-in with a JWT of 8 hours (30 days with Remember me), the
 * captcha when `HCAPTCHA_SECRET` is set, reset links by e-mail without account enumeration,
 * single-use one-hour reset codes stored as hashes, and rate limits answered with 429.
 */
export function authRoutes(ctx: ServerContext, options: AuthRouteOptions = {}) {
  const captcha =
    options.captcha === undefined
      ? captchaVerifierFromEnv(process.env, { production: ctx.config.production, log: ctx.log })
      : options.captcha
  const store = options.rateLimitStore ?? ctx.rateLimitStore
  const limiter = createRateLimiter(store)
  const limits = { ...AUTH_LIMITS, ...options.limits }
  const throttle = createSignInThrottle(store, limits)
  const auth = authService(ctx, throttle, limits.signInFailuresPerAccount.windowMs)
  const clientIp = ctx.clientIp
  const nowMs = () => ctx.now().getTime()
  const allowedOrigins = resetLinkOrigins(ctx.config)
  /** Until when a reset page on another site is refused without a log line (see below). */
  let foreignPageLoggedUntil = 0

  /** The answer of a successful sign-in or reset: the token and who is signed in, never the hash. */
  const sessionFor = (userId: number, remember: boolean) => sessionAnswer(ctx, userId, remember)

  return new Hono<AppEnv>()
    .post(
      '/local',
      operation({
        summary: 'Sign in',
        description:
          'Checks the e-mail and password and answers a session token: 8 hours, 30 days with `remember`. With the captcha on, `recaptchaToken` is required.',
        tag: 'Authentication',
        public: true,
        responses: {
          200: { description: 'Signed in.', json: SessionSchema },
          400: 'Invalid Email or Password (also a refused body or captcha).',
          403: 'The account is deactivated (said only after the right password).',
          429: 'An address that failed on this account waits, doubling, after 5 failures of the account; an address from which 30 accounts failed in 15 minutes waits too, but for accounts that signed in from it before. Failures of other accounts never hold back a right password. `details.retryAfterSeconds` and `Retry-After` say when to try again.',
          503: 'Too many sign-ins are being checked at once; `Retry-After` says when to try again.',
        },
      }),
      jsonBody(SignInPayloadSchema),
      async (c) => {
        const { identifier, password, remember = false, recaptchaToken } = c.req.valid('json')
        const ip = clientIp(c)
        // Per account and address pair: someone else's failures, from this address or
        // any other, never hold back this account's right password; see createSignInThrottle.
        const admission = await throttle.admit(identifier, ip, nowMs())
        refuseWhenLimited(admission.decision)
        if (captcha) {
          if (!recaptchaToken) throw badRequest(AUTH_MESSAGES.captchaRequired)
          if (!(await captcha.verify(recaptchaToken, ip)))
            throw badRequest(AUTH_MESSAGES.captchaInvalid)
        }
        const priority = admission.priority
        // Turned away before any database work when the hashing is full.
        ctx.hashing.admit(priority)
        const userId = await auth.signIn({ identifier, password, remember, ip, priority })
        return c.json(await sessionFor(userId, remember))
      },
    )
    .post(
      '/forgot-password',
      operation({
        summary: 'Ask for a password reset link',
        description:
          'Answers the same for every well-formed e-mail (no account enumeration); only a known user gets the e-mail, and only when `url` is on an allowed origin.',
        tag: 'Authentication',
        public: true,
        responses: {
          200: { description: 'Handled.', json: ForgotPasswordAnswerSchema },
          400: 'The body is not valid, or `url` points to another site (refused before any limit is counted, with the sentence of any refused reset: "Please enter a valid email").',
          429: TOO_MANY,
        },
      }),
      jsonBody(ForgotPasswordPayloadSchema),
      async (c) => {
        const { email, url } = c.req.valid('json')
        const resetPage = new URL(url)
        // Reset links only ever point at this product's own pages. A
        // page elsewhere is refused before any limit is counted or anything is stored. It means
        // PUBLIC_URL or ALLOWED_ORIGINS does not name where the app is served, or someone probing:
        // the operator reads why in a warning at most once per LOG_FOREIGN_RESET_PAGE_EVERY_MS,
        // so that a loop of such calls cannot flood the log.
        if (!allowedOrigins.has(resetPage.origin)) {
          if (nowMs() >= foreignPageLoggedUntil) {
            foreignPageLoggedUntil = nowMs() + LOG_FOREIGN_RESET_PAGE_EVERY_MS
            ctx.log.warn(
              `A reset link was asked for a page at ${resetPage.origin}, which is neither PUBLIC_URL (${new URL(ctx.config.publicUrl).origin}) nor in ALLOWED_ORIGINS: refused. If the app is served there, add it to ALLOWED_ORIGINS (said at most once in ${LOG_FOREIGN_RESET_PAGE_EVERY_MS / MINUTE} minutes)`,
            )
          }
          // The person reads the specification's failure sentence, as for any refused reset.
          throw badRequest(AUTH_MESSAGES.forgotPasswordFailure)
        }
        refuseWhenLimited(
          await limiter.consume(`forgot:ip:${clientIp(c)}`, limits.forgotPasswordPerIp, nowMs()),
        )
        refuseWhenLimited(
          await limiter.consume(`forgot:email:${email}`, limits.forgotPasswordPerEmail, nowMs()),
        )
        const ip = clientIp(c)
        // Everything that depends on whether the address has an account happens after the answer:
        // the answer takes as long for a known address as for an unknown one, and never waits for
        // a mail server. The code and its e-mail are written in one transaction, then sent.
        ctx.outbound.later(() => auth.sendResetLink(email, resetPage, ip))
        // The same answer whether or not the address has an account (no enumeration).
        return c.json({ ok: true } satisfies ForgotPasswordAnswer)
      },
    )
    .post(
      '/reset-code-status',
      operation({
        summary: 'Ask whether a reset link is still good',
        description:
          'Asked by the reset view before it shows the form, so a used or expired link is judged when opened. Answers only `valid`: nothing about the account.',
        tag: 'Authentication',
        public: true,
        responses: {
          200: {
            description: 'Whether the code can still set a password.',
            json: ResetCodeStatusAnswerSchema,
          },
          429: TOO_MANY,
        },
      }),
      jsonBody(ResetCodeStatusPayloadSchema),
      async (c) => {
        const { code } = c.req.valid('json')
        refuseWhenLimited(
          await limiter.consume(`reset-status:ip:${clientIp(c)}`, RESET_STATUS_PER_IP, nowMs()),
        )
        // Valid or not, nothing else: whose link it is or why it died stays on the server.
        return c.json({ valid: await auth.resetCodeIsLive(code) } satisfies ResetCodeStatusAnswer)
      },
    )
    .post(
      '/reset-password',
      operation({
        summary: 'Reset the password',
        description:
          'Sets a new password with the single-use, one-hour code of the e-mailed link, ends every earlier session and signs in.',
        tag: 'Authentication',
        public: true,
        responses: {
          200: { description: 'Password changed and signed in.', json: SessionSchema },
          400: 'Password Reset link is outdated! (also a refused body).',
          403: 'The password was changed, but the account is deactivated: no session.',
          429: TOO_MANY,
        },
      }),
      jsonBody(ResetPasswordPayloadSchema),
      async (c) => {
        const { password, code } = c.req.valid('json')
        refuseWhenLimited(
          await limiter.consume(`reset:ip:${clientIp(c)}`, limits.resetPasswordPerIp, nowMs()),
        )
        const user = await auth.resetPassword(code, password, clientIp(c))
        // A new password lifts a lock that failed guesses put on the account.
        if (user.email) await limiter.reset(`signin:account:${user.email}`)
        return c.json(await sessionFor(user.id, false))
      },
    )
    .post(
      '/change-password',
      operation({
        summary: 'Change the own password',
        description:
          'Needs the current password. The new one follows the reset rules (8 to 256 characters, not a common password, typed twice). Every other session of the user ends; the answer is a fresh session for this one.',
        tag: 'Authentication',
        responses: {
          200: { description: 'The fresh session.', json: SessionSchema },
          400: 'The current password is not correct, or the new one breaks a rule.',
          429: TOO_MANY,
          503: 'Too many passwords are being checked at once; `Retry-After` says when to try again.',
        },
      }),
      requireAuth(ctx),
      anyStaffMember(),
      jsonBody(ChangePasswordPayloadSchema),
      async (c) => {
        const { current_password, password, remember = false } = c.req.valid('json')
        const { id } = c.var.user
        // Guessing the current password from a stolen session is as limited as a sign-in.
        const key = `change-password:user:${id}`
        refuseWhenLimited(await limiter.check(key, limits.signInFailuresPerAccount, nowMs()))
        if (!(await auth.currentPasswordMatches(id, current_password))) {
          await limiter.fail(key, limits.signInFailuresPerAccount, nowMs())
          throw badRequest(SELF_SERVICE_MESSAGES.currentPasswordWrong, {
            issues: [
              { path: 'current_password', message: SELF_SERVICE_MESSAGES.currentPasswordWrong },
            ],
          })
        }
        await limiter.reset(key)
        // Every other session ends; this one continues with the fresh token answered below.
        await auth.changePassword(actorOf(ctx, c), password)
        return c.json(await sessionFor(id, remember))
      },
    )
    .post(
      '/logout',
      operation({
        summary: 'Sign out everywhere',
        description: 'Ends every session token of the user issued until now (all devices).',
        tag: 'Authentication',
        responses: { 200: { description: 'Signed out.', json: OkAnswerSchema } },
      }),
      requireAuth(ctx),
      anyStaffMember(),
      async (c) => {
        // Every token of this user made before now stops working (all devices).
        await auth.signOut(actorOf(ctx, c))
        return c.json({ ok: true as const })
      },
    )
}

/** `GET /users-permissions/init` (auth): whether the signed-in user's practice has an Admin. */
export function usersPermissionsRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().use(requireAuth(ctx)).get(
    '/init',
    operation({
      summary: 'Whether the practice has an Admin',
      description: "Whether the signed-in user's practice has an Admin.",
      tag: 'Personnel',
      responses: { 200: { description: 'The answer.', json: InitPermissionsAnswerSchema } },
    }),
    anyStaffMember(),
    async (c) => {
      const hasAdmin = await practiceHasAdmin(ctx.db, c.var.user.practice_id)
      return c.json({ hasAdmin } satisfies InitPermissionsAnswer)
    },
  )
}

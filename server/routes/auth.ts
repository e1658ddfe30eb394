import { createHash } from 'node:crypto'
import { and, eq, gt, isNull } from 'drizzle-orm'
import { Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import {
  AUTH_MESSAGES,
  type ForgotPasswordAnswer,
  ForgotPasswordPayloadSchema,
  type InitPermissionsAnswer,
  SignInPayloadSchema,
} from '#domain/auth.ts'
import { ResetPasswordPayloadSchema } from '#domain/reset-password.ts'
import type { Session } from '#domain/session.ts'
import { requireAuth, signSession } from '#server/auth/jwt.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { practices, resetCodes, users } from '#server/db/schema.ts'
import { ApiError, badRequest } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { maskEmail } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { type CaptchaVerifier, captchaVerifierFromEnv } from '#server/services/captcha.ts'
import { hashPassword, verifyPassword } from '#server/services/passwords.ts'
import {
  createRateLimiter,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from '#server/services/rate-limit.ts'

const MINUTE = 60 * 1000

/** The limits of the auth calls (DESIGN.md section 8). */
export const AUTH_LIMITS = {
  /** Failed sign-ins per account (the e-mail typed, known or not). */
  signInFailuresPerAccount: { max: 10, windowMs: 15 * MINUTE },
  /** Sign-in attempts per client address. */
  signInPerIp: { max: 30, windowMs: 5 * MINUTE },
  /** Reset e-mails asked for per address typed. */
  forgotPasswordPerEmail: { max: 5, windowMs: 60 * MINUTE },
  /** Forgot-password calls per client address. */
  forgotPasswordPerIp: { max: 30, windowMs: 15 * MINUTE },
  /** Reset attempts per client address. */
  resetPasswordPerIp: { max: 30, windowMs: 15 * MINUTE },
} satisfies Record<string, RateLimitRule>

/** A reset link works for one hour (DESIGN.md section 8). */
export const RESET_CODE_TTL_MS = 60 * MINUTE

/** What the auth routes take besides the app's context; tests swap them. */
export type AuthRouteOptions = {
  /** The human check; `null` turns it off. Default: hCaptcha when `HCAPTCHA_SECRET` is set. */
  captcha?: CaptchaVerifier | null
  /** Where the counters live. Default: the app's store (memory, or Postgres shared by instances). */
  rateLimitStore?: RateLimitStore
  /** Overrides of {@link AUTH_LIMITS}. */
  limits?: Partial<typeof AUTH_LIMITS>
}

/** The SHA-256 of a reset code, hex: only this is stored, so a database leak reveals no live link. */
export function hashResetCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex')
}

// A real argon2id hash of a random password, verified when the e-mail is unknown so that the
// answer takes as long as for a known e-mail with a wrong password. Made once, on first use.
let dummyHash: Promise<string> | undefined
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomToken())
  return dummyHash
}

function refuseWhenLimited(decision: RateLimitDecision): void {
  if (decision.allowed) return
  throw new ApiError(429, API_ERROR_NAMES.rateLimit, AUTH_MESSAGES.tooManyAttempts, {
    retryAfterSeconds: decision.retryAfterSeconds,
  })
}

const sessionColumns = {
  id: users.id,
  email: users.email,
  username: users.username,
  title: users.title,
  first_name: users.first_name,
  last_name: users.last_name,
  image_path: users.image_path,
  position: users.position,
  access_rights: users.access_rights,
  practice_id: users.practice_id,
  practice_name: practices.practice_name,
  practice_image_path: practices.image_path,
}

/**
 * `/auth/local`, `/auth/forgot-password` and `/auth/reset-password` (spec section 7, DESIGN.md
 * sections 4 and 8): argon2id sign-in with a JWT of 8 hours (30 days with Remember me), the
 * captcha when `HCAPTCHA_SECRET` is set, reset links by e-mail without account enumeration,
 * single-use one-hour reset codes stored as hashes, and rate limits answered with 429.
 */
export function authRoutes(ctx: ServerContext, options: AuthRouteOptions = {}) {
  const captcha =
    options.captcha === undefined
      ? captchaVerifierFromEnv(process.env, { production: ctx.config.production, log: ctx.log })
      : options.captcha
  const limiter = createRateLimiter(options.rateLimitStore ?? ctx.rateLimitStore)
  const limits = { ...AUTH_LIMITS, ...options.limits }
  const clientIp = ctx.clientIp
  const nowMs = () => ctx.now().getTime()
  const allowedOrigins = new Set([
    ...ctx.config.allowedOrigins,
    new URL(ctx.config.publicUrl).origin,
  ])

  /** The answer of a successful sign-in or reset: the token and who is signed in, never the hash. */
  async function sessionFor(userId: number, remember: boolean): Promise<Session> {
    const [row] = await ctx.db
      .select(sessionColumns)
      .from(users)
      .innerJoin(practices, eq(practices.id, users.practice_id))
      .where(eq(users.id, userId))
      .limit(1)
    if (!row) throw new Error('signed-in user disappeared')
    const jwt = await signSession(
      { userId: row.id, practiceId: row.practice_id },
      { secret: ctx.config.jwtSecret, remember, now: ctx.now() },
    )
    return {
      jwt,
      user: {
        id: row.id,
        email: row.email,
        ...(row.username ? { username: row.username } : {}),
        title: row.title,
        first_name: row.first_name,
        last_name: row.last_name,
        image_path: row.image_path,
        position: row.position,
        access_rights: row.access_rights === 'Admin' ? 'Admin' : 'Staff',
        practice_id: row.practice_id,
      },
      practice: {
        id: row.practice_id,
        practice_name: row.practice_name,
        image_path: row.practice_image_path,
      },
    }
  }

  return new Hono<AppEnv>()
    .post('/local', jsonBody(SignInPayloadSchema), async (c) => {
      const { identifier, password, remember = false, recaptchaToken } = c.req.valid('json')
      const ip = clientIp(c)
      refuseWhenLimited(await limiter.consume(`signin:ip:${ip}`, limits.signInPerIp, nowMs()))
      if (captcha) {
        if (!recaptchaToken) throw badRequest(AUTH_MESSAGES.captchaRequired)
        if (!(await captcha.verify(recaptchaToken, ip)))
          throw badRequest(AUTH_MESSAGES.captchaInvalid)
      }
      const accountKey = `signin:account:${identifier}`
      refuseWhenLimited(await limiter.check(accountKey, limits.signInFailuresPerAccount, nowMs()))

      const [user] = await ctx.db
        .select({ id: users.id, password_hash: users.password_hash })
        .from(users)
        .where(eq(users.email, identifier))
        .limit(1)
      // Verify against a dummy hash for unknown e-mails: the same work, the same answer.
      const matches = await verifyPassword(
        user?.password_hash ?? (await dummyPasswordHash()),
        password,
      )
      if (!user || !matches) {
        await limiter.fail(accountKey, limits.signInFailuresPerAccount, nowMs())
        await ctx.audit.record({
          action: 'signin.failure',
          userId: user?.id ?? null,
          ip,
          // A known account is named by its id; an unknown address only in masked form.
          details: user
            ? { reason: 'wrong_password' }
            : { reason: 'unknown_email', email: maskEmail(identifier) },
        })
        throw badRequest(AUTH_MESSAGES.invalidCredentials)
      }
      await limiter.reset(accountKey)
      const session = await sessionFor(user.id, remember)
      await ctx.audit.record({
        action: 'signin.success',
        userId: user.id,
        practiceId: session.practice.id,
        ip,
        details: { remember },
      })
      return c.json(session)
    })
    .post('/forgot-password', jsonBody(ForgotPasswordPayloadSchema), async (c) => {
      const { email, url } = c.req.valid('json')
      const resetPage = new URL(url)
      // DESIGN.md section 4 (Fix): reset links only ever point at this product's own pages.
      if (!allowedOrigins.has(resetPage.origin)) {
        throw badRequest('Password reset links can only point to this site.')
      }
      refuseWhenLimited(
        await limiter.consume(`forgot:ip:${clientIp(c)}`, limits.forgotPasswordPerIp, nowMs()),
      )
      refuseWhenLimited(
        await limiter.consume(`forgot:email:${email}`, limits.forgotPasswordPerEmail, nowMs()),
      )
      const [user] = await ctx.db
        .select({ id: users.id, first_name: users.first_name, practice_id: users.practice_id })
        .from(users)
        .where(eq(users.email, email))
        .limit(1)
      await ctx.audit.record({
        action: 'password_reset.requested',
        userId: user?.id ?? null,
        practiceId: user?.practice_id ?? null,
        ip: clientIp(c),
        details: user
          ? { link_origin: resetPage.origin }
          : { email: maskEmail(email), known: false },
      })
      if (user) {
        const code = randomToken(32)
        await ctx.db.insert(resetCodes).values({
          code_hash: hashResetCode(code),
          user_id: user.id,
          expires_at: new Date(nowMs() + RESET_CODE_TTL_MS),
        })
        resetPage.search = ''
        resetPage.hash = ''
        resetPage.searchParams.set('code', code)
        const link = resetPage.toString()
        try {
          await ctx.mail.send({
            to: email,
            subject: 'Reset your Glow Rewards password',
            text: [
              `Hello ${user.first_name},`,
              '',
              'Someone asked to reset the password of your Glow Rewards account. To choose a new password, open this link within one hour:',
              '',
              link,
              '',
              'If it was not you, ignore this e-mail: your password stays as it is.',
            ].join('\n'),
            link,
          })
        } catch (error) {
          // An error answer here would tell that the address has an account: log, answer alike.
          ctx.log.error(`Password reset e-mail to ${maskEmail(email)} could not be sent`, error)
        }
      } else {
        ctx.log.info(`Password reset asked for an unknown address ${maskEmail(email)}`)
      }
      // The same answer whether or not the address has an account (no enumeration).
      return c.json({ ok: true } satisfies ForgotPasswordAnswer)
    })
    .post('/reset-password', jsonBody(ResetPasswordPayloadSchema), async (c) => {
      const { password, code } = c.req.valid('json')
      refuseWhenLimited(
        await limiter.consume(`reset:ip:${clientIp(c)}`, limits.resetPasswordPerIp, nowMs()),
      )
      // Hash first: the slow part stays outside the transaction.
      const passwordHash = await hashPassword(password)
      const now = ctx.now()
      const userId = await ctx.db.transaction(async (tx) => {
        // Claiming the code and checking it in one statement makes it single-use under races.
        const [claimed] = await tx
          .update(resetCodes)
          .set({ used_at: now })
          .where(
            and(
              eq(resetCodes.code_hash, hashResetCode(code)),
              isNull(resetCodes.used_at),
              gt(resetCodes.expires_at, now),
            ),
          )
          .returning({ user_id: resetCodes.user_id })
        if (!claimed) return null
        // Every earlier session of this user ends; so do the user's other open reset links.
        await tx
          .update(users)
          .set({ password_hash: passwordHash, tokens_valid_after: now })
          .where(eq(users.id, claimed.user_id))
        await tx
          .update(resetCodes)
          .set({ used_at: now })
          .where(and(eq(resetCodes.user_id, claimed.user_id), isNull(resetCodes.used_at)))
        return claimed.user_id
      })
      if (userId === null) throw badRequest(AUTH_MESSAGES.resetLinkOutdated)
      const [user] = await ctx.db
        .select({ email: users.email, practice_id: users.practice_id })
        .from(users)
        .where(eq(users.id, userId))
      // A new password lifts a lock that failed guesses put on the account.
      if (user) await limiter.reset(`signin:account:${user.email}`)
      await ctx.audit.record({
        action: 'password_reset.used',
        userId,
        practiceId: user?.practice_id ?? null,
        ip: clientIp(c),
      })
      return c.json(await sessionFor(userId, false))
    })
    .post('/logout', requireAuth(ctx), async (c) => {
      const { id, practice_id } = c.var.user
      // Every token of this user made before now stops working (all devices): the server-side half
      // of signing out, since a JWT cannot be recalled otherwise.
      await ctx.db.update(users).set({ tokens_valid_after: ctx.now() }).where(eq(users.id, id))
      await ctx.audit.record({
        action: 'session.logout',
        userId: id,
        practiceId: practice_id,
        ip: clientIp(c),
      })
      return c.json({ ok: true as const })
    })
}

/** `GET /users-permissions/init` (auth): whether the signed-in user's practice has an Admin. */
export function usersPermissionsRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().use(requireAuth(ctx)).get('/init', async (c) => {
    const [admin] = await ctx.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.practice_id, c.var.user.practice_id), eq(users.access_rights, 'Admin')))
      .limit(1)
    return c.json({ hasAdmin: admin !== undefined } satisfies InitPermissionsAnswer)
  })
}

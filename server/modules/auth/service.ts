import { createHash } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { recordWithin, userEvent } from '#server/audit/audit.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import { createSignInThrottle, type SignInThrottle } from '#server/auth/sign-in-throttle.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { resetCodes, users } from '#server/db/schema.ts'
import { invalid, notAllowed, rejected, tooMany } from '#server/lib/domain-error.ts'
import { maskEmail } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import { type HashingPriority, hashPassword, verifyPassword } from '#server/security/passwords.ts'
import { createRateLimiter, type RateLimitDecision } from '#server/security/rate-limit.ts'
import { AUTH_LIMITS } from './limits.ts'
import {
  liveResetCode,
  passwordHashOf,
  resetAccount,
  resetCodeIsLive,
  signInAccount,
} from './queries.ts'
import { passwordResetEmail } from './reset-email.ts'

const MINUTE = 60 * 1000

/** A reset link works for one hour. */
export const RESET_CODE_TTL_MS = 60 * MINUTE

/** The account's owner is e-mailed (once per window) when its failures reach this count. */
export const OWNER_ALERT_AFTER_FAILURES = 10

/** The SHA-256 of a reset code, hex: only this is stored, so a database leak reveals no live link. */
export function hashResetCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex')
}

// A real argon2id hash of a random password, verified when the e-mail is unknown so that the
// answer takes as long as for a known e-mail with a wrong password. Made once, on first use.
let dummyHash: Promise<string> | undefined
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomToken())
  return dummyHash
}

type AuthContext = Pick<
  ServerContext,
  'db' | 'now' | 'hashing' | 'outbound' | 'audit' | 'log' | 'config'
>

/** What a sign-in is given: the e-mail and password typed, the address, the hashing priority. */
export type SignInAttempt = {
  identifier: string
  password: string
  remember: boolean
  ip: string
  priority: HashingPriority
}

/**
 * The use cases of signing in and out and of passwords: sign-in (counting failures on `throttle`
 * and e-mailing the owner a reset link when they pile up), reset links, resets, changes and
 * sign-out. Each change is audited in its transaction.
 */
export function authService(ctx: AuthContext, throttle: SignInThrottle, failureWindowMs: number) {
  const { db } = ctx
  const nowMs = () => ctx.now().getTime()

  /** A fresh single-use reset code for `user`, stored as its hash in `tx`; answers the link. */
  async function newResetLink(
    tx: Transaction,
    user: { id: number; practice_id: number },
    resetPage: URL,
  ): Promise<string> {
    const code = randomToken(32)
    await tx.insert(resetCodes).values({
      practice_id: user.practice_id,
      code_hash: hashResetCode(code),
      user_id: user.id,
      expires_at: new Date(nowMs() + RESET_CODE_TTL_MS),
    })
    const page = new URL(resetPage)
    page.search = ''
    page.hash = ''
    page.searchParams.set('code', code)
    return page.toString()
  }

  /** Queues a reset link for `user` at `to` in `tx`; answers the link. */
  async function queueResetMail(
    tx: Transaction,
    user: { id: number; first_name: string; practice_id: number },
    to: string,
    resetPage: URL,
    reason: 'asked' | 'failures',
  ) {
    const link = await newResetLink(tx, user, resetPage)
    await ctx.outbound.enqueue(
      tx,
      templateMail(passwordResetEmail, to, { firstName: user.first_name, link, reason }),
    )
  }

  /**
   * Counts a failed sign-in against the account, the address, their pair and the server, and
   * e-mails the owner a reset link the moment the account's failures reach
   * {@link OWNER_ALERT_AFTER_FAILURES}.
   */
  async function countFailure(
    identifier: string,
    ip: string,
    user: { id: number; first_name: string; practice_id: number } | undefined,
  ) {
    const failures = await throttle.failed(identifier, ip, nowMs())
    if (!user || failures !== OWNER_ALERT_AFTER_FAILURES) return
    await db.transaction((tx) =>
      queueResetMail(tx, user, identifier, new URL('/reset', ctx.config.publicUrl), 'failures'),
    )
    ctx.outbound.kick()
    ctx.log.warn(
      `${failures} failed sign-ins to user ${user.id} within ${failureWindowMs / MINUTE} minutes: the owner was e-mailed a reset link`,
    )
  }

  return {
    /**
     * Checks the e-mail and password and answers the user's id. A wrong pair is counted and
     * refused as invalid; only the right password learns that the account is deactivated.
     */
    async signIn(attempt: SignInAttempt): Promise<number> {
      const { identifier, password, ip, priority } = attempt
      const user = await signInAccount(db, identifier)
      // Verify against a dummy hash for unknown e-mails: the same work, the same answer.
      const passwordHash = user?.password_hash ?? (await dummyPasswordHash())
      const matches = await ctx.hashing.run(() => verifyPassword(passwordHash, password), priority)
      if (!user || !matches) {
        await countFailure(identifier, ip, user)
        // A refusal changes nothing to record it with: written on its own, outside a transaction.
        await ctx.audit.record({
          action: 'signin.failure',
          userId: user?.id ?? null,
          ip,
          // A known account is named by its id; an unknown address only in masked form.
          details: user
            ? { reason: 'wrong_password' }
            : { reason: 'unknown_email', email: maskEmail(identifier) },
        })
        throw invalid(AUTH_MESSAGES.invalidCredentials)
      }
      if (user.deactivated_at) throw notAllowed(SELF_SERVICE_MESSAGES.deactivated)
      await db.transaction(async (tx) => {
        const at = ctx.now()
        await tx.update(users).set({ last_sign_in_at: at }).where(eq(users.id, user.id))
        const event = userEvent('signin.success', user, ip, { remember: attempt.remember })
        await recordWithin(tx, event, at)
      })
      await throttle.succeeded(identifier, ip, nowMs())
      return user.id
    },

    /**
     * E-mails a reset link on `resetPage` when `email` has an account: the code, its e-mail and
     * the audit event in one transaction. An unknown address changes nothing; its event is
     * written on its own.
     */
    async sendResetLink(email: string, resetPage: URL, ip: string): Promise<void> {
      const user = await resetAccount(db, email)
      if (!user) {
        await ctx.audit.record({
          action: 'password_reset.requested',
          userId: null,
          practiceId: null,
          ip,
          details: { email: maskEmail(email), known: false },
        })
        return
      }
      await db.transaction(async (tx) => {
        await queueResetMail(tx, user, email, resetPage, 'asked')
        const event = userEvent('password_reset.requested', user, ip, {
          link_origin: resetPage.origin,
        })
        await recordWithin(tx, event, ctx.now())
      })
    },

    /** Whether the reset code can still set a password. */
    resetCodeIsLive: (code: string) =>
      code === '' ? Promise.resolve(false) : resetCodeIsLive(db, hashResetCode(code), ctx.now()),

    /**
     * Sets `password` with the single-use reset `code`, ends every earlier session of the user
     * and their other open reset links; answers the user's id and e-mail. Invalid for a used,
     * expired or unknown code.
     */
    async resetPassword(code: string, password: string, ip: string) {
      // Hash first: the slow part stays outside the transaction.
      const passwordHash = await ctx.hashing.run(() => hashPassword(password))
      const now = ctx.now()
      const user = await db.transaction(async (tx) => {
        // Claiming the code and checking it in one statement makes it single-use under races.
        const [claimed] = await tx
          .update(resetCodes)
          .set({ used_at: now })
          .where(liveResetCode(hashResetCode(code), now))
          .returning({ user_id: resetCodes.user_id })
        if (!claimed) return null
        // Every earlier session of this user ends; so do the user's other open reset links.
        const [changed] = await tx
          .update(users)
          .set({ password_hash: passwordHash, tokens_valid_after: now })
          .where(eq(users.id, claimed.user_id))
          .returning({ id: users.id, email: users.email, practice_id: users.practice_id })
        await tx
          .update(resetCodes)
          .set({ used_at: now })
          .where(and(eq(resetCodes.user_id, claimed.user_id), isNull(resetCodes.used_at)))
        const event = {
          action: 'password_reset.used',
          userId: claimed.user_id,
          practiceId: changed?.practice_id ?? null,
          ip,
        } as const
        await recordWithin(tx, event, now)
        return { id: claimed.user_id, email: changed?.email }
      })
      if (user === null) throw invalid(AUTH_MESSAGES.resetLinkOutdated)
      return user
    },

    /** Whether `password` is the current password of user `id` (trusted hashing priority). */
    async currentPasswordMatches(id: number, password: string): Promise<boolean> {
      ctx.hashing.admit('trusted')
      const stored = await passwordHashOf(db, id)
      return (
        stored !== undefined &&
        (await ctx.hashing.run(() => verifyPassword(stored, password), 'trusted'))
      )
    },

    /** Sets the actor's new password; every other session of theirs ends. */
    async changePassword(actor: Actor, password: string): Promise<void> {
      const passwordHash = await ctx.hashing.run(() => hashPassword(password))
      await db.transaction(async (tx) => {
        const at = ctx.now()
        await tx
          .update(users)
          .set({ password_hash: passwordHash, tokens_valid_after: at })
          .where(eq(users.id, actor.user.id))
        await recordWithin(tx, actorEvent(actor, 'password.changed'), at)
      })
    },

    /**
     * Signs the actor out everywhere: every token of theirs made before now stops working, the
     * server-side half of signing out, since a JWT cannot be recalled otherwise.
     */
    async signOut(actor: Actor): Promise<void> {
      await db.transaction(async (tx) => {
        const at = ctx.now()
        await tx.update(users).set({ tokens_valid_after: at }).where(eq(users.id, actor.user.id))
        await recordWithin(tx, actorEvent(actor, 'session.logout'), at)
      })
    },
  }
}

/** What {@link colleagueAtTheDesk} needs of the server. */
type DeskContext = Pick<ServerContext, 'db' | 'now' | 'hashing' | 'audit' | 'rateLimitStore'>

/** Who vouched at the desk: their id, practice, role and whether they are deactivated. */
export type Colleague = {
  id: number
  practice_id: number
  access_rights: string
  deactivated_at: Date | null
}

/**
 * A colleague typing their e-mail and password at someone else's desk to vouch for a step (a
 * manager approving a visit), counted like a sign-in: the failures per account and per address
 * pair (a colleague's failures at the same desk never refuse this one; the account is locked after
 * 5), the same hashing gate, a dummy hash for unknown e-mails. A wrong pair is counted, audited
 * with `purpose` in the desk's practice and refused with `refusal`; what the colleague may do is
 * the caller's to judge.
 */
export async function colleagueAtTheDesk(
  ctx: DeskContext,
  credentials: { email: string; password: string },
  desk: { practiceId: number; ip: string; purpose: string; refusal: string },
): Promise<Colleague> {
  const { email, password } = credentials
  const { ip } = desk
  const limiter = createRateLimiter(ctx.rateLimitStore)
  const throttle = createSignInThrottle(ctx.rateLimitStore, AUTH_LIMITS)
  const at = ctx.now().getTime()
  refuseWhenLimited((await throttle.admit(email, ip, at)).decision)
  refuseWhenLimited(
    await limiter.check(`signin:account:${email}`, AUTH_LIMITS.signInFailuresPerAccount, at),
  )
  ctx.hashing.admit('trusted')
  const row = await signInAccount(ctx.db, email)
  const hash = row?.password_hash ?? (await dummyPasswordHash())
  const matches = await ctx.hashing.run(() => verifyPassword(hash, password), 'trusted')
  if (!row || !matches) {
    await throttle.failed(email, ip, at)
    // A refusal, not a change: recorded on its own, and a failed write does not fail the answer.
    await ctx.audit.record({
      action: 'signin.failure',
      userId: row?.id ?? null,
      practiceId: desk.practiceId,
      ip,
      details: { reason: 'wrong_password', purpose: desk.purpose },
    })
    throw rejected(desk.refusal)
  }
  return row
}

/** Refuses (429, "Too many attempts") what an auth limit did not allow. */
export function refuseWhenLimited(decision: RateLimitDecision): void {
  if (!decision.allowed) throw tooMany(AUTH_MESSAGES.tooManyAttempts, decision.retryAfterSeconds)
}

import type { SignInLimits } from '#server/auth/sign-in-throttle.ts'
import type { RateLimitRule } from '#server/security/rate-limit.ts'

const MINUTE = 60 * 1000

/**
 * The limits of the auth calls. Sign-in counts failures
 * only, per account, per address and per pair of the two, so that nobody can lock someone else
 * out: a correct password is never held back by someone else's failures (see
 * {@link createSignInThrottle} for the whole design).
 */
export const AUTH_LIMITS = {
  /**
   * Failed sign-ins per account (the e-mail typed, known or not). Beyond `max`, addresses that
   * failed on this account may try it only once per delay that doubles with every failure.
   */
  signInFailuresPerAccount: { max: 5, windowMs: 15 * MINUTE },
  /**
   * Accounts with failed sign-ins from one client address, each counted once however often it
   * failed; beyond it the address gets 429 but for accounts that signed in from it before.
   */
  signInAccountsPerIp: { max: 30, windowMs: 15 * MINUTE },
  /**
   * Failed sign-ins of the whole server: beyond it, addresses with recent failures are refused
   * before any hashing, so a flood from many addresses cannot take the CPU from real sign-ins.
   */
  signInFailuresGlobal: { max: 120, windowMs: MINUTE },
  /** Reset e-mails asked for per address typed. */
  forgotPasswordPerEmail: { max: 5, windowMs: 60 * MINUTE },
  /** Forgot-password calls per client address. */
  forgotPasswordPerIp: { max: 30, windowMs: 15 * MINUTE },
  /** Reset attempts per client address. */
  resetPasswordPerIp: { max: 30, windowMs: 15 * MINUTE },
} satisfies Record<string, RateLimitRule> & SignInLimits

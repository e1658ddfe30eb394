/**
 * The numbers of the wallet's sign-in and sessions (docs/decisions/027-patients-wallet.md,
 * section "Server"). The code and lock numbers the patient reads are the domain's
 * (domain/wallet.ts); the counters' windows are here.
 */
import {
  WALLET_CODE_MINUTES,
  WALLET_LOCK_MINUTES,
  WALLET_MAX_CODE_TRIES,
  WALLET_SESSION_IDLE_MINUTES,
  WALLET_SESSION_MAX_HOURS,
} from '#domain/wallet.ts'
import type { RateLimitRule } from '#server/security/rate-limit.ts'

const MINUTE = 60 * 1000

export const WALLET_LIMITS = {
  /** Codes asked for one contact of one practice (known or not): 5 an hour. */
  codesPerContact: { max: 5, windowMs: 60 * MINUTE },
  /** Codes asked for from one client address, whatever the contacts: 20 in 15 minutes. */
  codesPerIp: { max: 20, windowMs: 15 * MINUTE },
  /**
   * Wrong codes for one contact of one practice (known or not): the 5th locks sign-in for that
   * contact for 15 minutes, and the codes it had stop working.
   */
  wrongCodesPerContact: { max: WALLET_MAX_CODE_TRIES, windowMs: WALLET_LOCK_MINUTES * MINUTE },
  /** Wrong codes from one client address, whatever the contacts: 30 in 15 minutes. */
  wrongCodesPerIp: { max: 30, windowMs: 15 * MINUTE },
} satisfies Record<string, RateLimitRule>

/** How long a code can be used. */
export const CODE_TTL_MS = WALLET_CODE_MINUTES * MINUTE
/** A session ends after this long without a call. */
export const SESSION_IDLE_MS = WALLET_SESSION_IDLE_MINUTES * MINUTE
/** …and this long after sign-in, however active. */
export const SESSION_MAX_MS = WALLET_SESSION_MAX_HOURS * 60 * MINUTE
/** A call renews the session's idle time only when the last renewal is older than this. */
export const SESSION_RENEW_AFTER_MS = MINUTE

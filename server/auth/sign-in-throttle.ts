import type { HashingPriority } from '#server/security/passwords.ts'
import {
  createRateLimiter,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from '#server/security/rate-limit.ts'

/** The limits the sign-in throttle applies (`AUTH_LIMITS` of server/modules/auth/routes.ts). */
export type SignInLimits = {
  /**
   * Failed sign-ins per account (the e-mail typed, known or not). Beyond `max`, addresses that
   * failed on this account may try it only once per delay that doubles with every failure.
   */
  signInFailuresPerAccount: RateLimitRule
  /**
   * Accounts with a failed sign-in from one address (each account counted once however often it
   * failed). Beyond `max` the address may sign in only to accounts that signed in from it before.
   */
  signInAccountsPerIp: RateLimitRule
  /** Failed sign-ins of the whole server; beyond it, addresses with failures wait (see below). */
  signInFailuresGlobal: RateLimitRule
}

/** The longest wait the progressive delay asks for, in seconds. */
export const MAX_SIGN_IN_DELAY_SECONDS = 15 * 60

/** How long a successful sign-in makes its address, and its account there, trusted. */
export const TRUSTED_SIGN_IN_MS = 30 * 24 * 60 * 60 * 1000

/** The wait asked after `failures` failures of an account beyond `freeFailures` (doubling). */
export function signInDelaySeconds(failures: number, freeFailures: number): number {
  const beyond = failures - freeFailures
  if (beyond < 0) return 0
  return Math.min(2 ** beyond, MAX_SIGN_IN_DELAY_SECONDS)
}

/** What {@link SignInThrottle.admit} decided: allowed or not (429), and the hashing priority. */
export type SignInAdmission = { decision: RateLimitDecision; priority: HashingPriority }

/**
 * Sign-in throttling per account and address pair. The rule: a
 * correct password is never held back by someone else's failures. A clinic's staff share one
 * address (a NAT); one person failing thirty times must not lock the others out.
 *
 * - **The pair.** Failures are counted per account, per address and per (account, address).
 *   An address that failed on an account is *suspect for that account*: after
 *   `signInFailuresPerAccount.max` failures of the account, suspect addresses share one try per
 *   delay, doubling (1 s, 2 s, 4 s… up to 15 minutes). A colleague's account from the same address
 *   has no failures of its own, so nothing slows it.
 * - **Spraying from one address** (one password tried on many accounts) is what a per-address
 *   limit is for. It counts the *accounts* that failed from the address, not the failures, so a
 *   person mistyping one password thirty times counts once. Beyond `signInAccountsPerIp.max`
 *   accounts, the address is refused before any hashing, except for accounts that signed in
 *   from it in the last 30 days: the clinic's staff still get in during a spray from their NAT.
 *   A new colleague's first sign-in during such a spray waits for the window to end; that is the
 *   price of stopping the spray.
 * - **A flood from many addresses** (beyond `signInFailuresGlobal`): addresses with recent
 *   failures are refused before hashing, again except accounts that signed in from them before.
 *   An address with recent failures is also slowed on an account with many failures when that
 *   account never signed in from it.
 * - **Hashing order** (passwords.ts): a pair with failures is last in line; then accounts that
 *   signed in from this address before go first, then addresses where someone signed in lately,
 *   then strangers; addresses with failures go after strangers.
 *
 * The counters live in a {@link RateLimitStore}: in memory for one process, in PostgreSQL when
 * several share a database, so every instance sees the same counts.
 */
export function createSignInThrottle(store: RateLimitStore, limits: SignInLimits) {
  const limiter = createRateLimiter(store)
  const keys = (identifier: string, ip: string) => ({
    account: `signin:account:${identifier}`,
    slow: `signin:slow:${identifier}`,
    // A space parts the two: an e-mail address has none, an IP address neither.
    pair: `signin:pair:${identifier} ${ip}`,
    pairTrusted: `signin:pair-trusted:${identifier} ${ip}`,
    address: `signin:ip:${ip}`,
    addressAccounts: `signin:ip-accounts:${ip}`,
    addressTrusted: `signin:trusted:${ip}`,
    global: 'signin:global',
  })
  const refused = (decision: RateLimitDecision): SignInAdmission | null =>
    decision.allowed ? null : { decision, priority: 'suspect' }

  return {
    /**
     * Whether a sign-in to `identifier` from `ip` may be checked now, before any database work or
     * hashing, and at which hashing priority. Counts nothing but the delay's one try.
     */
    async admit(identifier: string, ip: string, at: number): Promise<SignInAdmission> {
      const k = keys(identifier, ip)
      const windowMs = limits.signInAccountsPerIp.windowMs
      const [pairTrusted, pair, address, addressTrusted] = await Promise.all([
        store.get(k.pairTrusted, TRUSTED_SIGN_IN_MS, at),
        store.get(k.pair, limits.signInFailuresPerAccount.windowMs, at),
        store.get(k.address, windowMs, at),
        store.get(k.addressTrusted, TRUSTED_SIGN_IN_MS, at),
      ])
      const trusted = pairTrusted !== null
      const pairSuspect = (pair?.count ?? 0) > 0
      const addressSuspect = (address?.count ?? 0) > 0
      if (!trusted) {
        const spray = refused(
          await limiter.check(k.addressAccounts, limits.signInAccountsPerIp, at),
        )
        if (spray) return spray
        if (addressSuspect) {
          const flood = refused(await limiter.check(k.global, limits.signInFailuresGlobal, at))
          if (flood) return flood
        }
      }
      if (pairSuspect || (addressSuspect && !trusted)) {
        const failures =
          (await store.get(k.account, limits.signInFailuresPerAccount.windowMs, at))?.count ?? 0
        const delay = signInDelaySeconds(failures, limits.signInFailuresPerAccount.max)
        if (delay > 0) {
          // One try per delay for all such addresses together; each window is as long as the
          // delay the failures so far ask for, so the waits double.
          const slowed = refused(
            await limiter.consume(k.slow, { max: 1, windowMs: delay * 1000 }, at),
          )
          if (slowed) return slowed
        }
      }
      const priority: HashingPriority = pairSuspect
        ? 'suspect'
        : trusted
          ? 'trusted'
          : addressSuspect
            ? 'suspect'
            : addressTrusted
              ? 'trusted'
              : 'normal'
      return { decision: { allowed: true }, priority }
    },

    /** Counts a failed sign-in; answers the account's failures in its window, this one included. */
    async failed(identifier: string, ip: string, at: number): Promise<number> {
      const k = keys(identifier, ip)
      const [account, pair] = await Promise.all([
        store.increment(k.account, limits.signInFailuresPerAccount.windowMs, at),
        store.increment(k.pair, limits.signInFailuresPerAccount.windowMs, at),
        store.increment(k.address, limits.signInAccountsPerIp.windowMs, at),
        store.increment(k.global, limits.signInFailuresGlobal.windowMs, at),
      ])
      // The first failure of this account from this address in the window: one more account.
      if (pair.count === 1) {
        await store.increment(k.addressAccounts, limits.signInAccountsPerIp.windowMs, at)
      }
      return account.count
    },

    /** A right password: the account's failures are forgiven, the pair and address trusted. */
    async succeeded(identifier: string, ip: string, at: number): Promise<void> {
      const k = keys(identifier, ip)
      await Promise.all([
        store.reset(k.account),
        store.reset(k.slow),
        store.reset(k.pair),
        store.increment(k.pairTrusted, TRUSTED_SIGN_IN_MS, at),
        store.increment(k.addressTrusted, TRUSTED_SIGN_IN_MS, at),
      ])
    },
  }
}

/** A sign-in throttle as {@link createSignInThrottle} makes it. */
export type SignInThrottle = ReturnType<typeof createSignInThrottle>

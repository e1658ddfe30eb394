/**
 * Why the wallet's sign-in calls failed, as the sign-in statechart tells them apart. The actors
 * (src/wallet/sign-in/sign-in-calls.ts) turn the server's answers into these: a wrong code (401),
 * an expired code (410), a lock after too many wrong codes (429 `locked`, with its wait), and any
 * other failure (no connection, a rate limit, the server's own error) with the sentence to show.
 */

/** What went wrong. */
export type WalletSignInFailure = 'wrong' | 'expired' | 'locked' | 'failed'

/** A refused or failed sign-in call. `message` is what the patient reads. */
export class WalletSignInError extends Error {
  override readonly name = 'WalletSignInError'
  readonly reason: WalletSignInFailure
  /** For a lock: how long it lasts, in seconds from the answer. */
  readonly retryAfterSeconds: number | null
  /** For a lock: when it ends (ISO 8601), worked out when the answer arrived. */
  readonly until: string | null

  constructor(
    reason: WalletSignInFailure,
    message: string,
    lock?: { retryAfterSeconds: number; until: string },
  ) {
    super(message)
    this.reason = reason
    this.retryAfterSeconds = lock?.retryAfterSeconds ?? null
    this.until = lock?.until ?? null
  }
}

/** The failure of `error`: a {@link WalletSignInError}'s reason, else `failed`. */
export function failureOf(error: unknown): WalletSignInFailure {
  return error instanceof WalletSignInError ? error.reason : 'failed'
}

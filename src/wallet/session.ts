/**
 * The patient session of one practice's wallet, kept in this browser's localStorage so that the
 * installed app opens signed in (and offline, on the last data it showed) until the session ends.
 * One entry per practice: a patient of two practices has two wallets.
 */

/** What `POST /api/wallet/{practiceId}/session` answered, as WalletSignIn hands it over. */
export type WalletSession = { token: string; expires_at: string }

const keyOf = (practiceId: number) => `glow.wallet.session.${practiceId}`

/** The stored session of `practiceId`, or null when there is none or it has ended. */
export function readWalletSession(practiceId: number, now = Date.now()): WalletSession | null {
  try {
    const raw = localStorage.getItem(keyOf(practiceId))
    if (!raw) return null
    const parsed = JSON.parse(raw) as Partial<WalletSession>
    if (typeof parsed.token !== 'string' || typeof parsed.expires_at !== 'string') return null
    if (Date.parse(parsed.expires_at) <= now) {
      localStorage.removeItem(keyOf(practiceId))
      return null
    }
    return { token: parsed.token, expires_at: parsed.expires_at }
  } catch {
    return null
  }
}

/** Keeps `session` for `practiceId` (a renewal moves `expires_at`; the token stays). */
export function saveWalletSession(practiceId: number, session: WalletSession): void {
  try {
    localStorage.setItem(keyOf(practiceId), JSON.stringify(session))
  } catch {
    // Private mode without storage: the session lasts as long as the page.
  }
}

/** Forgets the session of `practiceId`. */
export function clearWalletSession(practiceId: number): void {
  try {
    localStorage.removeItem(keyOf(practiceId))
  } catch {
    // Nothing was stored.
  }
}

import type { StoredSignUp } from '#domain/sign-up/progress.ts'
import { SIGN_UP_PROGRESS_KEY } from '#src/lib/storage-keys.ts'

// Storage may be missing or throw (private browsing, blocked storage): then nothing is kept.
function sessionStore(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null
  } catch {
    return null
  }
}

/**
 * The stored progress as it was written, or null. Not validated here: the machine's restore
 * input parses it and ignores anything that is not progress of this version.
 */
export function readSignUpProgress(): unknown {
  try {
    const text = sessionStore()?.getItem(SIGN_UP_PROGRESS_KEY)
    return text ? (JSON.parse(text) as unknown) : null
  } catch {
    return null
  }
}

/**
 * Keeps the wizard's progress for a reload, or removes it (null). The value comes from the
 * machine's `selectPersistable`, which has no place for passwords, the card number, the CVV or
 * the code.
 */
export function writeSignUpProgress(progress: StoredSignUp | null): void {
  try {
    const store = sessionStore()
    if (!store) return
    if (progress === null) store.removeItem(SIGN_UP_PROGRESS_KEY)
    else store.setItem(SIGN_UP_PROGRESS_KEY, JSON.stringify(progress))
  } catch {
    // Not kept (storage full or blocked): a reload starts over, nothing else breaks.
  }
}

/** Forgets the wizard's progress (after a successful sign-up). */
export function clearSignUpProgress(): void {
  writeSignUpProgress(null)
}

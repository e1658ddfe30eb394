import { LAST_RESET_CODE_KEY, PERSONNEL_SIGNED_UP_KEY } from '#src/lib/storage-keys.ts'

// Storage may be missing or throw (private browsing, blocked storage): then nothing is remembered.
function storage(name: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    return globalThis[name] ?? null
  } catch {
    return null
  }
}

/** The code of the last password reset this browser submitted, or null. */
export function readLastResetCode(): string | null {
  try {
    return storage('localStorage')?.getItem(LAST_RESET_CODE_KEY) ?? null
  } catch {
    return null
  }
}

/** Remembers a submitted reset code, so opening the same link again is outdated at once. */
export function writeLastResetCode(code: string): void {
  try {
    storage('localStorage')?.setItem(LAST_RESET_CODE_KEY, code)
  } catch {
    // Not remembered: the server still refuses the used code.
  }
}

/**
 * Once after the personnel registration set `sessionStorage.personnelSignedUp`: the e-mail the
 * person registered with (empty when the flag carries none), else null. The flag is removed, so
 * the success banner and the pre-filled e-mail show a single time.
 */
export function consumePersonnelSignedUp(): string | null {
  try {
    const session = storage('sessionStorage')
    const flag = session?.getItem(PERSONNEL_SIGNED_UP_KEY) ?? null
    if (flag !== null) session?.removeItem(PERSONNEL_SIGNED_UP_KEY)
    return flag === null ? null : flag.includes('@') ? flag : ''
  } catch {
    return null
  }
}

import { PERSONNEL_SIGNED_UP_KEY } from '#domain/auth.ts'

/**
 * Sets the one-time flag (sessionStorage `personnelSignedUp`) that makes the sign-in screen show
 * 'You are successfully Signed Up! Use your new credentials to sign into the system.' once.
 */
export function markPersonnelSignedUp(): void {
  try {
    globalThis.sessionStorage?.setItem(PERSONNEL_SIGNED_UP_KEY, '1')
  } catch {
    // Storage blocked: the person still lands on Sign In, without the banner.
  }
}

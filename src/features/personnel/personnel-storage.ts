import { PERSONNEL_SIGNED_UP_KEY } from '#src/lib/storage-keys.ts'

/**
 * Sets the one-time flag (sessionStorage `personnelSignedUp`) that makes the sign-in screen show
 * 'You are successfully Signed Up! Use your new credentials to sign into the system.' once, with
 * the e-mail the person registered with filled in.
 */
export function markPersonnelSignedUp(email: string): void {
  try {
    globalThis.sessionStorage?.setItem(PERSONNEL_SIGNED_UP_KEY, email)
  } catch {
    // Storage blocked: the person still lands on Sign In, without the banner.
  }
}

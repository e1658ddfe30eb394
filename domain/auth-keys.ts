/**
 * The sessionStorage key the personnel registration sets (to any value) when an invited person
 * finished signing up; the sign-in screen removes it and shows `AUTH_MESSAGES.personnelSignedUp`
 * once.
 */
export const PERSONNEL_SIGNED_UP_KEY = 'personnelSignedUp'

/** The localStorage key of the last reset code this browser submitted (DESIGN.md section 7). */
export const LAST_RESET_CODE_KEY = 'lastResetCode'

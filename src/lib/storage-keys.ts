/** The keys under which the app keeps things in the browser's storage. */

/**
 * The sessionStorage key the personnel registration sets (to any value) when an invited person
 * finished signing up; the sign-in screen removes it and shows `AUTH_MESSAGES.personnelSignedUp`
 * once.
 */
export const PERSONNEL_SIGNED_UP_KEY = 'personnelSignedUp'

/** The localStorage key of the last reset code this browser submitted. */
export const LAST_RESET_CODE_KEY = 'lastResetCode'

/** The sessionStorage key of the sign-up wizard's progress. */
export const SIGN_UP_PROGRESS_KEY = 'signUpProgress'

/**
 * The sessionStorage key of the checkout in progress: its idempotency key and lines, so that a
 * reload neither loses them nor records the visit twice.
 */
export const CHECKOUT_PROGRESS_KEY = 'checkoutProgress'

/**
 * What the sign-up wizard tells people outside the field rules: availability,
 * phone verification, promo and the messages the machine shows on its own.
 */
export const SIGN_UP_MESSAGES = {
  /** The availability check found the e-mail or phone in use. */
  taken: 'Phone or email is already taken',
  /** Any other failure of a wizard call that has no message of its own. */
  generic: 'Ooops, something going wrong please try again',
  codeSent: 'Confirmation Code is sent',
  incorrectCode: 'Incorrect Confirmation Code entered',
  /** A promo code that is neither public nor known to the server. */
  invalidPromo: 'Invalid promo code',
  /**
   * After a reload the passwords are gone (they are never stored in the browser); submitting
   * then asks for them again on the step that lost them.
   */
  reenterPasswords: 'Please enter your password again to finish signing up',
  /** Step 1 cannot be left before the phone is verified. */
  verifyPhoneFirst: 'Please verify your phone number first',
} as const

/** The texts of the server's availability answer that mean "already in use". */
export const AVAILABILITY_TAKEN_TEXTS = [
  'Phone number is already taken.',
  'Email is already taken.',
] as const

/**
 * The alert for a failed availability check: 'Phone or email is already taken' when the
 * server's text says the phone or e-mail is in use, otherwise the generic failure text.
 */
export function availabilityFailureMessage(text: string): string {
  return AVAILABILITY_TAKEN_TEXTS.some((taken) => text.includes(taken))
    ? SIGN_UP_MESSAGES.taken
    : SIGN_UP_MESSAGES.generic
}

/** The field a failed availability check names, or null for another failure. */
export type TakenField = 'email' | 'phone'

/**
 * Which field the server said is taken: 'Email is already taken.' marks the e-mail, 'Phone number
 * is already taken.' the phone; the alert keeps the spec's one text for both.
 */
export function takenFieldOf(text: string): TakenField | null {
  if (text.includes('Email is already taken.')) return 'email'
  if (text.includes('Phone number is already taken.')) return 'phone'
  return null
}

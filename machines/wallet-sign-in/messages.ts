/**
 * The words of the wallet's sign-in, plain and friendly: the patient reads them on a phone, often
 * in a waiting room. Field validation uses the contract's sentences (domain/wallet.ts).
 */
export const WALLET_SIGN_IN_TEXT = {
  codeSentTo: (contact: string) => `We sent a 6-digit code to ${contact}.`,
  resendIn: (seconds: number) => `Send a new code in ${seconds} s`,
  codeWrong: 'That code is not right. Check it and try again.',
  codeExpired: 'This code has expired. We can send you a new one.',
  /** `time` is the lock's end as the patient's clock shows it: "18:42". */
  locked: (time: string) => `Too many tries. Try again after ${time}.`,
  /** A lock without an end we can show (should not happen: the server always says). */
  lockedNoTime: 'Too many tries. Please try again later.',
  offline: 'We could not reach your practice. Check your connection and try again.',
  failed: 'Something went wrong on our side. Please try again.',
} as const

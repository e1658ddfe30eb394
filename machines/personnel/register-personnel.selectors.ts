import type { SnapshotFrom } from 'xstate'
import type { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import {
  type PhoneVerificationSnapshot,
  selectBusy,
  selectCanSendCode,
  selectCanVerifyCode,
  selectCodeInputEnabled,
  selectPhoneLocked,
} from '#machines/phone-verification/phone-verification.selectors.ts'

/** A snapshot of the personnel registration. */
export type RegisterPersonnelSnapshot = SnapshotFrom<typeof registerPersonnelMachine>

/**
 * The disabled states of the registration screen, plus the phone lock and
 * the busy buttons. They come from the machines: the child's `can` for Get Code and Verify Code,
 * the parent's state for Submit.
 */
export type RegistrationFlags = {
  /** Get Code: off until the form is valid, during the 30 s resend wait, and once verified. */
  disableGetCodeButton: boolean
  /** Verify Code (the spec's "send code" button): off until a code was sent and 6 are typed. */
  disableSendCodeButton: boolean
  /** The confirmation code input: off until a code was sent, and again once verified. */
  disablePhoneCodeInput: boolean
  /** Submit: off until the phone is verified, and while the account is being created. */
  disableSignUpButton: boolean
  /** The phone number input: locked while a code call runs and once the phone is verified. */
  lockPhoneInput: boolean
  /** Which button shows a loading state. */
  busy: 'sending' | 'verifying' | 'submitting' | null
}

/** The phone verification child while the phone is being verified, else undefined. */
export function selectPhoneVerificationRef(snapshot: RegisterPersonnelSnapshot) {
  return snapshot.children.phoneVerification
}

/** Whether the invitation is still loading. */
export function selectIsLoading(snapshot: RegisterPersonnelSnapshot): boolean {
  return snapshot.matches('loading')
}

/** Whether the phone is verified (the parent moved on from the child). */
export function selectIsPhoneVerified(snapshot: RegisterPersonnelSnapshot): boolean {
  return snapshot.context.verifiedPhone !== null
}

/** The flags of the screen for a registration snapshot and its child's snapshot (if running). */
export function selectRegistrationFlags(
  snapshot: RegisterPersonnelSnapshot,
  phone: PhoneVerificationSnapshot | undefined,
): RegistrationFlags {
  const submitting = snapshot.matches('submitting')
  const verifying = phone !== undefined && snapshot.matches({ editing: 'verifyingPhone' })
  return {
    disableGetCodeButton: !(verifying && selectCanSendCode(phone)),
    disableSendCodeButton: !(verifying && selectCanVerifyCode(phone)),
    disablePhoneCodeInput: !(verifying && selectCodeInputEnabled(phone)),
    disableSignUpButton: !snapshot.matches({ editing: 'phoneVerified' }),
    lockPhoneInput: verifying ? selectPhoneLocked(phone) : !snapshot.matches('loading'),
    busy: submitting ? 'submitting' : verifying ? selectBusy(phone) : null,
  }
}

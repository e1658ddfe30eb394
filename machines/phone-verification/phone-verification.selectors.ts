import type { SnapshotFrom } from 'xstate'
import type { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'

/** A snapshot of the phone verification. */
export type PhoneVerificationSnapshot = SnapshotFrom<typeof phoneVerificationMachine>

/** Get Code is enabled: the fields are valid and no code is pending its 30 s wait. */
export function selectCanSendCode(snapshot: PhoneVerificationSnapshot): boolean {
  return snapshot.can({ type: 'code.send' })
}

/** Send/Verify Code is enabled: a code was sent and the typed code is valid. */
export function selectCanVerifyCode(snapshot: PhoneVerificationSnapshot): boolean {
  return snapshot.can({ type: 'code.verify' })
}

/** The confirmation code input is enabled only while a sent code awaits verification. */
export function selectCodeInputEnabled(snapshot: PhoneVerificationSnapshot): boolean {
  return snapshot.matches('codeSent')
}

/** The phone (and e-mail) inputs lock once the phone is verified, and while a call runs. */
export function selectPhoneLocked(snapshot: PhoneVerificationSnapshot): boolean {
  return (
    snapshot.matches('verified') || snapshot.matches('sendingCode') || snapshot.matches('verifying')
  )
}

/** Whether the phone is verified. */
export function selectIsVerified(snapshot: PhoneVerificationSnapshot): boolean {
  return snapshot.matches('verified')
}

/** Which button shows a loading state. */
export function selectBusy(snapshot: PhoneVerificationSnapshot): 'sending' | 'verifying' | null {
  if (snapshot.matches('sendingCode')) return 'sending'
  if (snapshot.matches('verifying')) return 'verifying'
  return null
}

/** Whole seconds until a resend is possible (0 when it is), for the view's countdown. */
export function selectResendSecondsLeft(snapshot: PhoneVerificationSnapshot, now: number): number {
  if (!snapshot.matches({ codeSent: 'coolingDown' })) return 0
  const at = snapshot.context.resendAvailableAt ?? now
  return Math.max(0, Math.ceil((at - now) / 1000))
}

/** 'Confirmation Code is sent' after a send, else null. */
export function selectNotice(snapshot: PhoneVerificationSnapshot): string | null {
  return snapshot.context.notice
}

/** The last failure's text, else null. */
export function selectError(snapshot: PhoneVerificationSnapshot): string | null {
  return snapshot.context.error
}

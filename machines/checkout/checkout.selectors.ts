import type { SnapshotFrom } from 'xstate'
import type { OfferValuation } from '#domain/visits.ts'
import {
  bankProblem,
  type checkoutMachine,
  chosenValuation,
  deskCents,
  dueCents,
  needsConsent,
  pointsProblem,
  redemptionProblem,
  spendablePoints,
} from '#machines/checkout/checkout.machine.ts'

/** A snapshot of the checkout. */
export type CheckoutSnapshot = SnapshotFrom<typeof checkoutMachine>

/** The steps as the Stepper names them. */
export const CHECKOUT_STEPS = ['Patient', 'Items', 'Points', 'Consent', 'Confirm', 'Done'] as const

/** The active step of the Stepper (0-based). */
export function selectStepIndex(snapshot: CheckoutSnapshot): number {
  if (snapshot.matches('choosingPatient')) return 0
  if (snapshot.matches('editingItems') || snapshot.matches('previewing')) return 1
  if (snapshot.matches('reviewing') || snapshot.matches('approval')) return 2
  if (snapshot.matches('consent')) return 3
  if (snapshot.matches('confirming') || snapshot.matches('submitting')) return 4
  return 5
}

/** Which button shows a loading state. */
export function selectBusy(
  snapshot: CheckoutSnapshot,
): 'preview' | 'approve' | 'code' | 'check' | 'record' | 'undo' | null {
  if (snapshot.matches('previewing')) return 'preview'
  if (snapshot.matches({ approval: 'requesting' })) return 'approve'
  if (snapshot.matches({ consent: { code: 'sending' } })) return 'code'
  if (snapshot.matches({ consent: { code: 'checking' } })) return 'check'
  if (snapshot.matches('submitting')) return 'record'
  if (snapshot.matches({ done: 'undoing' })) return 'undo'
  return null
}

/** Whole seconds until another code may be sent (0 when it may). */
export function selectResendSecondsLeft(snapshot: CheckoutSnapshot, now: number): number {
  if (!snapshot.matches({ consent: { code: { sent: 'coolingDown' } } })) return 0
  const at = snapshot.context.resendAvailableAt ?? now
  return Math.max(0, Math.ceil((at - now) / 1000))
}

/** Whether the chosen redemption asks for the patient's code or an override. */
export function selectNeedsConsent(snapshot: CheckoutSnapshot): boolean {
  return needsConsent(snapshot.context)
}

/** Why the chosen redemption cannot be recorded, or null. */
export function selectRedemptionProblem(snapshot: CheckoutSnapshot): string | null {
  return redemptionProblem(snapshot.context)
}

/** Why the chosen points or offer cannot be redeemed (next to the points field), or null. */
export function selectPointsProblem(snapshot: CheckoutSnapshot): string | null {
  return pointsProblem(snapshot.context)
}

/** Why the bank cannot pay the amount typed (next to the bank field), or null. */
export function selectBankProblem(snapshot: CheckoutSnapshot): string | null {
  return bankProblem(snapshot.context)
}

/** What the visit comes to before the bank: the lines less the member's perks and the offer. */
export function selectDueCents(snapshot: CheckoutSnapshot): number {
  return dueCents(snapshot.context)
}

/** What is paid at the desk once the bank paid its part. */
export function selectDeskCents(snapshot: CheckoutSnapshot): number {
  return deskCents(snapshot.context)
}

/** The most points the visit can redeem. */
export function selectSpendable(snapshot: CheckoutSnapshot): number {
  return spendablePoints(snapshot.context.preview, chosenValuation(snapshot.context))
}

/** What the chosen offer does to the lines, as the server worked it out, or null. */
export function selectValuation(snapshot: CheckoutSnapshot): OfferValuation | null {
  return chosenValuation(snapshot.context)
}

/**
 * The visit's total in cents: what the patient pays, the lines as entered less the chosen
 * offer's discount.
 */
export function selectTotalCents(snapshot: CheckoutSnapshot): number {
  const lines = snapshot.context.items.reduce(
    (sum, item) => sum + item.quantity * item.price_cents,
    0,
  )
  return lines - (chosenValuation(snapshot.context)?.discount_cents ?? 0)
}

/** The points the visit earns: after the chosen offer's discount, else the preview's. */
export function selectEarnedPoints(snapshot: CheckoutSnapshot): number {
  return chosenValuation(snapshot.context)?.points ?? snapshot.context.preview?.points ?? 0
}

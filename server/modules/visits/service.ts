/**
 * The front desk's checkout: previews and records visits, redeems points or a claimed
 * promotion with the patient's SMS code or a manager's override, and undoes a visit within 10
 * minutes. Every posting goes through the ledger (server/modules/ledger/service.ts) inside ONE
 * transaction that holds the patient's row lock, so concurrent checkouts run one after the other
 * and cannot overspend, and a replayed idempotency key answers what was written and writes
 * nothing new.
 */
import type { AuthUser, ServerContext } from '#server/context.ts'
import { createPricing } from './pricing.ts'
import { createRecording } from './recording.ts'
import { createRedeeming } from './redeeming.ts'
import { createRedemptionCodes } from './redemption-codes.ts'
import { type CheckoutDeps, refuseOtherPatient } from './shared.ts'
import { createUndo } from './undo.ts'

export type Checkout = ReturnType<typeof createCheckout>

/**
 * The checkout over its use cases, one file each: pricing (pricing.ts), recording a visit
 * (recording.ts), redeeming (redeeming.ts), redemption codes (redemption-codes.ts), undo
 * (undo.ts) and the points statement (statements.ts).
 */
export function createCheckout(deps: CheckoutDeps) {
  const pricing = createPricing(deps)
  const codes = createRedemptionCodes(deps)
  const redeeming = createRedeeming(deps, codes)
  const recording = createRecording(deps, { pricing, codes, redeeming })
  const { undo } = createUndo(deps)
  return {
    preview: pricing.preview,
    approve: pricing.approve,
    record: recording.record,
    checkCodeFor: codes.checkCodeFor,
    read: recording.read,
    undo,
    redeem: redeeming.redeem,
    sendCode: codes.sendCode,
    /** Refuses (404) an id that is not a patient of the user's practice. */
    refuseOtherPatient: (user: AuthUser, patientId: number) =>
      refuseOtherPatient(deps.db, user.practice_id, patientId),
  }
}

/** The checkout over the server's database, clock, outbound queue and link settings. */
export function serverCheckout(ctx: Pick<ServerContext, 'db' | 'now' | 'outbound' | 'config'>) {
  return createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
    secret: ctx.config.jwtSecret,
  })
}

import { fromPromise } from 'xstate'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  VisitAnswer,
  VisitInput,
  VisitPreviewInput,
} from '#domain/visits.ts'
import type {
  CheckoutPreview,
  ClaimedOffer,
  SentCode,
  UndoAnswer,
} from '#machines/checkout/checkout.machine.ts'
import { listPatientPromotions } from '#src/api/promotions.ts'
import {
  approveVisit,
  checkRedemptionCode,
  previewVisit,
  recordVisit,
  sendRedemptionCode,
  undoVisit,
} from '#src/api/visits.ts'
import { withUserMessage } from '#src/lib/http.ts'

/** The offers the patient claimed and has not redeemed yet, with the terms they claimed. */
async function claimedOffers(patientId: number): Promise<ClaimedOffer[]> {
  const promotions = await listPatientPromotions(patientId)
  return promotions.flatMap((p) =>
    p.status === 'claimed' && p.promotion
      ? [
          {
            promotion_id: p.promotion_id,
            title: p.title ?? p.promotion.title,
            bonus: p.bonus_points ?? p.promotion.points,
            cost: p.points_cost ?? p.promotion.points_cost,
          },
        ]
      : [],
  )
}

/** The real effects of the checkout machine: the visit, code and promotion calls of the API. */
export const checkoutActors = {
  previewVisit: fromPromise<CheckoutPreview, VisitPreviewInput>(({ input }) =>
    withUserMessage(async () => {
      const [preview, offers] = await Promise.all([
        previewVisit(input),
        claimedOffers(input.patient_id),
      ])
      return { preview, offers }
    }),
  ),
  // The code is for one amount: points, an offer and `bank_cents` together, as the SMS names it.
  sendCode: fromPromise<{ authyId: string }, { patientId: number } & SentCode>(
    ({ input: { patientId, ...amount } }) =>
      withUserMessage(() => sendRedemptionCode(patientId, amount)),
  ),
  checkCode: fromPromise<
    { valid: true },
    { patientId: number; authyId: string; code: string } & SentCode
  >(({ input: { patientId, ...check } }) =>
    withUserMessage(() => checkRedemptionCode(patientId, check)),
  ),
  approveVisit: fromPromise<ApprovalAnswer, ApprovalRequest>(({ input }) =>
    withUserMessage(() => approveVisit(input)),
  ),
  recordVisit: fromPromise<VisitAnswer, VisitInput>(({ input }) =>
    withUserMessage(() => recordVisit(input)),
  ),
  undoVisit: fromPromise<UndoAnswer, { visitId: number }>(({ input }) =>
    withUserMessage(() => undoVisit(input.visitId)),
  ),
}

import * as v from 'valibot'
import {
  type PatientPromotion,
  PatientPromotionSchema,
  type PromotionActionInput,
} from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** `PUT /promotions/claimed/{promo}`: a patient claims a promotion. */
export async function claimPromotion(input: PromotionActionInput): Promise<PatientPromotion> {
  return v.parse(
    PatientPromotionSchema,
    await http.put(`promotions/claimed/${encodeURIComponent(input.promo)}`, { json: input }).json(),
  )
}

/** `PUT /promotions/redeemed/{promo}`: a claimed promotion is redeemed at the practice. */
export async function redeemPromotion(input: PromotionActionInput): Promise<PatientPromotion> {
  return v.parse(
    PatientPromotionSchema,
    await http
      .put(`promotions/redeemed/${encodeURIComponent(input.promo)}`, { json: input })
      .json(),
  )
}

/** `GET /patients/promotions/{id}`: the promotions a patient has claimed or redeemed. */
export async function listPatientPromotions(patientId: number): Promise<PatientPromotion[]> {
  return v.parse(
    v.array(PatientPromotionSchema),
    await http.get(`patients/promotions/${patientId}`).json(),
  )
}

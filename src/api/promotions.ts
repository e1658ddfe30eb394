import * as v from 'valibot'
import { type PatientPromotion, PatientPromotionSchema } from '#domain/practice-data.ts'
import {
  type ClaimStatus,
  type OfferClaimsPage,
  OfferClaimsPageSchema,
  type PromotionDetail,
  PromotionDetailSchema,
  type PromotionPage,
  PromotionPageSchema,
  type PromotionRedemption,
  PromotionRedemptionSchema,
  type PromotionStatus,
} from '#domain/promotions.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** How many offers one page of the list holds. */
export const PROMOTION_PAGE_SIZE = 20

/** `GET /promotions?status=&page=`: a page of the practice's offers with their funnels. */
export async function listPromotions(query: {
  status?: PromotionStatus | undefined
  page?: number | undefined
  pageSize?: number | undefined
}): Promise<PromotionPage> {
  const searchParams: Record<string, string | number> = {
    page: query.page ?? 1,
    pageSize: query.pageSize ?? PROMOTION_PAGE_SIZE,
  }
  if (query.status) searchParams.status = query.status
  return parseAnswer(
    'GET /api/promotions',
    PromotionPageSchema,
    await http.get('promotions', { searchParams }).json(),
  )
}

/** `GET /promotions/{id}`: the offer, its status and its funnel. */
export async function getPromotion(id: number): Promise<PromotionDetail> {
  return parseAnswer(
    'GET /api/promotions/:id',
    PromotionDetailSchema,
    await http.get(`promotions/${id}`).json(),
  )
}

/** How many claims one page of an offer's list holds. */
export const OFFER_CLAIMS_PAGE_SIZE = 10

/** `GET /promotions/{id}/claims?status=&page=`: who claimed the offer, newest first. */
export async function listOfferClaims(
  id: number,
  query: { status?: ClaimStatus | undefined; page?: number | undefined } = {},
): Promise<OfferClaimsPage> {
  const searchParams: Record<string, string | number> = {
    page: query.page ?? 1,
    pageSize: OFFER_CLAIMS_PAGE_SIZE,
  }
  if (query.status) searchParams.status = query.status
  return parseAnswer(
    'GET /api/promotions/:id/claims',
    OfferClaimsPageSchema,
    await http.get(`promotions/${id}/claims`, { searchParams }).json(),
  )
}

/** `POST /promotions`: a new draft. */
export async function createPromotion(
  input: Body<'POST /api/promotions'>,
): Promise<PromotionDetail> {
  return parseAnswer(
    'POST /api/promotions',
    PromotionDetailSchema,
    await http.post('promotions', { json: input }).json(),
  )
}

/** `PUT /promotions/{id}`: changes an offer. */
export async function updatePromotion(
  id: number,
  change: Body<'PUT /api/promotions/:id'>,
): Promise<PromotionDetail> {
  return parseAnswer(
    'PUT /api/promotions/:id',
    PromotionDetailSchema,
    await http.put(`promotions/${id}`, { json: change }).json(),
  )
}

/** `POST /promotions/{id}/publish|end|duplicate|archive`: answers the offer (a duplicate: the copy). */
export async function promotionAction(
  id: number,
  action: 'publish' | 'end' | 'duplicate' | 'archive',
): Promise<PromotionDetail> {
  return parseAnswer(
    `POST /api/promotions/:id/${action}` as const,
    PromotionDetailSchema,
    await http.post(`promotions/${id}/${action}`).json(),
  )
}

/** `PUT /promotions/claimed/{promo}`: staff claim an offer for a patient (with its code, if any). */
export async function claimPromotion(
  input: Body<'PUT /api/promotions/claimed/:promo'> & { promo: number },
): Promise<PatientPromotion> {
  return parseAnswer(
    'PUT /api/promotions/claimed/:promo',
    PatientPromotionSchema,
    await http.put(`promotions/claimed/${input.promo}`, { json: input }).json(),
  )
}

/** `PUT /promotions/redeemed/{promo}`: a claimed offer is redeemed at the practice. */
export async function redeemPromotion(
  input: Body<'PUT /api/promotions/redeemed/:promo'> & { promo: number },
): Promise<PromotionRedemption> {
  return parseAnswer(
    'PUT /api/promotions/redeemed/:promo',
    PromotionRedemptionSchema,
    await http.put(`promotions/redeemed/${input.promo}`, { json: input }).json(),
  )
}

/** `GET /patients/promotions/{id}`: the offers a patient has claimed, latest first. */
export async function listPatientPromotions(patientId: number): Promise<PatientPromotion[]> {
  return parseAnswer(
    'GET /api/patients/promotions/:id',
    v.array(PatientPromotionSchema),
    await http.get(`patients/promotions/${patientId}`).json(),
  )
}

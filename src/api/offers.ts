import * as v from 'valibot'
import { type OfferAnswer, OfferAnswerSchema } from '#domain/offers.ts'
import { http } from '#src/lib/http.ts'

/** `GET /offers/{token}` (no sign-in needed): the offer a patient's personal link names. */
export async function getOffer(token: string): Promise<OfferAnswer> {
  return v.parse(OfferAnswerSchema, await http.get(`offers/${encodeURIComponent(token)}`).json())
}

/** `POST /offers/{token}/claim` (no sign-in needed): claims it for the link's patient. */
export async function claimOffer(token: string): Promise<OfferAnswer> {
  return v.parse(
    OfferAnswerSchema,
    await http.post(`offers/${encodeURIComponent(token)}/claim`).json(),
  )
}

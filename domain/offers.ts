import * as v from 'valibot'
import { pointsText } from '#domain/points.ts'
import { PromotionDetailSchema } from '#domain/promotions.ts'

/**
 * The public offer page: what `GET /offers/{token}` answers about
 * the offer a patient's personal link names, and what claiming it answers. Nothing in it names
 * the patient beyond the first name the e-mail already greets them with.
 */

/** Where the offer stands for this patient. */
export const OFFER_STATES = ['open', 'claimed', 'redeemed', 'ended', 'unavailable'] as const
export type OfferState = (typeof OFFER_STATES)[number]

export const OfferAnswerSchema = v.object({
  practice: v.object({
    name: v.string(),
    /** The practice's logo (a path the server serves), or null. */
    logo: v.nullable(v.string()),
    /** The practice's patient wallet (`/wallet/{practiceId}`), where the patient sees all their points. */
    wallet_url: v.optional(v.string()),
  }),
  patient: v.object({ first_name: v.string() }),
  offer: v.object({
    title: v.string(),
    description: v.string(),
    points_cost: v.number(),
    bonus_points: v.number(),
    ends_at: v.nullable(v.string()),
    /** Its value in words, "$50.00 off HydraFacial", or null. */
    value: v.optional(v.nullable(v.string())),
  }),
  state: v.picklist(OFFER_STATES),
  /** Why a claim is not possible now (ended, limit reached…); null when it is, or was claimed. */
  reason: v.nullable(v.string()),
})
export type OfferAnswer = v.InferOutput<typeof OfferAnswerSchema>

const endDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })

/**
 * The offer's terms line: what it costs, what it gives, when it ends ("Costs 200 points · earns
 * 50 points · ends December 1, 2026"). The end date is read in UTC, as in the offer's e-mail.
 */
export function offerTerms(offer: OfferAnswer['offer']): string {
  return [
    ...(offer.value ? [offer.value] : []),
    offer.points_cost > 0 ? `Costs ${pointsText(offer.points_cost)}` : 'Free',
    ...(offer.bonus_points > 0 ? [`earns ${pointsText(offer.bonus_points)}`] : []),
    ...(offer.ends_at ? [`ends ${endDate.format(new Date(offer.ends_at))}`] : []),
  ].join(' · ')
}

/** The sentences of the offer page and its calls. */
export const OFFER_MESSAGES = {
  notFound: 'This offer link is not valid.',
  claimed: 'You claimed this offer. Show this e-mail at your next visit.',
  redeemed: 'You already used this offer. Thank you!',
  ended: 'This offer has ended.',
  unavailable: 'This offer is no longer available.',
  tooMany: 'Too many requests. Please wait a minute and try again.',
} as const

/** `POST /promotions/{id}/send`: the offer with its funnel, and how many e-mails this send queued. */
export const PromotionSendAnswerSchema = v.object({
  ...PromotionDetailSchema.entries,
  /** Patients this send reached: subscribed, not archived, with an e-mail, not sent it before. */
  queued: v.number(),
})
export type PromotionSendAnswer = v.InferOutput<typeof PromotionSendAnswerSchema>

/** What "Send to patients" refuses. */
export const SEND_MESSAGES = {
  notLive: 'Only a live offer can be sent to patients.',
} as const

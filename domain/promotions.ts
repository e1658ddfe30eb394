/**
 * Promotions: the offer's life and its funnel. An offer is
 * a Draft until published; published, it is Scheduled before its start, Live until its end (or
 * until a manager ends it), then Ended; Archived puts it away. A patient claims a live offer, then
 * redeems it at the desk; a claim keeps the offer's terms as they were when it was claimed.
 */
import * as v from 'valibot'
import { IdempotencyKeySchema, LedgerEntrySchema } from '#domain/ledger.ts'
import { MAX_DISCOUNT_CENTS, OFFER_VALUE_MESSAGES } from '#domain/offer-value.ts'
import { pageSchema } from '#domain/paging.ts'
import { formatPoints } from '#domain/points.ts'
import { MAX_STORED_INTEGER, PatientPromotionSchema } from '#domain/practice-data.ts'
import {
  CLAIM_STATUSES,
  type ClaimStatus,
  PROMOTION_STATUSES,
  type PromotionStatus,
} from '#domain/promotion-statuses.ts'
import { OverrideInputSchema, VerificationInputSchema } from '#domain/visits.ts'

export {
  CLAIM_STATUSES,
  type ClaimStatus,
  PROMOTION_STATUS_LABELS,
  PROMOTION_STATUSES,
  type PromotionStatus,
} from '#domain/promotion-statuses.ts'

/** What the status of an offer is read from. */
export type PromotionLifecycle = {
  starts_at: Date | string | null
  ends_at: Date | string | null
  published_at: Date | string | null
  ended_at: Date | string | null
  archived_at: Date | string | null
}

const time = (value: Date | string | null): number | null =>
  value === null ? null : new Date(value).getTime()

/** The offer's status at `now`: the actions first (archive, publish, end), then the dates. */
export function promotionStatus(row: PromotionLifecycle, now: Date): PromotionStatus {
  if (row.archived_at !== null) return 'archived'
  if (row.published_at === null) return 'draft'
  const at = now.getTime()
  const ends = time(row.ends_at)
  if (row.ended_at !== null || (ends !== null && ends <= at)) return 'ended'
  const starts = time(row.starts_at)
  if (starts !== null && starts > at) return 'scheduled'
  return 'live'
}

/** The longest title and description an offer keeps. */
export const PROMOTION_TITLE_MAX_LENGTH = 120
export const PROMOTION_DESCRIPTION_MAX_LENGTH = 2000
/** The most points an offer costs or gives. */
export const PROMOTION_POINTS_MAX = 1_000_000
/** A claim code: 3 to 20 letters, digits or dashes, kept in capitals. */
export const PROMOTION_CODE_PATTERN = /^[A-Z0-9-]{3,20}$/

/** What managers and the front desk read about offers, word for word. */
export const PROMOTION_MESSAGES = {
  notFound: 'Promotion not found.',
  title: 'Give the offer a title.',
  titleLength: `A title can be at most ${PROMOTION_TITLE_MAX_LENGTH} characters.`,
  descriptionLength: `A description can be at most ${PROMOTION_DESCRIPTION_MAX_LENGTH} characters.`,
  pointsCost: `The points cost must be a whole number from 0 to ${formatPoints(PROMOTION_POINTS_MAX)}.`,
  bonusPoints: `The bonus points must be a whole number from 0 to ${formatPoints(PROMOTION_POINTS_MAX)}.`,
  date: 'Choose a date and time.',
  endAfterStart: 'The end must be after the start.',
  maxRedemptions: 'The total limit must be a whole number of at least 1, or empty for no limit.',
  perPatientLimit: 'The limit per patient must be a whole number of at least 1.',
  code: 'A code is 3 to 20 letters, digits or dashes.',
  codeNeeded: 'This offer needs its code: ask the patient for it.',
  codeWrong: 'This code does not match the offer.',
  // Transitions
  publishNotDraft: 'Only a draft can be published.',
  publishEnded: 'The end of this offer has passed: change its end before publishing it.',
  endNotRunning: 'Only a scheduled or live offer can be ended.',
  archiveRunning: 'End this offer before archiving it.',
  archived: 'This offer is archived: duplicate it to offer it again.',
  editEnded: 'An ended offer cannot be changed: duplicate it to offer it again.',
  editLive:
    "A live offer's points cost, bonus points, start and code cannot change, so that what patients claimed stays true: end it and duplicate it instead.",
  deleteClaimed: 'A claimed offer cannot be deleted: archive it so that its history stays.',
  deleteNotDraft: 'Only a draft can be deleted.',
  // Claims
  notLive: {
    draft: 'This offer is not published yet.',
    scheduled: 'This offer has not started yet.',
    ended: 'This offer has ended.',
    archived: 'This offer has ended.',
  },
  soldOut: 'This offer has reached its limit: every one of them has been claimed.',
  perPatient: (limit: number) =>
    limit === 1
      ? 'This patient has already claimed this offer.'
      : `This patient has already claimed this offer ${limit} times, its limit per patient.`,
  patientNotFound: 'Patient not found.',
  patientArchived: 'This patient is archived: restore them before claiming an offer.',
  notClaimed: 'The patient has not claimed this offer.',
  redeemed: 'The patient has already redeemed this offer.',
  expired: 'This claim has expired: the offer ended before it was redeemed.',
} as const

const title = v.pipe(
  v.string(PROMOTION_MESSAGES.title),
  v.trim(),
  v.minLength(1, PROMOTION_MESSAGES.title),
  v.maxLength(PROMOTION_TITLE_MAX_LENGTH, PROMOTION_MESSAGES.titleLength),
)
const description = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(PROMOTION_DESCRIPTION_MAX_LENGTH, PROMOTION_MESSAGES.descriptionLength),
)
const pointsField = (message: string) =>
  v.pipe(
    v.number(message),
    v.integer(message),
    v.minValue(0, message),
    v.maxValue(PROMOTION_POINTS_MAX, message),
  )
const instantField = v.nullable(
  v.pipe(v.string(PROMOTION_MESSAGES.date), v.isoTimestamp(PROMOTION_MESSAGES.date)),
)
const maxRedemptions = v.nullable(
  v.pipe(
    v.number(PROMOTION_MESSAGES.maxRedemptions),
    v.integer(PROMOTION_MESSAGES.maxRedemptions),
    v.minValue(1, PROMOTION_MESSAGES.maxRedemptions),
    v.maxValue(MAX_STORED_INTEGER, PROMOTION_MESSAGES.maxRedemptions),
  ),
)
const perPatientLimit = v.pipe(
  v.number(PROMOTION_MESSAGES.perPatientLimit),
  v.integer(PROMOTION_MESSAGES.perPatientLimit),
  v.minValue(1, PROMOTION_MESSAGES.perPatientLimit),
  v.maxValue(1000, PROMOTION_MESSAGES.perPatientLimit),
)
/** A code as typed: spaces trimmed, capitals kept; empty means every patient may claim. */
export const normalizeCode = (code: string | null | undefined): string | null => {
  const trimmed = (code ?? '').trim().toUpperCase()
  return trimmed === '' ? null : trimmed
}
/** A code as typed: spaces trimmed, in capitals; empty means every patient may claim (null). */
const codeField = v.nullable(
  v.pipe(
    v.string(PROMOTION_MESSAGES.code),
    v.trim(),
    v.toUpperCase(),
    v.check((code) => code === '' || PROMOTION_CODE_PATTERN.test(code), PROMOTION_MESSAGES.code),
  ),
)

/** An offer's value: an amount or a percentage off, and the procedures it is for. */
const discountCents = v.nullable(
  v.pipe(
    v.number(OFFER_VALUE_MESSAGES.discountCents),
    v.integer(OFFER_VALUE_MESSAGES.discountCents),
    v.minValue(1, OFFER_VALUE_MESSAGES.discountCents),
    v.maxValue(MAX_DISCOUNT_CENTS, OFFER_VALUE_MESSAGES.discountCents),
  ),
)
const discountPercent = v.nullable(
  v.pipe(
    v.number(OFFER_VALUE_MESSAGES.discountPercent),
    v.integer(OFFER_VALUE_MESSAGES.discountPercent),
    v.minValue(1, OFFER_VALUE_MESSAGES.discountPercent),
    v.maxValue(100, OFFER_VALUE_MESSAGES.discountPercent),
  ),
)
const procedureIds = v.pipe(
  v.array(
    v.pipe(
      v.number(OFFER_VALUE_MESSAGES.procedureIds),
      v.integer(OFFER_VALUE_MESSAGES.procedureIds),
      v.minValue(1, OFFER_VALUE_MESSAGES.procedureIds),
      v.maxValue(MAX_STORED_INTEGER, OFFER_VALUE_MESSAGES.procedureIds),
    ),
    OFFER_VALUE_MESSAGES.procedureIds,
  ),
  v.maxLength(100, OFFER_VALUE_MESSAGES.procedureIdsLength),
  v.transform((ids) => [...new Set(ids)]),
)

/** Whether at most one of the two discounts is given. */
export function oneDiscount(p: {
  discount_cents?: number | null | undefined
  discount_percent?: number | null | undefined
}): boolean {
  return (p.discount_cents ?? null) === null || (p.discount_percent ?? null) === null
}

/** Whether an end comes after a start (either missing: yes). */
export function endsAfterStart(
  startsAt: string | null | undefined,
  endsAt: string | null | undefined,
): boolean {
  if (!startsAt || !endsAt) return true
  return new Date(endsAt).getTime() > new Date(startsAt).getTime()
}

const promotionFields = {
  title,
  description: v.optional(description, ''),
  points_cost: v.optional(pointsField(PROMOTION_MESSAGES.pointsCost), 0),
  bonus_points: v.optional(pointsField(PROMOTION_MESSAGES.bonusPoints), 0),
  starts_at: v.optional(instantField, null),
  ends_at: v.optional(instantField, null),
  max_redemptions: v.optional(maxRedemptions, null),
  per_patient_limit: v.optional(perPatientLimit, 1),
  code: v.optional(codeField, null),
  discount_cents: v.optional(discountCents, null),
  discount_percent: v.optional(discountPercent, null),
  procedure_ids: v.optional(procedureIds, []),
}

/** `POST /promotions`: a new draft. */
export const PromotionInputSchema = v.pipe(
  v.strictObject(promotionFields),
  v.forward(
    v.check((p) => endsAfterStart(p.starts_at, p.ends_at), PROMOTION_MESSAGES.endAfterStart),
    ['ends_at'],
  ),
  v.forward(
    v.check((p) => oneDiscount(p), OFFER_VALUE_MESSAGES.discountBoth),
    ['discount_percent'],
  ),
)
export type PromotionInput = v.InferOutput<typeof PromotionInputSchema>

/** `PUT /promotions/{id}`: the fields to change (a live offer: text, end and limits only). */
export const PromotionChangeSchema = v.pipe(
  v.strictObject({
    title: v.optional(title),
    description: v.optional(description),
    points_cost: v.optional(pointsField(PROMOTION_MESSAGES.pointsCost)),
    bonus_points: v.optional(pointsField(PROMOTION_MESSAGES.bonusPoints)),
    starts_at: v.optional(instantField),
    ends_at: v.optional(instantField),
    max_redemptions: v.optional(maxRedemptions),
    per_patient_limit: v.optional(perPatientLimit),
    code: v.optional(codeField),
    discount_cents: v.optional(discountCents),
    discount_percent: v.optional(discountPercent),
    procedure_ids: v.optional(procedureIds),
  }),
  v.forward(
    v.check((p) => endsAfterStart(p.starts_at, p.ends_at), PROMOTION_MESSAGES.endAfterStart),
    ['ends_at'],
  ),
  v.forward(
    v.check((p) => oneDiscount(p), OFFER_VALUE_MESSAGES.discountBoth),
    ['discount_percent'],
  ),
)
export type PromotionChange = v.InferOutput<typeof PromotionChangeSchema>

/** The fields a live offer may still change. */
export const LIVE_EDITABLE_FIELDS = [
  'title',
  'description',
  'ends_at',
  'max_redemptions',
  'per_patient_limit',
] as const

/** The funnel of an offer: sent, claimed, redeemed, expired; the rate and the visits' revenue. */
export const PromotionFunnelSchema = v.object({
  sent: v.number(),
  claimed: v.number(),
  redeemed: v.number(),
  expired: v.number(),
  /** redeemed / claimed, 0 to 1 (0 when nothing was claimed). */
  redemption_rate: v.number(),
  /**
   * The totals of the visits where it was redeemed, in cents. Money: only for a Manager or an
   * Admin (`reports.money`); absent for Staff.
   */
  revenue_cents: v.optional(v.number()),
})
export type PromotionFunnel = v.InferOutput<typeof PromotionFunnelSchema>

/**
 * An offer as a member may read it: without the money of its funnel unless their role may see
 * money (Staff never see revenue).
 */
export function withoutMoney<T extends { funnel: PromotionFunnel }>(offer: T, money: boolean): T {
  if (money) return offer
  const { revenue_cents: _revenue, ...funnel } = offer.funnel
  return { ...offer, funnel }
}

/** An empty funnel. */
export const EMPTY_FUNNEL: PromotionFunnel = {
  sent: 0,
  claimed: 0,
  redeemed: 0,
  expired: 0,
  redemption_rate: 0,
  revenue_cents: 0,
}

/** An offer as the API answers it, with its status and funnel. */
export const PromotionDetailSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  title: v.string(),
  description: v.string(),
  points_cost: v.number(),
  bonus_points: v.number(),
  /** The spec's name for `bonus_points`. */
  points: v.number(),
  starts_at: v.nullable(v.string()),
  ends_at: v.nullable(v.string()),
  max_redemptions: v.nullable(v.number()),
  per_patient_limit: v.number(),
  code: v.nullable(v.string()),
  /** The amount the offer takes off a visit, once, in cents, or null. */
  discount_cents: v.nullable(v.number()),
  /** The percentage it takes off each matching line, or null. */
  discount_percent: v.nullable(v.number()),
  /** The procedures its discount applies to (empty: any procedure). */
  procedure_ids: v.array(v.number()),
  status: v.picklist(PROMOTION_STATUSES),
  published_at: v.nullable(v.string()),
  ended_at: v.nullable(v.string()),
  archived_at: v.nullable(v.string()),
  created_at: v.string(),
  funnel: PromotionFunnelSchema,
})
export type PromotionDetail = v.InferOutput<typeof PromotionDetailSchema>

/** A page of offers. */
export const PromotionPageSchema = pageSchema(PromotionDetailSchema)
export type PromotionPage = v.InferOutput<typeof PromotionPageSchema>

const wholeNumber = (label: string, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, `${label} must be a whole number.`),
    v.transform(Number),
    v.minValue(1, `${label} must be at least 1.`),
    v.maxValue(max, `${label} can be at most ${max.toLocaleString('en-US')}.`),
  )

/** `GET /promotions?status=&page=&pageSize=`. */
export const PromotionListQuerySchema = v.object({
  status: v.optional(
    v.picklist(PROMOTION_STATUSES, 'status must be draft, scheduled, live, ended or archived.'),
  ),
  page: v.optional(wholeNumber('page', 100_000), '1'),
  pageSize: v.optional(wholeNumber('pageSize', 100), '25'),
})
export type PromotionListQuery = v.InferOutput<typeof PromotionListQuerySchema>

/** A patient's claim of an offer, with the offer's terms as they were when it was claimed. */
export const PromotionClaimSchema = v.object({
  id: v.number(),
  patient_id: v.number(),
  promotion_id: v.number(),
  status: v.picklist(CLAIM_STATUSES),
  title: v.string(),
  points_cost: v.number(),
  bonus_points: v.number(),
  ends_at: v.nullable(v.string()),
  claimed_at: v.nullable(v.string()),
  redeemed_at: v.nullable(v.string()),
  expired_at: v.nullable(v.string()),
})
export type PromotionClaim = v.InferOutput<typeof PromotionClaimSchema>

/** `GET /promotions/{id}/claims?status=&page=&pageSize=`: one status of claim, or all. */
export const OfferClaimsQuerySchema = v.object({
  status: v.optional(v.picklist(CLAIM_STATUSES, 'Choose claimed, redeemed or expired.')),
  page: v.optional(wholeNumber('page', 100_000), '1'),
  pageSize: v.optional(wholeNumber('pageSize', 100), '25'),
})
export type OfferClaimsQuery = v.InferOutput<typeof OfferClaimsQuerySchema>

/** Who claimed an offer: the patient by name, and where their claim stands. */
export const OfferClaimSchema = v.object({
  id: v.number(),
  patient_id: v.number(),
  patient_name: v.string(),
  /** The patient's record was archived after the claim (the claim still counts). */
  patient_archived: v.boolean(),
  status: v.picklist(CLAIM_STATUSES),
  claimed_at: v.nullable(v.string()),
  redeemed_at: v.nullable(v.string()),
  /** When an open claim lapses (the offer's end); null when the offer runs without end. */
  ends_at: v.nullable(v.string()),
})
export type OfferClaim = v.InferOutput<typeof OfferClaimSchema>

/** A page of an offer's claims, newest first, and how many there are in all. */
export const OfferClaimsPageSchema = pageSchema(OfferClaimSchema)
export type OfferClaimsPage = v.InferOutput<typeof OfferClaimsPageSchema>

/** A claim's status at `now`: an open claim whose end has passed has expired. */
export function claimStatus(
  claim: { status: string; ends_at: Date | string | null },
  now: Date,
): ClaimStatus {
  if (claim.status === 'redeemed') return 'redeemed'
  if (claim.status === 'expired') return 'expired'
  const ends = time(claim.ends_at)
  return ends !== null && ends <= now.getTime() ? 'expired' : 'claimed'
}

const PatientId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_STORED_INTEGER))
const Promo = v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/))])

/** Body of `PUT /promotions/claimed/{promo}`: the patient, and the code of a code-only offer. */
export const PromotionClaimInputSchema = v.object({
  promo: v.optional(Promo),
  patient_id: PatientId,
  code: v.optional(v.pipe(v.string(), v.maxLength(40, PROMOTION_MESSAGES.code))),
})
export type PromotionClaimInput = v.InferOutput<typeof PromotionClaimInputSchema>

/**
 * Body of `PUT /promotions/redeemed/{promo}`: the patient, the idempotency key, and the consent a
 * redemption above the code threshold needs (as `POST /patients/{id}/redemptions`).
 */
export const PromotionRedeemInputSchema = v.object({
  promo: v.optional(Promo),
  patient_id: PatientId,
  idempotencyKey: v.optional(IdempotencyKeySchema),
  verification: v.optional(VerificationInputSchema),
  override: v.optional(OverrideInputSchema),
})
export type PromotionRedeemInput = v.InferOutput<typeof PromotionRedeemInputSchema>

/**
 * `PUT /promotions/redeemed/{promo}` answers: the claim, now redeemed, and the ledger entries the
 * redemption wrote (the points cost, the bonus; null for an offer with neither) and the balance.
 */
export const PromotionRedemptionSchema = v.object({
  ...PatientPromotionSchema.entries,
  entry: v.nullable(LedgerEntrySchema),
  bonus: v.nullable(LedgerEntrySchema),
  balance: v.nullable(v.number()),
})
export type PromotionRedemption = v.InferOutput<typeof PromotionRedemptionSchema>

/**
 * Possible duplicates and merging two patients (docs/decisions/016-merging-patients.md).
 * Two active patients of a practice who share a phone (stored in one form, E.164) or an e-mail
 * (compared without case) are a possible duplicate; a Manager or an Admin merges one into the
 * other: every row of the merged patient moves to the kept one, the ledger with every entry, and
 * the merged record stays archived with a link to the kept one.
 */
import * as v from 'valibot'
import { IdempotencyKeySchema } from '#domain/ledger.ts'
import { pageSchema } from '#domain/paging.ts'
import { PatientSchema } from '#domain/practice-data.ts'

/** The sentences of the merge's refusals. */
export const MERGE_MESSAGES = {
  samePatient: 'A patient cannot be merged into themselves: choose another patient.',
  notFound: 'No patient of your practice has this id.',
  archived: (name: string) => `${name} is archived: restore them before merging.`,
  alreadyMerged: (name: string) => `${name} was already merged into another patient.`,
  keyReused: 'This idempotency key was used for another merge.',
  /** A visit, redemption or adjustment for a patient that was merged meanwhile. */
  mergedPatient: 'This patient was merged into another record: use that record instead.',
  restoreMerged:
    'A merged patient cannot be restored: their records are on the patient they were merged into.',
  twoMemberships:
    'Both patients have a membership that runs: cancel one of them before merging (a patient holds one membership at a time).',
} as const

/** What a merge moves, counted by kind; `other` counts the rest (allocations, codes, reminders…). */
export const MergeCountsSchema = v.object({
  ledger_entries: v.number(),
  visits: v.number(),
  appointments: v.number(),
  /** Offers the patient claimed or redeemed (`patient_promotions`). */
  claims: v.number(),
  /** Offers sent to the patient by e-mail (`promotion_sends`). */
  offers_sent: v.number(),
  other: v.number(),
})
export type MergeCounts = v.InferOutput<typeof MergeCountsSchema>

/** The contact fields a merge fills on the kept patient from the merged one, only where empty. */
export const MERGE_FILLED_FIELDS = ['email', 'phone', 'birth_date'] as const
export type MergeFilledField = (typeof MERGE_FILLED_FIELDS)[number]

/** `GET /patients/{id}/merge/{mergedId}`: what merging `merged` into `kept` would do. */
export const MergePreviewSchema = v.object({
  kept: PatientSchema,
  merged: PatientSchema,
  moves: MergeCountsSchema,
  /** The kept patient's balance after the merge: the sum of both ledgers. */
  balance: v.number(),
  /** The fields the kept patient gets from the merged one (empty on the kept one). */
  fills: v.array(v.picklist(MERGE_FILLED_FIELDS)),
  /** The kept patient's consents after the merge (a refusal on either record wins). */
  email_subscription: v.boolean(),
  sms_subscription: v.boolean(),
})
export type MergePreview = v.InferOutput<typeof MergePreviewSchema>

/** Body of `POST /patients/{id}/merge/{mergedId}`. */
export const MergeInputSchema = v.object({
  idempotencyKey: v.optional(IdempotencyKeySchema),
})
export type MergeInput = v.InferOutput<typeof MergeInputSchema>

/** What a merge answers: the kept patient as it is now, the merged one, and what moved. */
export const MergeAnswerSchema = v.object({
  id: v.number(),
  kept: PatientSchema,
  merged: PatientSchema,
  moved: MergeCountsSchema,
  created_at: v.string(),
  /** True when this merge had already been done (same pair or same key): nothing moved again. */
  replayed: v.boolean(),
})
export type MergeAnswer = v.InferOutput<typeof MergeAnswerSchema>

/** One patient of a possible-duplicate pair, as the review list shows them. */
export const DuplicatePatientSchema = v.object({
  id: v.number(),
  first_name: v.string(),
  last_name: v.string(),
  email: v.nullable(v.string()),
  phone: v.nullable(v.string()),
  points: v.number(),
  created_at: v.string(),
})
export type DuplicatePatient = v.InferOutput<typeof DuplicatePatientSchema>

/** Why two patients are a possible duplicate. */
export const DUPLICATE_REASONS = ['phone', 'email'] as const

/** A pair of active patients of the practice who share a phone or an e-mail. */
export const DuplicatePairSchema = v.object({
  first: DuplicatePatientSchema,
  second: DuplicatePatientSchema,
  reasons: v.array(v.picklist(DUPLICATE_REASONS)),
})
export type DuplicatePair = v.InferOutput<typeof DuplicatePairSchema>

/** `GET /patients/duplicates`: a page of pairs, computed when asked (always current). */
export const DuplicatePageSchema = pageSchema(DuplicatePairSchema)
export type DuplicatePage = v.InferOutput<typeof DuplicatePageSchema>

/** The query of `GET /patients/duplicates`. */
export const DuplicateQuerySchema = v.object({
  page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, 'page must be a whole number.'),
      v.transform(Number),
      v.minValue(1, 'page must be at least 1.'),
    ),
    '1',
  ),
  pageSize: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'pageSize must be a whole number.'),
      v.transform(Number),
      v.minValue(1, 'pageSize must be at least 1.'),
      v.maxValue(100, 'pageSize can be at most 100.'),
    ),
    '25',
  ),
})

/** The sum of what a merge moves, for "Nothing else to move". */
export function movedTotal(counts: MergeCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0)
}

/** The header that may carry a merge's idempotency key instead of the body's `idempotencyKey`. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key'

/**
 * The points ledger's vocabulary and rules: what an entry is, the texts of
 * its refusals, and the programme rules a practice sets. The server enforces them; the app shows
 * them in the same words.
 */
import * as v from 'valibot'
import { pageEntries } from '#domain/paging.ts'
import { formatPoints, pointsText, signedPoints } from '#domain/points.ts'

/** What a ledger entry records. Credits (`earn`, `bonus`, positive `adjust`) are lots that expire. */
export const LEDGER_KINDS = ['earn', 'bonus', 'adjust', 'redeem', 'expire', 'reverse'] as const
export type LedgerKind = (typeof LEDGER_KINDS)[number]

/** What caused an entry. */
export const LEDGER_SOURCES = [
  'visit',
  'appointment',
  'promotion',
  'manual',
  'expiry',
  'reversal',
  'import',
  'joining',
  'nextech',
  'membership',
] as const
export type LedgerSource = (typeof LEDGER_SOURCES)[number]

/** The refusals of the ledger, in the words the desk reads them. */
export const LEDGER_MESSAGES = {
  notEnoughPoints: (balance: number) =>
    `Not enough points: the balance is ${formatPoints(balance)}.`,
  alreadySpent: 'These points were already redeemed: reverse the redemption first.',
  alreadyExpired: 'These points have already expired and cannot be reversed.',
  alreadyReversed: 'This entry has already been reversed.',
  notReversible: 'Expiries and reversals cannot be reversed.',
  reasonRequired: 'Please give a reason.',
  keyReused: 'This request was already used for a different change. Please try again.',
  zeroPoints: 'Please enter a number of points other than 0.',
  patientNotFound: 'Patient not found.',
  entryNotFound: 'Ledger entry not found.',
} as const

/** The largest number of points one entry may move: far above any real visit, far below int32. */
export const MAX_ENTRY_POINTS = 10_000_000

/** The programme rules of a practice (Settings, Admin). */
export type ProgrammeRules = {
  /** What one point is worth, in cents (10: 100 points = $10). */
  point_value_cents: number
  /** Points per dollar spent, for items without their own points. */
  points_per_dollar: number
  /** Points a new patient gets once. */
  joining_bonus: number
  /**
   * Points a patient gets once for each patient they referred, when that patient's first bill
   * earns (Nextech's `referring-patient`); 0 = none.
   */
  referral_bonus: number
  /** Months until earned points lapse; 0 = never. */
  expiry_months: number
  /** A redemption above this many points needs the patient's code; 0 = always ask. */
  redemption_code_threshold: number
  /** The most points one line of a visit earns without a manager's approval. */
  max_points_per_line: number
}

/** The programme rules a new practice starts with, until its Manager changes them in Settings. */
export const DEFAULT_PROGRAMME_RULES: ProgrammeRules = {
  point_value_cents: 10,
  points_per_dollar: 1,
  joining_bonus: 0,
  referral_bonus: 0,
  expiry_months: 12,
  redemption_code_threshold: 0,
  max_points_per_line: 5000,
}

const wholeNumber = (max: number, label: string) =>
  v.pipe(
    v.number(`${label} must be a number.`),
    v.integer(`${label} must be a whole number.`),
    v.minValue(0, `${label} cannot be negative.`),
    v.maxValue(max, `${label} can be at most ${max}.`),
  )

/** The programme rules as an Admin sends them. */
export const ProgrammeRulesSchema = v.object({
  point_value_cents: v.pipe(
    wholeNumber(10_000, 'Point value'),
    v.minValue(1, 'Point value must be at least 1 cent.'),
  ),
  points_per_dollar: wholeNumber(1_000, 'Points per dollar'),
  joining_bonus: wholeNumber(100_000, 'Joining bonus'),
  referral_bonus: wholeNumber(100_000, 'Referral bonus'),
  expiry_months: wholeNumber(120, 'Expiry'),
  redemption_code_threshold: wholeNumber(MAX_ENTRY_POINTS, 'Code threshold'),
  max_points_per_line: v.pipe(
    wholeNumber(MAX_ENTRY_POINTS, 'Points ceiling per line'),
    v.minValue(1, 'Points ceiling per line must be at least 1.'),
  ),
})

/**
 * The programme rules as a client sends them: the referral bonus, added after the others, may be
 * left out (it then stays as it is).
 */
export const ProgrammeRulesInputSchema = v.object({
  ...ProgrammeRulesSchema.entries,
  referral_bonus: v.optional(ProgrammeRulesSchema.entries.referral_bonus),
})

export type ProgrammeRulesInput = v.InferOutput<typeof ProgrammeRulesInputSchema>

/** The day credits posted at `at` lapse under `expiryMonths` (null: never). Calendar months, UTC. */
export function expiryDate(at: Date, expiryMonths: number): Date | null {
  if (expiryMonths <= 0) return null
  const date = new Date(at.getTime())
  const day = date.getUTCDate()
  date.setUTCDate(1)
  date.setUTCMonth(date.getUTCMonth() + expiryMonths)
  // 31 January + 1 month is the last day of February, not 3 March.
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()
  date.setUTCDate(Math.min(day, lastDay))
  return date
}

/** Points an item earns: its own points per unit, else its price (cents) × points per dollar. */
export function pointsForItem(
  item: { points: number | null; price: number },
  quantity: number,
  rules: Pick<ProgrammeRules, 'points_per_dollar'>,
): number {
  const perUnit = item.points ?? Math.floor((item.price / 100) * rules.points_per_dollar)
  return perUnit * quantity
}

/** A balance's worth in cents. */
export function pointsValueCents(points: number, rules: Pick<ProgrammeRules, 'point_value_cents'>) {
  return points * rules.point_value_cents
}

const Reason = v.pipe(
  v.string('Please give a reason.'),
  v.trim(),
  v.minLength(1, 'Please give a reason.'),
  v.maxLength(500, 'The reason can be at most 500 characters.'),
)

/** A key the client makes once per change, so a retry or a double click never posts twice. */
export const IdempotencyKeySchema = v.pipe(
  v.string(),
  v.regex(/^[\w:.-]{8,100}$/, 'The idempotency key must be 8 to 100 letters, digits or -_:.'),
)

/** `POST /patients/{id}/adjustments`: a manual change, + or -, with a reason. */
export const AdjustmentInputSchema = v.object({
  points: v.pipe(
    v.number('Points must be a number.'),
    v.integer('Points must be a whole number.'),
    v.minValue(-MAX_ENTRY_POINTS, `A change can move at most ${pointsText(MAX_ENTRY_POINTS)}.`),
    v.maxValue(MAX_ENTRY_POINTS, `A change can move at most ${pointsText(MAX_ENTRY_POINTS)}.`),
    v.check((n) => n !== 0, 'Please enter a number of points other than 0.'),
  ),
  reason: Reason,
  idempotencyKey: IdempotencyKeySchema,
})
export type AdjustmentInput = v.InferOutput<typeof AdjustmentInputSchema>

/** `POST /ledger/{entryId}/reverse`: cancels one entry, once, with a reason. */
export const ReverseInputSchema = v.object({
  reason: Reason,
  idempotencyKey: v.optional(IdempotencyKeySchema),
})
export type ReverseInput = v.InferOutput<typeof ReverseInputSchema>

/** The staff member who made an entry, as a ledger line names them. */
export const LedgerAuthorSchema = v.nullable(
  v.object({ id: v.number(), first_name: v.string(), last_name: v.string() }),
)

/** A ledger entry as the API answers it. */
export const LedgerEntrySchema = v.object({
  id: v.number(),
  patient_id: v.number(),
  kind: v.picklist(LEDGER_KINDS),
  points: v.number(),
  source_type: v.string(),
  source_id: v.nullable(v.number()),
  reason: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
  reverses_id: v.nullable(v.number()),
  reversed_by: v.nullable(v.number()),
  balance_after: v.number(),
  created_by: LedgerAuthorSchema,
  created_at: v.string(),
})
export type LedgerEntry = v.InferOutput<typeof LedgerEntrySchema>

/** `GET /patients/{id}/ledger`: a page of entries, newest first, and the balance. */
export const LedgerPageSchema = v.object({
  ...pageEntries(LedgerEntrySchema),
  balance: v.number(),
  /** The balance's worth at the programme's point value. */
  balance_value_cents: v.number(),
  /** Lots with points left that lapse within 60 days, soonest first. */
  expiring_soon: v.array(v.object({ points: v.number(), expires_at: v.string() })),
})
export type LedgerPage = v.InferOutput<typeof LedgerPageSchema>

/** What a posting answers: the entry and the balance after it. */
export const LedgerPostingSchema = v.object({ entry: LedgerEntrySchema, balance: v.number() })
export type LedgerPosting = v.InferOutput<typeof LedgerPostingSchema>

/** An entry in words, as the patient's activity shows it ("Earned 120 points for a visit"). */
export function describeEntry(
  entry: Pick<LedgerEntry, 'kind' | 'points' | 'source_type' | 'reason' | 'reverses_id'>,
): string {
  const n = Math.abs(entry.points)
  const why = entry.reason ? `: ${entry.reason}` : ''
  switch (entry.kind) {
    case 'earn':
      // A bill from Nextech says so in its reason ("Nextech bill 58201, HydraFacial").
      if (entry.source_type === 'nextech') return `Earned ${pointsText(n)}${why}`
      return `Earned ${pointsText(n)} for a ${entry.source_type === 'appointment' ? 'completed appointment' : 'visit'}${why}`
    case 'bonus':
      return `Bonus of ${pointsText(n)}${entry.source_type === 'joining' ? ' for joining' : entry.source_type === 'membership' ? ' for joining a membership' : entry.source_type === 'promotion' ? ' from a promotion' : entry.source_type === 'visit' ? ' from a promotion at a visit' : ''}${why}`
    case 'adjust':
      return `Points adjusted by ${signedPoints(entry.points, '-')}${why}`
    case 'redeem':
      return `Redeemed ${pointsText(n)}${entry.source_type === 'promotion' ? ' for a promotion' : entry.source_type === 'visit' ? ' at a visit' : ''}${why}`
    case 'expire':
      return `${pointsText(n)} expired`
    case 'reverse':
      return `Reversed entry #${entry.reverses_id} (${signedPoints(entry.points, '-')})${why}`
  }
}

/**
 * The front desk's checkout over the API: a visit's items
 * and the points they earn, an optional redemption (points for a reward, or a promotion the
 * patient claimed) confirmed by the patient's SMS code or a manager's override, and the undo of
 * the 10 minutes after. The server enforces the rules; the checkout screen shows them in the same
 * words.
 */
import * as v from 'valibot'
import { formatPoints, pointsText } from '#domain/points.ts'
import { IdempotencyKeySchema, LedgerEntrySchema, MAX_ENTRY_POINTS } from './ledger.ts'

/**
 * Whether a redemption of `points` needs the patient's code (or a manager's override): above the
 * programme's threshold, and for every redemption when the threshold is 0 ("always"), a claimed
 * offer that costs no points too: redeeming it is the patient's to agree to.
 */
export function codeNeeded(points: number, threshold: number): boolean {
  return threshold === 0 || points > threshold
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })

/** An amount in cents as US dollars ("$1,750.00"), as the API's sentences write money. */
export function formatDollars(cents: number): string {
  return usd.format(cents / 100)
}

/** How long after a visit its undo is offered. */
export const UNDO_WINDOW_MS = 10 * 60 * 1000

/** The most lines one visit may hold. */
export const MAX_VISIT_ITEMS = 50

/** Every refusal of the checkout, as the API answers it. */
export const VISIT_MESSAGES = {
  /** A procedure inside its minimum days between two awards for this patient. */
  earnsAgainOn: (name: string, day: string) => `${name} earns points again on ${day}.`,
  codeNeeded: (points: number) =>
    points > 0
      ? `The patient's code is needed to redeem ${pointsText(points)}.`
      : "The patient's code is needed to redeem this offer.",
  codeIncorrect: 'The code is not correct.',
  /** Code-less redemptions of a patient add up to the threshold a day. */
  codelessDailyLimit: (threshold: number, today: number) =>
    `The patient's code is needed: without it a patient redeems at most ${pointsText(threshold)} a day, and ${formatPoints(today)} were already redeemed today.`,
  /** A code sent for another amount than the one redeemed. */
  codeOtherAmount: (what: string) =>
    `This code is for ${what}: send the patient a new code for this redemption.`,
  codeAmountNeeded:
    'Please say what the code is for: points, promotion_id, bank_cents or more of them.',
  codeExpired: 'The code has expired. Please send the patient a new code.',
  codeUsed: 'This code was already used. Please send the patient a new code.',
  codeAttempts: 'Too many incorrect codes were entered. Please send the patient a new code.',
  codeTooSoon: (seconds: number) =>
    `Please wait ${seconds} seconds before sending the patient another code.`,
  tooManyCodes: 'Too many codes were sent to this patient. Please try again in an hour.',
  noPhone: 'This patient has no phone number: add one to their profile to send a code.',
  undoWindowPassed:
    'The 10 minutes to undo this visit have passed: a manager can reverse its entries from the patient’s profile.',
  appointmentCompleted: 'This appointment is already completed.',
  appointmentCancelled: 'This appointment was cancelled.',
  appointmentOtherPatient: 'This appointment belongs to another patient.',
  appointmentNotFound: 'Appointment not found.',
  procedureNotFound: 'Procedure not found.',
  productNotFound: 'Product not found.',
  itemArchived: (name: string) => `${name} is archived: restore it in the catalogue to sell it.`,
  promotionNotFound: 'Promotion not found.',
  promotionNotClaimed: 'The patient has not claimed this promotion.',
  promotionRedeemed: 'The patient has already redeemed this promotion.',
  promotionExpired: 'This claim has expired: the offer ended before it was redeemed.',
  promotionNothing: 'This promotion has no points to spend or award.',
  patientArchived: 'This patient is archived: restore them to record a visit or a redemption.',
  visitNotFound: 'Visit not found.',
  keyReused: 'This request was already used for a different change. Please try again.',
  oneItem: 'Each item needs either procedure_id or product_id.',
  /** A line priced above its catalogue price. */
  priceAboveCatalogue: (name: string, price: string, catalogue: string) =>
    `${name} at ${price} is above its catalogue price of ${catalogue}.`,
  /** A line earning more than the programme's ceiling. */
  pointsAboveCeiling: (name: string, points: number, ceiling: number) =>
    `${name} would earn ${pointsText(points)}, more than the programme's ${formatPoints(ceiling)} a line.`,
  /** The refusal of a visit that needs a manager's approval and has none. */
  approvalNeeded: (reasons: readonly string[]) =>
    `A manager's approval is needed: ${reasons.join(' ')} Ask a manager to approve it with a reason, or use the catalogue price.`,
  approvalInvalid:
    'This approval is for other lines, another patient, or has expired: ask a manager to approve the visit again.',
  approvalUsed: 'This approval was already used for another visit: ask a manager to approve again.',
  approvalNotNeeded:
    "This visit needs no manager's approval: its prices and points are within the rules.",
  approverCredentials: "The manager's e-mail or password is not correct.",
  approverNotManager:
    "Only a manager or an admin of this practice can approve a price above the catalogue's or points above the programme's ceiling.",
  pointsOrPromotion: 'A redemption needs either points or promotion_id.',
  /** A visit's redemption may take both. */
  pointsOrPromotionOrBoth: 'A redemption needs points, promotion_id, bank_cents or more of them.',
  /** Paying from the membership bank. */
  bankCodeNeeded: (cents: number) =>
    `The patient's code is needed to pay ${formatDollars(cents)} from the membership bank.`,
  noBank: 'The patient has no membership bank to pay from.',
  bankTooLittle: (balance: number) =>
    `The membership bank holds ${formatDollars(balance)}: the bank cannot pay more than that.`,
  bankMoreThanDue: (due: number) =>
    `The visit comes to ${formatDollars(due)}: the bank cannot pay more than the visit.`,
  /** The flag the desk sees before any perk is used. */
  memberPastDue: (plan: string) =>
    `${plan} is past due: a renewal was declined. Member prices and included treatments wait until the card is updated; the bank's paid value can still be used.`,
  memberUnpaid: (plan: string) =>
    `${plan} is unpaid after its last retry: member perks have stopped. The bank's paid value can still be used.`,
  memberPaused: (plan: string, until: string) =>
    `${plan} is paused until ${until}: no member perks while paused. The bank's paid value can still be used.`,
  memberEnded: (plan: string) =>
    `${plan} has ended: no member perks. The bank's paid value can still be used.`,
} as const

const Id = (label: string) =>
  v.pipe(
    v.number(`${label} must be a number.`),
    v.integer(`${label} must be a whole number.`),
    v.minValue(1, `${label} must be a positive id.`),
    v.maxValue(2_147_483_647, `${label} is too large.`),
  )

/** One line as the desk sends it: a procedure or a product, a quantity, and maybe its price. */
export const VisitItemInputSchema = v.pipe(
  v.object({
    procedure_id: v.optional(Id('procedure_id')),
    product_id: v.optional(Id('product_id')),
    quantity: v.pipe(
      v.number('Quantity must be a number.'),
      v.integer('Quantity must be a whole number.'),
      v.minValue(1, 'Quantity must be at least 1.'),
      v.maxValue(1000, 'Quantity can be at most 1000.'),
    ),
    price_cents: v.optional(
      v.pipe(
        v.number('The price must be a number of cents.'),
        v.integer('The price must be a whole number of cents.'),
        v.minValue(0, 'The price cannot be negative.'),
        v.maxValue(100_000_000, 'The price can be at most $1,000,000.'),
      ),
    ),
  }),
  v.check(
    (item) => (item.procedure_id === undefined) !== (item.product_id === undefined),
    VISIT_MESSAGES.oneItem,
  ),
)
export type VisitItemInput = v.InferOutput<typeof VisitItemInputSchema>

const Items = v.pipe(
  v.array(VisitItemInputSchema, 'items must be a list.'),
  v.maxLength(MAX_VISIT_ITEMS, `A visit can hold at most ${MAX_VISIT_ITEMS} items.`),
)

/** `POST /visits/preview`. */
export const VisitPreviewInputSchema = v.object({
  patient_id: Id('patient_id'),
  appointment_id: v.optional(v.nullable(Id('appointment_id'))),
  items: Items,
})
export type VisitPreviewInput = v.InferOutput<typeof VisitPreviewInputSchema>

/** The patient's code, as `POST /patients/{id}/redemption-code` answered it and the SMS said. */
export const VerificationInputSchema = v.object({
  authyId: v.pipe(v.string(), v.regex(/^[\w-]{8,128}$/, 'authyId is not valid.')),
  code: v.pipe(v.string(), v.trim(), v.regex(/^\d{6}$/, 'The code has 6 digits.')),
})

const Reason = v.pipe(
  v.string('Please give a reason.'),
  v.trim(),
  v.minLength(1, 'Please give a reason.'),
  v.maxLength(500, 'The reason can be at most 500 characters.'),
)

/**
 * A manager's approval of the visit's prices and points: the token `POST
 * /visits/approval` answered (bound to the patient and these lines), or, from a Manager's or
 * Admin's own session, a reason alone.
 */
export const VisitApprovalSchema = v.union([
  v.object({ token: v.pipe(v.string(), v.minLength(20), v.maxLength(2000)) }),
  v.object({ reason: Reason }),
])
export type VisitApproval = v.InferOutput<typeof VisitApprovalSchema>

/** `POST /visits/approval`: who approves (a Manager signing in at the desk, or the session's). */
export const ApprovalRequestSchema = v.object({
  patient_id: Id('patient_id'),
  items: Items,
  reason: Reason,
  manager: v.optional(
    v.object({
      email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(320)),
      password: v.pipe(v.string(), v.maxLength(256)),
    }),
  ),
})
export type ApprovalRequest = v.InferOutput<typeof ApprovalRequestSchema>

/** `POST /visits/approval` answers: the token to send with the visit, valid 15 minutes. */
export const ApprovalAnswerSchema = v.object({
  token: v.string(),
  approved_by: v.object({ id: v.number(), first_name: v.string(), last_name: v.string() }),
  expires_at: v.string(),
})
export type ApprovalAnswer = v.InferOutput<typeof ApprovalAnswerSchema>

/** How long an approval may be used. */
export const APPROVAL_TTL_MS = 15 * 60 * 1000

/** A manager's override: no code, a reason. */
export const OverrideInputSchema = v.object({
  reason: v.pipe(
    v.string('Please give a reason.'),
    v.trim(),
    v.minLength(1, 'Please give a reason.'),
    v.maxLength(500, 'The reason can be at most 500 characters.'),
  ),
})

const RedemptionFields = {
  points: v.optional(
    v.pipe(
      v.number('Points must be a number.'),
      v.integer('Points must be a whole number.'),
      v.minValue(1, 'Points must be at least 1.'),
      v.maxValue(MAX_ENTRY_POINTS, `A change can move at most ${pointsText(MAX_ENTRY_POINTS)}.`),
    ),
  ),
  promotion_id: v.optional(Id('promotion_id')),
  verification: v.optional(VerificationInputSchema),
  override: v.optional(OverrideInputSchema),
}

/** Cents paid from the membership bank at a visit. */
const BankCents = v.optional(
  v.pipe(
    v.number('bank_cents must be a number of cents.'),
    v.integer('bank_cents must be a whole number of cents.'),
    v.minValue(1, 'bank_cents must be at least 1.'),
    v.maxValue(100_000_000, 'bank_cents can be at most $1,000,000.00.'),
  ),
)

const onePointsOrPromotion = (r: {
  points?: number | undefined
  promotion_id?: number | undefined
}) => (r.points === undefined) !== (r.promotion_id === undefined)

const pointsOrPromotionOrBoth = (r: {
  points?: number | undefined
  promotion_id?: number | undefined
  bank_cents?: number | undefined
}) => r.points !== undefined || r.promotion_id !== undefined || r.bank_cents !== undefined

/**
 * The redemption of a visit: points, a claimed offer, or both (an offer's discount and
 * points for a reward at the same visit), with one consent for the two.
 */
export const VisitRedemptionInputSchema = v.pipe(
  v.object({ ...RedemptionFields, bank_cents: BankCents }),
  v.check((r) => pointsOrPromotionOrBoth(r), VISIT_MESSAGES.pointsOrPromotionOrBoth),
)
export type VisitRedemptionInput = v.InferOutput<typeof VisitRedemptionInputSchema>

/** `POST /visits`. */
export const VisitInputSchema = v.object({
  patient_id: Id('patient_id'),
  appointment_id: v.optional(v.nullable(Id('appointment_id'))),
  items: Items,
  idempotencyKey: IdempotencyKeySchema,
  redemption: v.optional(VisitRedemptionInputSchema),
  /** A manager's approval, when a price is above the catalogue's or points above the ceiling. */
  approval: v.optional(VisitApprovalSchema),
})
export type VisitInput = v.InferOutput<typeof VisitInputSchema>

/** `POST /patients/{id}/redemptions`. */
export const RedemptionInputSchema = v.pipe(
  v.object({ ...RedemptionFields, idempotencyKey: IdempotencyKeySchema }),
  v.check((r) => onePointsOrPromotion(r), VISIT_MESSAGES.pointsOrPromotion),
)
export type RedemptionInput = v.InferOutput<typeof RedemptionInputSchema>

/** A line of a visit, previewed or recorded. */
export const VisitLineSchema = v.object({
  kind: v.picklist(['procedure', 'product']),
  item_id: v.number(),
  name: v.string(),
  quantity: v.number(),
  unit_price_cents: v.number(),
  /** What the visit's offer takes off the line, in cents; 0 or absent: nothing. */
  discount_cents: v.optional(v.number()),
  /** Units of the line the membership's allowance covers (free); 0 or absent: none. */
  allowance_units: v.optional(v.number()),
  /** What the member price takes off the line's charged units, in cents; 0 or absent: nothing. */
  member_discount_cents: v.optional(v.number()),
  points: v.number(),
  refused: v.nullable(v.object({ reason: v.string(), opens_on: v.string() })),
})
export type VisitLine = v.InferOutput<typeof VisitLineSchema>

/**
 * What an offer the patient claimed would do to the previewed visit, worked out by
 * the server: each line's discount and points, the total to pay and the points earned, or why
 * it cannot be redeemed with these lines.
 */
export const OfferValuationSchema = v.object({
  promotion_id: v.number(),
  title: v.string(),
  /** The offer's value in words ("$50.00 off HydraFacial"). */
  value: v.string(),
  lines: v.array(v.object({ discount_cents: v.number(), points: v.number() })),
  discount_cents: v.number(),
  total_cents: v.number(),
  points: v.number(),
  /** Why this visit cannot redeem it (no line it applies to), else null. */
  problem: v.nullable(v.string()),
})
export type OfferValuation = v.InferOutput<typeof OfferValuationSchema>

/**
 * The patient's membership as the checkout sees it: whether its perks apply, the flag the desk
 * reads first when they do not, what it does to these lines and what the bank holds.
 */
export const MemberAtCheckoutSchema = v.object({
  membership_id: v.number(),
  plan_name: v.string(),
  /** The plan's cadence: the allowances are "this month", "these 3 months" or "this year". */
  interval: v.picklist(['month', 'quarter', 'year']),
  status: v.picklist(['active', 'past_due', 'paused', 'unpaid', 'cancelled', 'ended']),
  /** Member prices, allowances and the multiplier apply (the membership is active). */
  perks_apply: v.boolean(),
  /** Why they do not, in one sentence, shown before anything is used; null when they do. */
  flag: v.nullable(v.string()),
  /** What the bank holds now, in cents: it may pay part or all of the visit. */
  bank_cents: v.number(),
  discount_percent: v.number(),
  points_multiplier: v.number(),
  /** Each allowance: units per cycle, left before this visit, and used by these lines. */
  allowances: v.array(
    v.object({
      catalogue_item_id: v.number(),
      name: v.string(),
      per_cycle: v.number(),
      remaining: v.number(),
      used: v.number(),
    }),
  ),
  /** What the allowances and the member price take off these lines, in cents. */
  allowance_cents: v.number(),
  member_discount_cents: v.number(),
})
export type MemberAtCheckout = v.InferOutput<typeof MemberAtCheckoutSchema>

/** `POST /visits/preview` answers. */
export const VisitPreviewSchema = v.object({
  lines: v.array(VisitLineSchema),
  /** The points the visit earns (after the member's perks and multiplier, before an offer). */
  points: v.number(),
  /** What the patient pays before an offer and the bank: the lines less the member's perks. */
  total_cents: v.number(),
  /** The lines at their prices, before anything is taken off. */
  subtotal_cents: v.optional(v.number()),
  /** The patient's membership (the live one, or an ended one whose bank still holds value). */
  membership: v.optional(v.nullable(MemberAtCheckoutSchema)),
  balance: v.number(),
  point_value_cents: v.number(),
  redemption_code_threshold: v.number(),
  /** The programme's ceiling of points a line earns without a manager's approval. */
  max_points_per_line: v.number(),
  /**
   * Why the visit needs a manager's approval, a sentence a line (a price above the catalogue's,
   * points above the ceiling); empty when it needs none.
   */
  approval_needed: v.array(v.string()),
  /** The patient's claimed offers with value, as each would lower this visit. */
  offer_values: v.optional(v.array(OfferValuationSchema)),
})
export type VisitPreview = v.InferOutput<typeof VisitPreviewSchema>

/** A recorded visit. */
export const VisitSchema = v.object({
  id: v.number(),
  patient_id: v.number(),
  appointment_id: v.nullable(v.number()),
  /** What the patient pays: the lines less the offer's discount. */
  total_cents: v.number(),
  /** What the redeemed offer took off, in cents (0 or absent: nothing). */
  discount_cents: v.optional(v.number()),
  /** What the membership took off: allowances used and the member price, in cents. */
  allowance_cents: v.optional(v.number()),
  member_discount_cents: v.optional(v.number()),
  /** What the membership bank paid of `total_cents`; the rest is paid at the desk. */
  bank_cents: v.optional(v.number()),
  created_at: v.string(),
  undo_until: v.string(),
  /** When the visit was undone (its entries reversed), else null. */
  undone_at: v.nullable(v.string()),
  /** The manager who approved its prices or points, and why, else null. */
  approval: v.optional(
    v.nullable(
      v.object({
        approved_by: v.object({ id: v.number(), first_name: v.string(), last_name: v.string() }),
        reason: v.string(),
      }),
    ),
  ),
})
export type Visit = v.InferOutput<typeof VisitSchema>

/** `POST /visits` and `GET /visits/{id}` answer. */
export const VisitAnswerSchema = v.object({
  visit: VisitSchema,
  lines: v.array(VisitLineSchema),
  entries: v.array(LedgerEntrySchema),
  balance: v.number(),
  /** The membership bank after the visit, when the patient has one. */
  membership_bank_cents: v.optional(v.nullable(v.number())),
})
export type VisitAnswer = v.InferOutput<typeof VisitAnswerSchema>

/** `POST /visits/{id}/undo` answers: the reversing entries and the balance after them. */
export const VisitUndoAnswerSchema = v.object({
  entries: v.array(LedgerEntrySchema),
  balance: v.number(),
  /** The membership bank after the undo put back what the visit paid from it. */
  membership_bank_cents: v.optional(v.nullable(v.number())),
})

/** `POST /patients/{id}/redemptions` answers; `bonus` is a promotion's bonus entry, if any. */
export const RedemptionAnswerSchema = v.object({
  entry: LedgerEntrySchema,
  balance: v.number(),
  bonus: v.optional(v.nullable(LedgerEntrySchema)),
})

/** `POST /patients/{id}/redemption-code` answers. */
export const RedemptionCodeAnswerSchema = v.object({ authyId: v.string() })

/**
 * `POST /patients/{id}/redemption-code`: the one amount the code is for, points or a
 * claimed offer; the SMS names it and the code redeems at most that.
 */
export const RedemptionCodeInputSchema = v.pipe(
  v.object({
    points: RedemptionFields.points,
    promotion_id: RedemptionFields.promotion_id,
    bank_cents: BankCents,
  }),
  v.check((r) => pointsOrPromotionOrBoth(r), VISIT_MESSAGES.codeAmountNeeded),
)
export type RedemptionCodeInput = v.InferOutput<typeof RedemptionCodeInputSchema>

/** `POST /patients/{id}/redemption-code/check`: the typed code, for this amount. */
export const RedemptionCodeCheckSchema = v.pipe(
  v.object({
    ...VerificationInputSchema.entries,
    points: RedemptionFields.points,
    promotion_id: RedemptionFields.promotion_id,
    bank_cents: BankCents,
  }),
  v.check((r) => pointsOrPromotionOrBoth(r), VISIT_MESSAGES.codeAmountNeeded),
)
export type RedemptionCodeCheck = v.InferOutput<typeof RedemptionCodeCheckSchema>

/** `POST /patients/{id}/redemption-code/check` answers: the code is right (nothing is spent). */
export const RedemptionCodeCheckAnswerSchema = v.object({ valid: v.literal(true) })

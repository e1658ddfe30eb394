/**
 * Memberships: plans with perks, a patient's membership on one version of a plan, its charges and
 * events (../shared/MEMBERSHIPS.md sections 2, 3 and 7). Field names are the API's; amounts are
 * integer cents. The lifecycle is the statechart in machines/membership.
 */
import * as v from 'valibot'
import { IdempotencyKeySchema } from './ledger.ts'
import { formatUsd } from './pricing.ts'

export const MEMBERSHIP_STATUSES = [
  'active',
  'past_due',
  'paused',
  'unpaid',
  'cancelled',
  'ended',
] as const
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number]

/** Statuses of a membership that still belongs to the patient (one at a time per patient). */
export const LIVE_STATUSES = ['active', 'past_due', 'paused', 'unpaid'] as const

export const PLAN_INTERVALS = ['month', 'quarter', 'year'] as const
export type PlanInterval = (typeof PLAN_INTERVALS)[number]

/** Months in one cycle of each cadence. */
export const INTERVAL_MONTHS: Record<PlanInterval, number> = { month: 1, quarter: 3, year: 12 }

export const INTERVAL_LABELS: Record<PlanInterval, string> = {
  month: 'Monthly',
  quarter: 'Every 3 months',
  year: 'Yearly',
}

export const STATUS_LABELS: Record<MembershipStatus, string> = {
  active: 'Active',
  past_due: 'Past due',
  paused: 'Paused',
  unpaid: 'Unpaid',
  cancelled: 'Cancelled',
  ended: 'Ended',
}

/**
 * When a declined renewal is tried again, in days after the renewal date (Boulevard retries at
 * +3 and +6 days, Mangomint within 7): four retries, then the membership is unpaid.
 */
export const RETRY_SCHEDULE_DAYS = [1, 3, 5, 7] as const

/** A notice goes this many days before a renewal that the card on file expires before. */
export const CARD_EXPIRY_NOTICE_DAYS = 30

/** Cycles a pause may last. */
export const PAUSE_CYCLES = { min: 1, max: 3 } as const

/**
 * The membership agreement the patient accepts at enrolment, with its version: the consent
 * record keeps the version, so a later wording never rewrites what a patient agreed to.
 */
export const MEMBERSHIP_AGREEMENT = {
  version: '2026-11-01',
  text: (plan: {
    name: string
    price: string
    cadence: string
    minCycles: number
    noticeDays: number
  }) =>
    `I agree that ${plan.name} renews automatically and my card is charged ${plan.price} ${plan.cadence.toLowerCase()} until I cancel.` +
    (plan.minCycles > 1 ? ` The minimum term is ${plan.minCycles} payments.` : '') +
    (plan.noticeDays > 0
      ? ` Cancelling needs ${plan.noticeDays} days' notice before a renewal.`
      : '') +
    ' I can cancel online at any time from my wallet, or at the front desk.',
} as const

/** `date` moved by `months` calendar months, clamped to the month's last day (as Stripe bills). */
export function addMonths(date: Date, months: number): Date {
  const target = new Date(date.getTime())
  const day = target.getUTCDate()
  target.setUTCDate(1)
  target.setUTCMonth(target.getUTCMonth() + months)
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(day, last))
  return target
}

/** The end of a cycle of `interval` that starts at `start`. */
export function cycleEnd(start: Date, interval: PlanInterval, cycles = 1): Date {
  return addMonths(start, INTERVAL_MONTHS[interval] * cycles)
}

/** The part of `cents` for the time left of the period at `at`, rounded to the cent. */
export function prorated(cents: number, periodStart: Date, periodEnd: Date, at: Date): number {
  const whole = periodEnd.getTime() - periodStart.getTime()
  if (whole <= 0) return 0
  const left = Math.min(Math.max(periodEnd.getTime() - at.getTime(), 0), whole)
  return Math.round((cents * left) / whole)
}

export const MEMBERSHIP_MESSAGES = {
  nameRequired: 'Please enter the plan’s name.',
  nameTooLong: 'The name can be at most 80 characters.',
  nameTaken: (name: string) => `A plan named "${name}" already exists. Please choose another name.`,
  descriptionTooLong: 'The description can be at most 500 characters.',
  price: 'Please enter a price per cycle of $1.00 to $10,000.00.',
  setupFee: 'Please enter a setup fee of $0.00 to $10,000.00.',
  interval: 'Please choose how often it renews: monthly, every 3 months or yearly.',
  minCycles: 'The minimum term is a whole number of cycles from 1 to 36.',
  noticeDays: 'The notice period is a whole number of days from 0 to 90.',
  bank: 'Banked value per cycle is $0.00 to $10,000.00.',
  allowanceItem: 'Please choose a treatment of your catalogue for each allowance.',
  allowanceQuantity: 'An allowance is 1 to 20 units per cycle.',
  rolloverCap: 'The rollover cap is a whole number from 0 to 100.',
  allowanceTwice: 'Each treatment can have one allowance only.',
  discount: 'The member discount is a whole percentage from 0 to 100.',
  multiplier: 'The points multiplier is from 1 to 10.',
  joinBonus: 'The joining bonus is 0 to 100,000 points.',
  planNotFound: 'This membership plan is not in your practice.',
  planArchived: 'This plan is archived: new members cannot join it.',
  membershipNotFound: 'This membership is not in your practice.',
  alreadyMember: 'The patient already has a membership. Cancel it before starting another.',
  notConnected:
    'Payments are not connected: an Admin connects the practice’s Stripe account in Settings → Payments before patients can join a plan.',
  consentRequired:
    'The patient must accept the membership agreement, including the automatic renewal, before joining.',
  consentOutdated:
    'The membership agreement changed. Please show the patient the current agreement.',
  acceptedByRequired: 'Please enter the name of the patient who accepted the agreement.',
  cardRequired: 'Please enter the patient’s card.',
  pauseCycles: 'A pause lasts 1 to 3 cycles.',
  refused: (status: string, change: string) =>
    `A membership that is ${status.toLowerCase()} cannot ${change}.`,
  cancelNowNeedsManager:
    'Ending a membership now is for a Manager or an Admin: ask one, or cancel it at the end of the term.',
  samePlan: 'The membership is already on this plan.',
  nothingDue: 'Nothing is due: the membership is paid up.',
  keyReused: 'This enrolment key was already used for another patient or plan.',
  linkInvalid: 'This link is no longer valid. Please ask the practice for a new one.',
  archivedPatient: 'An archived patient cannot join a plan.',
} as const

const cents = (message: string, max: number, min = 0) =>
  v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message))

export const PlanAllowanceSchema = v.object({
  catalogue_item_id: v.pipe(
    v.number(MEMBERSHIP_MESSAGES.allowanceItem),
    v.integer(MEMBERSHIP_MESSAGES.allowanceItem),
    v.minValue(1, MEMBERSHIP_MESSAGES.allowanceItem),
    v.maxValue(2_147_483_647, MEMBERSHIP_MESSAGES.allowanceItem),
  ),
  quantity: cents(MEMBERSHIP_MESSAGES.allowanceQuantity, 20, 1),
  rollover_cap: cents(MEMBERSHIP_MESSAGES.rolloverCap, 100),
})
export type PlanAllowance = v.InferOutput<typeof PlanAllowanceSchema>

export const PlanPerksSchema = v.object({
  bank_cents: cents(MEMBERSHIP_MESSAGES.bank, 1_000_000),
  allowances: v.pipe(
    v.array(PlanAllowanceSchema),
    v.maxLength(20, MEMBERSHIP_MESSAGES.allowanceTwice),
    v.check(
      (list) => new Set(list.map((a) => a.catalogue_item_id)).size === list.length,
      MEMBERSHIP_MESSAGES.allowanceTwice,
    ),
  ),
  discount_percent: cents(MEMBERSHIP_MESSAGES.discount, 100),
  discount_item_ids: v.array(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2_147_483_647)),
  ),
  points_multiplier: v.pipe(
    v.number(MEMBERSHIP_MESSAGES.multiplier),
    v.minValue(1, MEMBERSHIP_MESSAGES.multiplier),
    v.maxValue(10, MEMBERSHIP_MESSAGES.multiplier),
  ),
  join_bonus_points: cents(MEMBERSHIP_MESSAGES.joinBonus, 100_000),
})
export type PlanPerks = v.InferOutput<typeof PlanPerksSchema>

/** `POST /membership-plans`, `PUT /membership-plans/{id}`. */
export const PlanInputSchema = v.object({
  name: v.pipe(
    v.string(MEMBERSHIP_MESSAGES.nameRequired),
    v.trim(),
    v.nonEmpty(MEMBERSHIP_MESSAGES.nameRequired),
    v.maxLength(80, MEMBERSHIP_MESSAGES.nameTooLong),
  ),
  description: v.optional(
    v.pipe(v.string(), v.trim(), v.maxLength(500, MEMBERSHIP_MESSAGES.descriptionTooLong)),
    '',
  ),
  price_cents: cents(MEMBERSHIP_MESSAGES.price, 1_000_000, 100),
  interval: v.picklist(PLAN_INTERVALS, MEMBERSHIP_MESSAGES.interval),
  setup_fee_cents: v.optional(cents(MEMBERSHIP_MESSAGES.setupFee, 1_000_000), 0),
  min_cycles: v.optional(cents(MEMBERSHIP_MESSAGES.minCycles, 36, 1), 1),
  notice_days: v.optional(cents(MEMBERSHIP_MESSAGES.noticeDays, 90), 0),
  perks: PlanPerksSchema,
})
export type PlanInput = v.InferOutput<typeof PlanInputSchema>

export const MembershipPlanSchema = v.object({
  id: v.number(),
  name: v.string(),
  description: v.string(),
  price_cents: v.number(),
  interval: v.picklist(PLAN_INTERVALS),
  setup_fee_cents: v.number(),
  min_cycles: v.number(),
  notice_days: v.number(),
  perks: PlanPerksSchema,
  /** 1 for the plan as first built; each change of price, cadence, terms or perks adds one. */
  version: v.number(),
  archived: v.boolean(),
  /** Members on any version of the plan whose membership is not over. */
  active_members: v.number(),
})
export type Plan = v.InferOutput<typeof MembershipPlanSchema>

export const MembershipPlansAnswerSchema = v.object({ data: v.array(MembershipPlanSchema) })

export const MembershipCardSchema = v.object({
  brand: v.string(),
  last4: v.string(),
  exp_month: v.number(),
  exp_year: v.number(),
})
export type Card = v.InferOutput<typeof MembershipCardSchema>

export const MembershipSchema = v.object({
  id: v.number(),
  patient_id: v.number(),
  patient_name: v.string(),
  /** The version of the plan the membership is on (grandfathered until staff move it). */
  plan: MembershipPlanSchema,
  status: v.picklist(MEMBERSHIP_STATUSES),
  started_at: v.string(),
  current_period_start: v.string(),
  current_period_end: v.string(),
  /** Paid cycles so far (the first counts). */
  cycle: v.number(),
  cancel_at_period_end: v.boolean(),
  /** When a scheduled cancellation takes effect; null without one. */
  cancel_at: v.nullable(v.string()),
  /** Why it ended: `patient`, `staff` or `failed_payment`; null while it runs. */
  cancel_reason: v.nullable(v.string()),
  ended_at: v.nullable(v.string()),
  /** While paused: when billing starts again. */
  resumes_at: v.nullable(v.string()),
  /** The plan it moves to at the next renewal; null without a change scheduled. */
  next_plan: v.nullable(
    v.object({ id: v.number(), name: v.string(), version: v.number(), price_cents: v.number() }),
  ),
  bank_cents: v.number(),
  allowances: v.array(
    v.object({ catalogue_item_id: v.number(), name: v.string(), remaining: v.number() }),
  ),
  /** The next charge: the renewal, or the next retry of a declined one; null when none will come. */
  next_payment_attempt_at: v.nullable(v.string()),
  /** Declined attempts of the cycle now due (0 when paid up). */
  failed_attempts: v.number(),
  card: v.nullable(MembershipCardSchema),
  consent: v.object({
    text_version: v.string(),
    accepted_by_name: v.string(),
    accepted_at: v.string(),
    taken_by: v.nullable(v.string()),
    method: v.string(),
  }),
})
export type Membership = v.InferOutput<typeof MembershipSchema>

export const MembershipsAnswerSchema = v.object({
  data: v.array(MembershipSchema),
  page: v.number(),
  total: v.number(),
})

/** `POST /patients/{id}/memberships`. */
export const EnrolInputSchema = v.object({
  plan_id: v.pipe(
    v.number(MEMBERSHIP_MESSAGES.planNotFound),
    v.integer(MEMBERSHIP_MESSAGES.planNotFound),
    v.minValue(1, MEMBERSHIP_MESSAGES.planNotFound),
    v.maxValue(2_147_483_647, MEMBERSHIP_MESSAGES.planNotFound),
  ),
  payment_method_token: v.pipe(
    v.string(MEMBERSHIP_MESSAGES.cardRequired),
    v.trim(),
    v.nonEmpty(MEMBERSHIP_MESSAGES.cardRequired),
    v.maxLength(255),
  ),
  consent: v.object(
    {
      text_version: v.pipe(
        v.string(MEMBERSHIP_MESSAGES.consentRequired),
        v.nonEmpty(MEMBERSHIP_MESSAGES.consentRequired),
        v.maxLength(40),
      ),
      accepted_by_name: v.pipe(
        v.string(MEMBERSHIP_MESSAGES.acceptedByRequired),
        v.trim(),
        v.nonEmpty(MEMBERSHIP_MESSAGES.acceptedByRequired),
        v.maxLength(120, MEMBERSHIP_MESSAGES.acceptedByRequired),
      ),
    },
    MEMBERSHIP_MESSAGES.consentRequired,
  ),
  idempotencyKey: IdempotencyKeySchema,
})
export type EnrolInput = v.InferOutput<typeof EnrolInputSchema>

export const PauseInputSchema = v.object({
  cycles: v.pipe(
    v.number(MEMBERSHIP_MESSAGES.pauseCycles),
    v.integer(MEMBERSHIP_MESSAGES.pauseCycles),
    v.minValue(PAUSE_CYCLES.min, MEMBERSHIP_MESSAGES.pauseCycles),
    v.maxValue(PAUSE_CYCLES.max, MEMBERSHIP_MESSAGES.pauseCycles),
  ),
})

export const CancelInputSchema = v.object({
  at: v.picklist(
    ['period_end', 'now'] as const,
    'Choose when it ends: at the end of the term, or now.',
  ),
  refund: v.optional(v.boolean(), false),
  /** Who asked for it: the patient (the default), or the practice ending it (`staff`). */
  requested_by: v.optional(
    v.picklist(
      ['patient', 'staff'] as const,
      'Say who asked for the cancellation: the patient, or the practice (staff).',
    ),
    'patient',
  ),
})

export const ChangePlanInputSchema = v.object({
  plan_id: v.pipe(
    v.number(MEMBERSHIP_MESSAGES.planNotFound),
    v.integer(),
    v.minValue(1),
    v.maxValue(2_147_483_647),
  ),
  at: v.picklist(
    ['now', 'period_end'] as const,
    'Choose when the plan changes: now, or at the next renewal.',
  ),
})

export const CardInputSchema = v.object({
  payment_method_token: v.pipe(
    v.string(MEMBERSHIP_MESSAGES.cardRequired),
    v.trim(),
    v.nonEmpty(MEMBERSHIP_MESSAGES.cardRequired),
    v.maxLength(255),
  ),
})

/** What a change costs, answered with `?preview=true` instead of making it. */
export const PreviewSchema = v.object({
  preview: v.object({
    /** Charged now (> 0) or refunded now (< 0); 0 when nothing moves today. */
    amount_cents: v.number(),
    /** When the change takes effect. */
    effective_at: v.string(),
    /** The change in one sentence, as the confirmation shows it. */
    summary: v.string(),
  }),
})
export type Preview = v.InferOutput<typeof PreviewSchema>['preview']

export const MEMBERSHIP_EVENT_KINDS = [
  'enrolled',
  'charged',
  'charge_failed',
  'perks_issued',
  'past_due',
  'unpaid',
  'paused',
  'resumed',
  'cancel_scheduled',
  'cancel_undone',
  'cancelled',
  'ended',
  'refunded',
  'plan_changed',
  'plan_change_scheduled',
  'card_updated',
  'notice_sent',
  'card_expiry_notice',
  'duplicate_refunded',
  'perks_used',
  'perks_restored',
] as const

export const MembershipEventSchema = v.object({
  kind: v.picklist(MEMBERSHIP_EVENT_KINDS),
  amount_cents: v.nullable(v.number()),
  at: v.string(),
  detail: v.string(),
})
export const MembershipEventsAnswerSchema = v.object({ data: v.array(MembershipEventSchema) })

/**
 * What moves a membership's bank: `credit` (a paid cycle's banked value), `use` (a visit paid
 * from it), `restore` (that visit undone), `refund` (a refunded cycle's banked value taken back).
 */
export const BANK_ENTRY_KINDS = ['credit', 'use', 'restore', 'refund'] as const
export type BankEntryKind = (typeof BANK_ENTRY_KINDS)[number]

/** One entry of a membership's bank, with the balance it left. */
export const MembershipBankEntrySchema = v.object({
  id: v.number(),
  kind: v.picklist(BANK_ENTRY_KINDS),
  /** Signed: a credit or a restore adds, a use or a refund takes away. */
  amount_cents: v.number(),
  /** The bank right after this entry (never below 0). */
  balance_after_cents: v.number(),
  /** The cycle a credit or a refund is for; null for a use or a restore. */
  cycle: v.nullable(v.number()),
  /** The visit a use paid or a restore undid; null otherwise (or when the visit is gone). */
  visit_id: v.nullable(v.number()),
  at: v.string(),
  /** The entry in one sentence: "Paid in with cycle 3", "Used at the visit of Nov 27, 2026…". */
  detail: v.string(),
})
export type MembershipBankEntry = v.InferOutput<typeof MembershipBankEntrySchema>

/** `GET /memberships/{id}/bank`: every entry, newest first, and the balance now. */
export const MembershipBankAnswerSchema = v.object({
  data: v.array(MembershipBankEntrySchema),
  bank_cents: v.number(),
})
export type MembershipBank = v.InferOutput<typeof MembershipBankAnswerSchema>

const bankDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' })

/**
 * The sentence of a bank entry. A visit is named by its date (as the app writes dates) and what
 * it came to; without the visit (deleted), by what the entry did.
 */
export function bankEntryDetail(entry: {
  kind: BankEntryKind
  cycle: number | null
  visit: { at: Date; total_cents: number } | null
}): string {
  const visitDay = entry.visit ? bankDate.format(entry.visit.at) : null
  switch (entry.kind) {
    case 'credit':
      return entry.cycle ? `Paid in with cycle ${entry.cycle}` : 'Paid in'
    case 'use':
      return entry.visit
        ? `Used at the visit of ${visitDay}, which came to ${money(entry.visit.total_cents)}`
        : 'Used at a visit'
    case 'restore':
      return visitDay
        ? `Put back: the visit of ${visitDay} was undone`
        : 'Put back: the visit was undone'
    case 'refund':
      return entry.cycle
        ? `Taken back with the refund of cycle ${entry.cycle}`
        : 'Taken back with a refund'
  }
}

/** `GET /practice/payments`: the practice's own payment account (Stripe Connect). */
export const PaymentAccountSchema = v.object({
  connected: v.boolean(),
  provider: v.nullable(v.picklist(['test', 'stripe'] as const)),
  account_id: v.nullable(v.string()),
  connected_at: v.nullable(v.string()),
  /** The retry schedule of declined renewals, in days after the renewal date. */
  retry_schedule_days: v.array(v.number()),
})
export type PaymentAccount = v.InferOutput<typeof PaymentAccountSchema>

/** `GET /membership-card/{token}`: what the patient's card-update page shows. */
export const CardLinkSchema = v.object({
  practice_name: v.string(),
  first_name: v.string(),
  plan_name: v.string(),
  status: v.picklist(MEMBERSHIP_STATUSES),
  amount_due_cents: v.number(),
  card: v.nullable(MembershipCardSchema),
})

/** `POST /dev/clock`. */
export const CLOCK_DAYS_MESSAGE = 'Days must be a whole number from 0 to 400.'
export const ClockInputSchema = v.object({
  days: v.pipe(
    v.number(CLOCK_DAYS_MESSAGE),
    v.integer(CLOCK_DAYS_MESSAGE),
    v.minValue(0, CLOCK_DAYS_MESSAGE),
    v.maxValue(400, CLOCK_DAYS_MESSAGE),
  ),
})
export const ClockAnswerSchema = v.object({
  now: v.string(),
  charged: v.number(),
  failed: v.number(),
  notices: v.number(),
})

/** Dollars of `cents` as the product writes them: `$1,234.50`. */
export const money = (cents: number): string => formatUsd(cents / 100)

/** `GET /patients/{id}/memberships`. */
export const PatientMembershipsAnswerSchema = v.object({ data: v.array(MembershipSchema) })

/** A change's answer: the membership as changed, or with `?preview=true` what it would cost. */
export const MembershipChangeAnswerSchema = v.union([MembershipSchema, PreviewSchema])

/** `PUT /membership-card/{token}`: what the patient's new card did. */
export const CardLinkAnswerSchema = v.object({
  status: v.picklist(MEMBERSHIP_STATUSES),
  charged: v.boolean(),
  message: v.string(),
})

/** `POST /webhooks/payments`. */
export const WebhookAnswerSchema = v.object({ received: v.boolean(), applied: v.boolean() })

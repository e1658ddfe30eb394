/**
 * The memberships dashboard's numbers (../shared/MEMBERSHIPS.md section 5): the answer of
 * `GET /reports/memberships` and the lines of its CSV, shared by the server and the app.
 *
 * Definitions:
 * - **MRR** at an instant is the sum, over memberships that are active or past due then, of
 *   their plan version's price normalised to a month ({@link monthlyCents}: a quarter's price / 3,
 *   a year's / 12, each rounded to the cent once per membership, so every sum is exact). Paused,
 *   unpaid, cancelled and ended memberships count 0.
 * - **Movement** of a month is worked out per membership from its MRR at the month's opening and
 *   at its closing: from 0 to more is *new* (the patient's first membership, started in the month),
 *   *reactivation* (an unpaid membership paid again, or a new membership of a patient who had one
 *   before) or *expansion* (a paused membership resumed);
 *   from more to 0 is *contraction* (paused), *involuntary churn* (unpaid, or ended for failed
 *   payment) or *voluntary churn* (cancelled or ended by the patient or staff); a change between two
 *   amounts is expansion or contraction. So opening + new + expansion − contraction − voluntary −
 *   involuntary + reactivation = closing, to the cent, and a month's closing is the next opening.
 * - **Churn rate**: members live and not unpaid at the period's start (active, past due, paused)
 *   who are cancelled, ended or unpaid at its end, over those members.
 * - **Recovery rate**: past-due episodes that ended in the period by a paid retry, over those that
 *   ended in it at all (paid, turned unpaid, or cancelled while past due).
 * - **Bank**: opening + paid in − used − refunded = closing, from the bank's entries; `used` is
 *   what visits took net of their undos.
 *
 * Money only for readers with `reports.money`: for the others (Staff) every money field is absent.
 */
import * as v from 'valibot'
import { INTERVAL_MONTHS, type PlanInterval } from './memberships.ts'

/** A plan's price per cycle as a month's revenue, rounded to the cent (half up). */
export function monthlyCents(priceCents: number, interval: PlanInterval): number {
  return Math.round(priceCents / INTERVAL_MONTHS[interval])
}

/** One month of MRR movement, in cents; every movement a positive amount. */
export const MembershipReportMrrMonthSchema = v.object({
  /** `YYYY-MM`. The first and last month are cut to the period. */
  month: v.string(),
  opening_mrr_cents: v.number(),
  new_cents: v.number(),
  expansion_cents: v.number(),
  contraction_cents: v.number(),
  voluntary_churn_cents: v.number(),
  involuntary_churn_cents: v.number(),
  reactivation_cents: v.number(),
  closing_mrr_cents: v.number(),
})
export type MembershipReportMrrMonth = v.InferOutput<typeof MembershipReportMrrMonthSchema>

/** The membership bank's roll-forward over the period, in cents. */
export const MembershipReportBankSchema = v.object({
  /** Every member's bank at the start of the period. */
  opening_cents: v.number(),
  /** Credited by paid cycles. */
  paid_in_cents: v.number(),
  /** Paid for visits, net of undone visits (a positive amount taken off). */
  used_cents: v.number(),
  /** Taken back with a refunded cycle (a positive amount taken off). */
  refunded_cents: v.number(),
  /** Every member's bank at the end of the period. */
  closing_cents: v.number(),
  /** The sum of the members' banks now: equal to `closing_cents` when the period ends today. */
  members_cents: v.number(),
})
export type MembershipReportBank = v.InferOutput<typeof MembershipReportBankSchema>

/** Units of one treatment still to be used this cycle by live members. */
export const MembershipReportAllowanceSchema = v.object({
  catalogue_item_id: v.number(),
  name: v.string(),
  units: v.number(),
  /** Money only: the units at the treatment's catalogue price. */
  value_cents: v.optional(v.number()),
})
export type MembershipReportAllowance = v.InferOutput<typeof MembershipReportAllowanceSchema>

/** `GET /reports/memberships`: counts for everyone, money for Managers and Admins only. */
export const MembershipReportSchema = v.object({
  from: v.string(),
  to: v.string(),
  /** The day the report counts as today: the billing clock's (a period ending then is "now"). */
  today: v.string(),
  /** Memberships in each status at the end of the period. */
  active: v.number(),
  /** Memberships that started in the period. */
  new: v.number(),
  paused: v.number(),
  past_due: v.number(),
  unpaid: v.number(),
  /** Memberships that ended in the period (cancelled now, or at the end of their term). */
  cancelled: v.number(),
  cancelled_by_reason: v.object({
    patient: v.number(),
    staff: v.number(),
    failed_payment: v.number(),
  }),
  /** Members active, past due or paused at the start of the period. */
  members_at_start: v.number(),
  /** Of those, the ones cancelled, ended or unpaid at its end. */
  churned: v.number(),
  /** `churned / members_at_start` (0 to 1, 4 decimals); null without members at the start. */
  churn_rate: v.nullable(v.number()),
  /** Past-due episodes that ended in the period with a paid retry. */
  recovered: v.number(),
  /** Past-due episodes that ended in the period without one (unpaid, or cancelled). */
  not_recovered: v.number(),
  /** `recovered / (recovered + not_recovered)` (0 to 1, 4 decimals); null when none ended. */
  recovery_rate: v.nullable(v.number()),
  /** Money only: MRR at the end of the period. */
  mrr_cents: v.optional(v.number()),
  /** Money only: each month of the period, oldest first. */
  mrr_movement: v.optional(v.array(MembershipReportMrrMonthSchema)),
  /** Money only. */
  bank: v.optional(MembershipReportBankSchema),
  /** Live memberships' units left this cycle, now, by treatment. */
  allowances_outstanding: v.array(MembershipReportAllowanceSchema),
})
export type MembershipReport = v.InferOutput<typeof MembershipReportSchema>

/** The MRR movements in the order they add up, with their sign and name. */
export const MRR_MOVEMENTS = [
  { key: 'new_cents', sign: 1, label: 'New' },
  { key: 'expansion_cents', sign: 1, label: 'Expansion' },
  { key: 'contraction_cents', sign: -1, label: 'Contraction' },
  { key: 'voluntary_churn_cents', sign: -1, label: 'Voluntary churn' },
  { key: 'involuntary_churn_cents', sign: -1, label: 'Involuntary churn' },
  { key: 'reactivation_cents', sign: 1, label: 'Reactivation' },
] as const satisfies readonly {
  key: keyof MembershipReportMrrMonth
  sign: 1 | -1
  label: string
}[]

/** A month's opening plus its movements: what its closing must be. */
export function mrrClosing(month: MembershipReportMrrMonth): number {
  return MRR_MOVEMENTS.reduce(
    (sum, movement) => sum + movement.sign * month[movement.key],
    month.opening_mrr_cents,
  )
}

/** The bank's opening plus its movements: what its closing must be. */
export function bankClosing(bank: MembershipReportBank): number {
  return bank.opening_cents + bank.paid_in_cents - bank.used_cents - bank.refunded_cents
}

/** `part / whole` to 4 decimals; null without a whole. */
export function reportRate(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null
}

/** A rate as people read it: `12.5%`, or a dash without one. */
export function formatRate(rate: number | null): string {
  if (rate === null) return '—'
  return `${(Math.round(rate * 1000) / 10).toLocaleString('en-US')}%`
}

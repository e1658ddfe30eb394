/**
 * The dashboard's numbers, its worklist and the points liability report (4
 * and 7): the answers of `GET /reports/summary`, `/reports/worklist` and
 * `/reports/liability`, shared by the server and the app.
 *
 * Days are calendar days in UTC, the days the product counts in (appointments, expiry). A period
 * runs from the start of `from` to the end of `to`, both included. Money is in cents at the
 * programme's point value, and only for those who may see money (`reports.money`): the others
 * get the counts with the money fields absent.
 */
import * as v from 'valibot'
import { pageEntries } from '#domain/paging.ts'
import { WORKLIST_LISTS } from './report-period.ts'

/** The longest period the summary and the liability report cover at once. */
export const REPORT_MAX_DAYS = 3660

/** What a report's refusals say, word for word. */
export const REPORT_MESSAGES = {
  from: 'from must be a calendar date written YYYY-MM-DD.',
  to: 'to must be a calendar date written YYYY-MM-DD.',
  order: 'The period must start on or before the day it ends.',
  tooLong: `Choose a period of at most ${REPORT_MAX_DAYS} days.`,
  list: 'list must be one of expiring, lapsing, offers-ending, appointments, memberships-past-due or cards-expiring.',
  page: 'page must be a whole number from 1.',
  pageSize: 'pageSize must be a whole number from 1 to 100.',
} as const

/** Whether `day` is a day of the calendar (the format alone lets 30 February through). */
const isCalendarDay = (day: string) => {
  const date = new Date(`${day}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day
}

const Day = (message: string) =>
  v.pipe(v.string(message), v.isoDate(message), v.check(isCalendarDay, message))

/** `?from=&to=` of the summary and the liability report; both optional (this month so far). */
export const ReportPeriodQuerySchema = v.object({
  from: v.optional(Day(REPORT_MESSAGES.from)),
  to: v.optional(Day(REPORT_MESSAGES.to)),
})

export {
  addDays,
  dayOf,
  monthStart,
  periodDays,
  previousPeriod,
  WORKLIST_LISTS,
  type WorklistList,
} from './report-period.ts'

/** How many days ahead or behind each list looks. */
export const WORKLIST_WINDOWS = { expiringDays: 30, lapsingDays: 90, offersEndingDays: 7 } as const

/** Rows of a worklist page unless `pageSize` says otherwise. */
export const WORKLIST_PAGE_SIZE = 10

const WholeFrom1 = (message: string, max: number) =>
  v.pipe(
    v.string(message),
    v.regex(/^\d{1,6}$/, message),
    v.transform(Number),
    v.minValue(1, message),
    v.maxValue(max, message),
  )

/** `?list=&page=&pageSize=` of the worklist. */
export const WorklistQuerySchema = v.object({
  list: v.picklist(WORKLIST_LISTS, REPORT_MESSAGES.list),
  page: v.optional(WholeFrom1(REPORT_MESSAGES.page, 999_999)),
  pageSize: v.optional(WholeFrom1(REPORT_MESSAGES.pageSize, 100)),
})

/** A figure of this period and of the period of the same length just before it. */
export const ComparedSchema = v.object({ current: v.number(), previous: v.number() })
export type Compared = v.InferOutput<typeof ComparedSchema>

const PeriodSchema = v.object({ from: v.string(), to: v.string() })

/**
 * One month of the charts: points earned, redeemed and expired (positive numbers, each net of
 * the reversals posted that month) and the patients who joined.
 */
export const MonthFiguresSchema = v.object({
  /** `YYYY-MM`. */
  month: v.string(),
  earned: v.number(),
  redeemed: v.number(),
  expired: v.number(),
  new_patients: v.number(),
})
export type MonthFigures = v.InferOutput<typeof MonthFiguresSchema>

/** A live offer's funnel: who claimed it (redeemed or not) and who redeemed it. */
export const OfferFunnelSchema = v.object({
  id: v.number(),
  title: v.string(),
  starts_at: v.nullable(v.string()),
  ends_at: v.nullable(v.string()),
  /** E-mails of the offer delivered ("Send to patients"). */
  sent: v.number(),
  claimed: v.number(),
  redeemed: v.number(),
  /** Claims that lapsed unredeemed. */
  expired: v.number(),
})
export type OfferFunnel = v.InferOutput<typeof OfferFunnelSchema>

/** `GET /reports/summary`: the tiles, the 12 months of the charts, the live offers' funnels. */
export const ReportSummarySchema = v.object({
  period: PeriodSchema,
  previous_period: PeriodSchema,
  /** The day "today" is for the appointments tile (its previous is the day before). */
  today: v.string(),
  tiles: v.object({
    /** Patients not archived at the end of each period. */
    patients: ComparedSchema,
    /**
     * Patients who joined in the period, by the day they joined the practice (an import's "joined
     * on" day, else the day they were added); imported patients without that day are not new.
     */
    new_patients: ComparedSchema,
    /** Patients imported in the period without the day they joined: shown apart from new. */
    imported_patients: ComparedSchema,
    /** The sum of every balance at the end of each period. */
    points_outstanding: ComparedSchema,
    /** Money only: `points_outstanding` in cents. */
    liability_cents: v.optional(ComparedSchema),
    /**
     * Points earned by visits and bonuses (`earn`, `bonus`), net of their reversals: an undone
     * visit does not count.
     */
    points_earned: ComparedSchema,
    /** Points redeemed, net of reversed redemptions; a positive amount taken off. */
    points_redeemed: ComparedSchema,
    /** Points expired, net of reversed expiries; a positive amount taken off. */
    points_expired: ComparedSchema,
    /**
     * Manual adjustments, net of their reversals, with their sign. With the three above, the
     * period's change of `points_outstanding`: earned − redeemed − expired + adjusted.
     */
    points_adjusted: ComparedSchema,
    offers_claimed: ComparedSchema,
    offers_redeemed: ComparedSchema,
    /** Appointments of the day not cancelled, and of those the completed ones. */
    appointments_booked: ComparedSchema,
    appointments_completed: ComparedSchema,
  }),
  /** Money only: cents per point, the programme's value today. */
  point_value_cents: v.optional(v.number()),
  /** The 12 months ending with the period's last month, oldest first. */
  months: v.array(MonthFiguresSchema),
  offers: v.array(OfferFunnelSchema),
})
export type ReportSummary = v.InferOutput<typeof ReportSummarySchema>

/** A worklist row: the patient, and what makes the row due. */
export const WorklistRowSchema = v.object({
  patient_id: v.number(),
  first_name: v.string(),
  last_name: v.string(),
  /** Points expiring (expiring), the balance (lapsing), else null. */
  points: v.nullable(v.number()),
  /**
   * The day the points lapse, the last visit, the offer's end, the appointment's start, the
   * membership's next payment attempt (null when no retry is left) or the card's last valid day.
   */
  at: v.nullable(v.string()),
  /**
   * The offer's title, the appointment's procedure, the membership's plan (past due) or the card
   * (`Visa ending 4242`).
   */
  label: v.nullable(v.string()),
  /** The offer (offers-ending). */
  promotion_id: v.nullable(v.number()),
  /** The appointment (appointments). */
  appointment_id: v.nullable(v.number()),
  /** The membership (memberships-past-due, cards-expiring). */
  membership_id: v.optional(v.nullable(v.number())),
  /**
   * Money only, memberships-past-due: the amount due (the price of the cycle it owes). Absent for
   * Staff and the other lists.
   */
  amount_cents: v.optional(v.number()),
})
export type WorklistRow = v.InferOutput<typeof WorklistRowSchema>

/** `GET /reports/worklist`: one page of one list. */
export const WorklistPageSchema = v.object({
  list: v.picklist(WORKLIST_LISTS),
  ...pageEntries(WorklistRowSchema),
})
export type WorklistPage = v.InferOutput<typeof WorklistPageSchema>

/** The lines of the liability report, in the order they add up. */
export const LIABILITY_LINES = [
  'opening_points',
  'earned',
  'bonus',
  'adjusted',
  'redeemed',
  'expired',
  'reversed',
  'closing_points',
] as const
export type LiabilityLine = (typeof LIABILITY_LINES)[number]

/** What each line is called on the report and in the CSV. */
export const LIABILITY_LABELS: Record<LiabilityLine, string> = {
  opening_points: 'Opening balance',
  earned: 'Earned (visits)',
  bonus: 'Bonus',
  adjusted: 'Adjusted',
  redeemed: 'Redeemed',
  expired: 'Expired',
  reversed: 'Reversed',
  closing_points: 'Closing balance',
}

/**
 * `GET /reports/liability`: the lines in points and, each, in cents, each movement signed by its
 * effect on the balance (redeemed and expired negative).
 */
export const LiabilityReportSchema = v.object({
  period: PeriodSchema,
  point_value_cents: v.number(),
  opening_points: v.number(),
  earned: v.number(),
  bonus: v.number(),
  adjusted: v.number(),
  redeemed: v.number(),
  expired: v.number(),
  reversed: v.number(),
  closing_points: v.number(),
  opening_cents: v.number(),
  earned_cents: v.number(),
  bonus_cents: v.number(),
  adjusted_cents: v.number(),
  redeemed_cents: v.number(),
  expired_cents: v.number(),
  reversed_cents: v.number(),
  closing_cents: v.number(),
})
export type LiabilityReport = v.InferOutput<typeof LiabilityReportSchema>

/** The cents field of a line. */
export function centsField(line: LiabilityLine): keyof LiabilityReport {
  if (line === 'opening_points') return 'opening_cents'
  if (line === 'closing_points') return 'closing_cents'
  return `${line}_cents`
}

/**
 * Opening plus every movement: what the closing balance must be. Every line of the report, in the
 * answer, on the page and in the CSV, carries its effect on the balance: earned and
 * bonus positive, redeemed and expired negative, adjusted and reversed either way; so the points
 * column sums from the opening to the closing balance.
 */
export function liabilityClosing(report: Pick<LiabilityReport, LiabilityLine>): number {
  return LIABILITY_LINES.reduce(
    (sum, line) => (line === 'closing_points' ? sum : sum + report[line]),
    0,
  )
}

/** The percentage of `part` in `whole`, whole numbers; null when there is no whole. */
export function ratePercent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 100) : null
}

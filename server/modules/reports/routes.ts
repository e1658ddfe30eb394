/**
 * The dashboard's numbers: `GET /reports/summary` and `GET /reports/worklist` for every
 * member of the practice (money fields only for Managers and Admins), and the points liability
 * report `GET /reports/liability` with its CSV (Manager, Admin); all computed in the database by
 * server/modules/reports/service.ts (the exports read their pages with queries.ts).
 *
 * The CSV exports (Manager, Admin): `GET /reports/patients.csv` and
 * `GET /reports/ledger.csv`. Each is streamed: rows are read a page at a time by keyset (`id >
 * last`, never an offset) and written as they come, so a practice of 10,000 patients and 200,000
 * entries never sits in memory. Each export is an audit event (which report, never a value).
 */
import { type Context, Hono } from 'hono'
import { csvRow } from '#domain/csv.ts'
import { type MembershipReport, MembershipReportSchema } from '#domain/membership-reports.ts'
import { can } from '#domain/permissions.ts'
import { formatPhone } from '#domain/phone.ts'
import {
  centsField,
  dayOf,
  LIABILITY_LABELS,
  LIABILITY_LINES,
  type LiabilityReport,
  LiabilityReportSchema,
  monthStart,
  periodDays,
  REPORT_MAX_DAYS,
  REPORT_MESSAGES,
  ReportPeriodQuerySchema,
  ReportSummarySchema,
  WORKLIST_PAGE_SIZE,
  WorklistPageSchema,
  WorklistQuerySchema,
} from '#domain/reports.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { parseOr400 } from '#server/http/validate.ts'
import { createBillingClock } from '#server/modules/memberships/index.ts'
import { operation } from '#server/openapi/operation.ts'
import { answerCsvExport, csvStream, EXPORT_PAGE_SIZE } from './csv-export-routes.ts'
import { membershipReport } from './membership-report.ts'
import { ledgerExportPage, patientExportPage } from './queries.ts'
import { liabilityReport, reportSummary, worklistPage } from './service.ts'

export const PATIENT_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'birth_date',
  'points',
  'email_subscription',
  'sms_subscription',
  'archived',
  'last_visit_at',
  'created_at',
] as const

export const LEDGER_COLUMNS = [
  'id',
  'created_at',
  'patient_id',
  'patient_first_name',
  'patient_last_name',
  'kind',
  'points',
  'balance_after',
  'source_type',
  'source_id',
  'reason',
  'expires_at',
  'reverses_id',
  'created_by_id',
  'created_by',
] as const

/** The columns of the liability CSV. */
export const LIABILITY_COLUMNS = ['line', 'points', 'dollars'] as const

/**
 * The period a report covers: `from`..`to` (UTC days, both included), by default this month so
 * far. Refused with a 400 naming the problem when a day is malformed, the order is wrong or the
 * period too long.
 */
export function reportPeriod(query: unknown, now: Date): { from: string; to: string } {
  const parsed = parseOr400(ReportPeriodQuerySchema, query)
  const today = dayOf(now)
  const to = parsed.to ?? today
  const from = parsed.from ?? monthStart(to)
  if (from > to) throw badRequest(REPORT_MESSAGES.order, { from, to })
  if (periodDays(from, to) > REPORT_MAX_DAYS)
    throw badRequest(REPORT_MESSAGES.tooLong, { from, to })
  return { from, to }
}

/** Cents as dollars, a number (a sheet sums it; a negative one is not taken for a formula). */
const dollars = (cents: number) => cents / 100

/** The liability report as CSV rows: each line in points and dollars. */
export function liabilityCsv(report: LiabilityReport): string {
  return [
    csvRow(LIABILITY_COLUMNS),
    ...LIABILITY_LINES.map((line) =>
      csvRow([LIABILITY_LABELS[line], report[line], dollars(report[centsField(line)] as number)]),
    ),
  ].join('')
}

/** The columns of the memberships report's CSV: one figure a line, months for the movement. */
export const MEMBERSHIP_REPORT_COLUMNS = ['measure', 'month', 'value'] as const

/**
 * The memberships report as CSV lines `measure, month, value`: the counts and rates, then (money
 * only) MRR, each month's movement and the bank, in dollars. Staff get the counts only.
 */
export function membershipReportCsv(report: MembershipReport): string {
  const lines: [string, string, number | string | null][] = [
    ['from', '', report.from],
    ['to', '', report.to],
    ['active', '', report.active],
    ['new', '', report.new],
    ['paused', '', report.paused],
    ['past_due', '', report.past_due],
    ['unpaid', '', report.unpaid],
    ['cancelled', '', report.cancelled],
    ['cancelled_by_patient', '', report.cancelled_by_reason.patient],
    ['cancelled_by_staff', '', report.cancelled_by_reason.staff],
    ['cancelled_for_failed_payment', '', report.cancelled_by_reason.failed_payment],
    ['members_at_start', '', report.members_at_start],
    ['churned', '', report.churned],
    ['churn_rate', '', report.churn_rate],
    ['past_due_recovered', '', report.recovered],
    ['past_due_not_recovered', '', report.not_recovered],
    ['recovery_rate', '', report.recovery_rate],
  ]
  if (report.mrr_cents !== undefined) lines.push(['mrr_dollars', '', dollars(report.mrr_cents)])
  for (const month of report.mrr_movement ?? []) {
    for (const [key, value] of Object.entries(month)) {
      if (key !== 'month') {
        lines.push([key.replace(/_cents$/, '_dollars'), month.month, dollars(value as number)])
      }
    }
  }
  if (report.bank) {
    for (const [key, value] of Object.entries(report.bank)) {
      lines.push([`bank_${key.replace(/_cents$/, '_dollars')}`, '', dollars(value)])
    }
  }
  for (const item of report.allowances_outstanding) {
    lines.push([`allowance_units:${item.name}`, '', item.units])
    if (item.value_cents !== undefined) {
      lines.push([`allowance_dollars:${item.name}`, '', dollars(item.value_cents)])
    }
  }
  return [csvRow(MEMBERSHIP_REPORT_COLUMNS), ...lines.map((line) => csvRow(line))].join('')
}

/** `/reports`. */
export function reportRoutes(ctx: ServerContext) {
  /** `name-YYYY-MM-DD.csv`, the day of the export. */
  const fileName = (name: string) => `${name}-${ctx.now().toISOString().slice(0, 10)}.csv`
  /** The liability report of the period the query names, for the member's practice. */
  const liabilityOf = async (c: Context<AppEnv>) => {
    const period = reportPeriod(c.req.query(), ctx.now())
    const report = await liabilityReport(ctx.db, { practiceId: c.var.user.practice_id, ...period })
    return { period, report }
  }
  /**
   * The memberships report of the period the query names. Memberships live on the billing clock
   * (`POST /dev/clock` moves it outside production), so "today" is the billing clock's day.
   */
  const membershipsOf = async (c: Context<AppEnv>) => {
    const user = c.var.user
    const now = await createBillingClock(ctx.db, ctx.now).now()
    const period = reportPeriod(c.req.query(), now)
    // Without `from`: the 12 months to `to`, from the first day of the 11th month before it.
    const from = c.req.query('from')
      ? period.from
      : new Date(Date.UTC(Number(period.to.slice(0, 4)), Number(period.to.slice(5, 7)) - 12, 1))
          .toISOString()
          .slice(0, 10)
    return membershipReport(ctx.db, {
      practiceId: user.practice_id,
      from,
      to: period.to,
      today: dayOf(now),
      money: can(user.access_rights, 'reports.money'),
    })
  }
  const membershipsDescription = `For \`from\`..\`to\` (UTC days, both included; \`to\` by default today on the billing clock, \`from\` by default the first day of the 12 months that end with \`to\`'s month; at most ${REPORT_MAX_DAYS} days): memberships by status at the end of the period, new and cancelled (by reason) in it; churn rate (members active, past due or paused at the start who are cancelled, ended or unpaid at the end, over those members) and the failed-payment recovery rate (past-due episodes ended in the period by a paid retry, over those ended at all); live members' allowances left this cycle. Money (Manager, Admin; absent for Staff): MRR (each active or past-due membership's price normalised to a month: a quarter's / 3, a year's / 12, rounded to the cent), its movement month by month (opening + new + expansion − contraction − voluntary churn − involuntary churn + reactivation = closing, to the cent; a pause is contraction and its resumption expansion), the bank's roll-forward (opening + paid in − used − refunded = closing, equal to the members' banks when the period ends today) and the allowances' value at catalogue prices. Computed in the database.`

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/summary',
      operation({
        summary: "The dashboard's numbers",
        description: `The tiles for the period \`from\`..\`to\` (UTC days, both included; by default this month so far, at most ${REPORT_MAX_DAYS} days), each with the same figure for the period of the same length just before: patients and new patients, points outstanding, earned (earn and bonus), redeemed, expired and adjusted, each net of the reversals posted in the period (an undone visit is not earned), so that outstanding at the start + earned − redeemed − expired + adjusted = outstanding at the end; offers claimed and redeemed, today's appointments booked and completed (against yesterday). Then the 12 months ending with the period's month (points earned, redeemed, expired, net of reversals; new patients) and the funnel (claimed, redeemed) of each live offer. Computed in the database. The money fields (\`liability_cents\`, \`point_value_cents\`) only for a Manager or an Admin; absent for Staff.`,
        tag: 'Reports',
        query: ReportPeriodQuerySchema,
        responses: {
          200: {
            description: 'The tiles, the months and the live offers.',
            json: ReportSummarySchema,
          },
          400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
        },
      }),
      requirePermission(ctx, 'patients.read'),
      async (c) => {
        const user = c.var.user
        const now = ctx.now()
        const period = reportPeriod(c.req.query(), now)
        const summary = await reportSummary(ctx.db, {
          practiceId: user.practice_id,
          ...period,
          now,
          money: can(user.access_rights, 'reports.money'),
        })
        return c.json(summary)
      },
    )
    .get(
      '/worklist',
      operation({
        summary: "A page of the dashboard's worklist",
        description:
          "One of six lists, paged (`pageSize` up to 100, default 10) with its total: `expiring` (patients whose points lapse in the next 30 days: the points and the first day), `lapsing` (patients with points and no visit for 90 days: the balance and the last visit), `offers-ending` (claimed offers that end within 7 days: the offer and its end), `appointments` (today's appointments not yet completed: the time and the procedure), `memberships-past-due` (members whose renewal was declined: the plan, the next retry and, for a Manager or an Admin, the amount due), `cards-expiring` (live memberships whose card expires at the end of this month on the billing clock: the card and its last day). Archived patients are left out.",
        tag: 'Reports',
        query: WorklistQuerySchema,
        responses: {
          200: { description: 'The page.', json: WorklistPageSchema },
          400: 'The list is unknown, or the page or page size is not a whole number in range.',
        },
      }),
      requirePermission(ctx, 'patients.read'),
      async (c) => {
        const query = parseOr400(WorklistQuerySchema, c.req.query())
        const page = query.page ?? 1
        const pageSize = query.pageSize ?? WORKLIST_PAGE_SIZE
        const found = await worklistPage(ctx.db, {
          practiceId: c.var.user.practice_id,
          list: query.list,
          page,
          pageSize,
          now: ctx.now(),
          billingNow: await createBillingClock(ctx.db, ctx.now).now(),
          money: can(c.var.user.access_rights, 'reports.money'),
        })
        return c.json({ list: query.list, ...found, page, pageSize })
      },
    )
    .get(
      '/memberships',
      operation({
        summary: 'The memberships report',
        description: membershipsDescription,
        tag: 'Reports',
        query: ReportPeriodQuerySchema,
        responses: {
          200: {
            description: 'The counts, rates and (money only) MRR and the bank.',
            json: MembershipReportSchema,
          },
          400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
        },
      }),
      requirePermission(ctx, 'patients.read'),
      async (c) => c.json(await membershipsOf(c)),
    )
    .get(
      '/memberships.csv',
      operation({
        summary: 'Export the memberships report as CSV',
        description:
          'The memberships report of `from`..`to` as lines `measure, month, value` (money in dollars, the movement one line per month and measure). Staff get the counts and rates only. Audited.',
        tag: 'Reports',
        query: ReportPeriodQuerySchema,
        responses: {
          200: { description: 'The CSV file (attachment).', media: ['text/csv'] },
          400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
        },
      }),
      requirePermission(ctx, 'patients.read'),
      async (c) => {
        const report = await membershipsOf(c)
        return answerCsvExport(ctx, c, {
          report: 'memberships',
          filename: `memberships-${report.from}-to-${report.to}.csv`,
          body: membershipReportCsv(report),
        })
      },
    )
    .get(
      '/liability',
      operation({
        summary: 'The points liability report',
        description: `For \`from\`..\`to\` (UTC days, both included; by default this month so far, at most ${REPORT_MAX_DAYS} days): the opening balance of all patients, the points earned, given as bonus, adjusted, redeemed, expired and reversed in the period and the closing balance, each also in cents at the programme's point value. Every movement carries its effect on the balance (redeemed and expired negative, adjusted and reversed either way), so opening + earned + bonus + adjusted + redeemed + expired + reversed = closing, exactly; the closing balance of a period ending today is the sum of all balances. Manager, Admin.`,
        tag: 'Reports',
        query: ReportPeriodQuerySchema,
        responses: {
          200: { description: 'The report.', json: LiabilityReportSchema },
          400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
        },
      }),
      requirePermission(ctx, 'reports.money'),
      async (c) => c.json((await liabilityOf(c)).report),
    )
    .get(
      '/liability.csv',
      operation({
        summary: 'Export the liability report as CSV',
        description:
          'The liability report of `from`..`to` as the lines `line, points, dollars`, for the accountant. Audited. Manager, Admin.',
        tag: 'Reports',
        query: ReportPeriodQuerySchema,
        responses: {
          200: { description: 'The CSV file (attachment).', media: ['text/csv'] },
          400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
        },
      }),
      requirePermission(ctx, 'reports.money'),
      async (c) => {
        const { period, report } = await liabilityOf(c)
        return answerCsvExport(ctx, c, {
          report: 'liability',
          filename: `liability-${period.from}-to-${period.to}.csv`,
          body: liabilityCsv(report),
        })
      },
    )
    .get(
      '/patients.csv',
      operation({
        summary: 'Export the patients as CSV',
        description:
          'Every patient of the practice (archived ones too), streamed a page at a time: contact details (phones formatted for their country, e.g. (408) 555-4743), balance, subscriptions, last visit. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Manager, Admin.',
        tag: 'Reports',
        responses: { 200: { description: 'The CSV file (attachment).', media: ['text/csv'] } },
      }),
      requirePermission(ctx, 'reports.money'),
      async (c) => {
        const practiceId = c.var.user.practice_id
        const body = csvStream(PATIENT_COLUMNS, async (after = 0) => {
          const rows = await patientExportPage(ctx.db, practiceId, after, EXPORT_PAGE_SIZE)
          return rows.map((p) => ({
            id: p.id,
            cells: [
              p.id,
              p.first_name,
              p.last_name,
              p.email,
              // As people write it ("(408) 555-4743"): a sheet keeps it as text, with no formula
              // guard's apostrophe, and an import reads it back as the same E.164 number.
              formatPhone(p.phone) || null,
              p.birth_date,
              p.points,
              p.email_subscription,
              p.sms_subscription,
              p.archived_at !== null,
              p.last_visit_at,
              p.created_at,
            ],
          }))
        })
        return answerCsvExport(ctx, c, { report: 'patients', filename: fileName('patients'), body })
      },
    )
    .get(
      '/ledger.csv',
      operation({
        summary: 'Export the points ledger as CSV',
        description:
          "Every ledger entry of the practice, oldest first, streamed a page at a time, with the patient's name and the staff member. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Manager, Admin.",
        tag: 'Reports',
        responses: { 200: { description: 'The CSV file (attachment).', media: ['text/csv'] } },
      }),
      requirePermission(ctx, 'reports.money'),
      async (c) => {
        const practiceId = c.var.user.practice_id
        const body = csvStream(LEDGER_COLUMNS, async (after = 0) => {
          const rows = await ledgerExportPage(ctx.db, practiceId, after, EXPORT_PAGE_SIZE)
          return rows.map(({ entry: e, ...r }) => ({
            id: e.id,
            cells: [
              e.id,
              e.created_at,
              e.patient_id,
              r.first_name,
              r.last_name,
              e.kind,
              e.points,
              e.balance_after,
              e.source_type,
              e.source_id,
              e.reason,
              e.expires_at,
              e.reverses_id,
              e.created_by,
              r.author_first ? `${r.author_first} ${r.author_last ?? ''}`.trim() : null,
            ],
          }))
        })
        return answerCsvExport(ctx, c, { report: 'ledger', filename: fileName('ledger'), body })
      },
    )
}

/**
 * The dashboard's numbers, its worklist and the points liability report, each computed by the database in a few aggregate queries: counts with
 * FILTER, sums of the ledger's daily totals (`ledger_daily`, kept by a trigger), GROUP BY month.
 * No patient or entry row is ever loaded into the app to be counted here.
 *
 * Days are UTC days, as everywhere in the product. A period `from`..`to` includes both days.
 */
import { type SQL, sql } from 'drizzle-orm'
import {
  addDays,
  type Compared,
  type LiabilityReport,
  type MonthFigures,
  monthStart,
  type OfferFunnel,
  previousPeriod,
  type ReportSummary,
  WORKLIST_WINDOWS,
  type WorklistList,
  type WorklistRow,
} from '#domain/reports.ts'
import { DAY_MS } from '#domain/time.ts'
import type { Database } from '#server/db/client.ts'
import { funnelFor } from '#server/modules/promotions/index.ts'

/** An instant as a parameter the database reads as `timestamptz` (the same on both drivers). */
const ts = (date: Date) => sql`${date.toISOString()}::timestamptz`

/** A day's first instant, as a timestamp the database compares with. */
const startOf = (day: string) => ts(new Date(`${day}T00:00:00.000Z`))

/** A calendar day as a parameter the database reads as `date`. */
const dt = (day: string) => sql`${day}::date`

/** An instant as ISO text, in UTC, written by the database (the same on PGlite and PostgreSQL). */
const iso = (column: SQL) =>
  sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

async function rows<T>(db: Database, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows
}

async function one<T>(db: Database, query: SQL): Promise<T> {
  const [row] = await rows<T>(db, query)
  if (!row) throw new Error('An aggregate answered no row')
  return row
}

const compared = (current: unknown, previous: unknown): Compared => ({
  current: Number(current ?? 0),
  previous: Number(previous ?? 0),
})

/** The sum of every kind of a `ledger_daily` row: the day's change of all balances. */
const DAY_TOTAL = sql.raw('(earn + bonus + adjust + redeem + expire + reverse)')

/**
 * The dashboard's movements, net of reversals: a reversal counts against the kind of
 * the entry it cancels, on the day it is posted, so an undone visit is not earned and a reversed
 * redemption is not redeemed. Redeemed and expired are positive amounts taken off; adjusted keeps
 * its sign. Over any period, outstanding at its end = outstanding at its start + earned −
 * redeemed − expired + adjusted.
 */
const NET = {
  earned: sql.raw('(earn + bonus + reverse_earn + reverse_bonus)'),
  redeemed: sql.raw('(-(redeem + reverse_redeem))'),
  expired: sql.raw('(-(expire + reverse_expire))'),
  adjusted: sql.raw('(adjust + reverse_adjust)'),
} as const

/**
 * The funnel of each offer live at `now` (started, not ended): claims and redemptions from
 * `patient_promotions`. Kept in one place on purpose: when promotions carry their own status and
 * their sends (`promotion_sends`), this is the one query to change for `status = 'live'` and `sent`.
 */
export async function liveOfferFunnels(
  db: Database,
  practiceId: number,
  now: Date,
): Promise<OfferFunnel[]> {
  const found = await rows<{
    id: number
    title: string
    starts_at: string | null
    ends_at: string | null
    claimed: number
    redeemed: number
  }>(
    db,
    sql`select p.id, p.title, ${iso(sql`p.starts_at`)} as starts_at, ${iso(sql`p.ends_at`)} as ends_at,
          count(pp.patient_id)::int as claimed,
          (count(pp.patient_id) filter (where pp.status = 'redeemed'))::int as redeemed
        from promotions p
        left join patient_promotions pp on pp.promotion_id = p.id
        where p.practice_id = ${practiceId}
          and p.published_at is not null and p.ended_at is null and p.archived_at is null
          and (p.starts_at is null or p.starts_at <= ${ts(now)})
          and (p.ends_at is null or p.ends_at > ${ts(now)})
        group by p.id
        order by p.ends_at asc nulls last, p.id`,
  )
  // Sent and expired as the offer's own page counts them (one definition of the funnel).
  const funnels = await funnelFor(
    db,
    practiceId,
    found.map((row) => Number(row.id)),
    now,
  )
  return found.map((row) => ({
    ...row,
    id: Number(row.id),
    sent: funnels.get(Number(row.id))?.sent ?? 0,
    claimed: Number(row.claimed),
    redeemed: Number(row.redeemed),
    expired: funnels.get(Number(row.id))?.expired ?? 0,
  }))
}

/** The twelve `YYYY-MM` months ending with `day`'s month, oldest first. */
function twelveMonths(day: string): string[] {
  const year = Number(day.slice(0, 4))
  const month = Number(day.slice(5, 7)) - 1
  return Array.from({ length: 12 }, (_, i) => {
    const date = new Date(Date.UTC(year, month - 11 + i, 1))
    return date.toISOString().slice(0, 7)
  })
}

export type SummaryInput = {
  practiceId: number
  from: string
  to: string
  now: Date
  /** Whether the reader may see money: else the money fields are left out. */
  money: boolean
}

/** `GET /reports/summary`: the tiles against the previous period, 12 months, live offers. */
export async function reportSummary(db: Database, input: SummaryInput): Promise<ReportSummary> {
  const { practiceId, from, to, now } = input
  const previous = previousPeriod(from, to)
  const end = startOf(addDays(to, 1))
  const start = startOf(from)
  const previousStart = startOf(previous.from)
  const months = twelveMonths(to)
  const seriesFrom = `${months[0]}-01`
  // The first day after the last month.
  const seriesEndDay = monthStart(addDays(`${months[11]}-28`, 7))
  const today = now.toISOString().slice(0, 10)
  const todayStart = startOf(today)
  const tomorrow = startOf(addDays(today, 1))
  const yesterday = startOf(addDays(today, -1))

  const inPeriod = sql`day >= ${dt(from)} and day <= ${dt(to)}`
  const inPrevious = sql`day >= ${dt(previous.from)} and day < ${dt(from)}`
  const points = await one<Record<string, unknown>>(
    db,
    sql`select
          coalesce(sum(${DAY_TOTAL}) filter (where day <= ${dt(to)}), 0)::bigint as outstanding,
          coalesce(sum(${DAY_TOTAL}) filter (where day < ${dt(from)}), 0)::bigint as outstanding_before,
          coalesce(sum(${NET.earned}) filter (where ${inPeriod}), 0)::bigint as earned,
          coalesce(sum(${NET.earned}) filter (where ${inPrevious}), 0)::bigint as earned_before,
          coalesce(sum(${NET.redeemed}) filter (where ${inPeriod}), 0)::bigint as redeemed,
          coalesce(sum(${NET.redeemed}) filter (where ${inPrevious}), 0)::bigint as redeemed_before,
          coalesce(sum(${NET.expired}) filter (where ${inPeriod}), 0)::bigint as expired,
          coalesce(sum(${NET.expired}) filter (where ${inPrevious}), 0)::bigint as expired_before,
          coalesce(sum(${NET.adjusted}) filter (where ${inPeriod}), 0)::bigint as adjusted,
          coalesce(sum(${NET.adjusted}) filter (where ${inPrevious}), 0)::bigint as adjusted_before
        from ledger_daily where practice_id = ${practiceId}`,
  )
  // Patients count by the day they joined the practice: an import's "joined on" day, else the
  // day they were added. Imported without that day, they are counted apart from new. The database
  // keeps these counts per day (patient_daily, migration 0033), so the cost follows the days, not
  // the patients: in the count on a day are those who joined on or before it and had not left.
  const people = await one<Record<string, unknown>>(
    db,
    sql`select
          coalesce(sum(joined - left_count) filter (where day <= ${dt(to)}), 0)::int as patients,
          coalesce(sum(joined - left_count) filter (where day < ${dt(from)}), 0)::int as patients_before,
          coalesce(sum(joined_dated) filter (where ${inPeriod}), 0)::int as joined,
          coalesce(sum(joined_dated) filter (where ${inPrevious}), 0)::int as joined_before,
          coalesce(sum(joined - joined_dated) filter (where ${inPeriod}), 0)::int as imported,
          coalesce(sum(joined - joined_dated) filter (where ${inPrevious}), 0)::int as imported_before
        from patient_daily where practice_id = ${practiceId}`,
  )
  const offers = await one<Record<string, unknown>>(
    db,
    sql`select
          (count(*) filter (where pp.claimed_at >= ${start} and pp.claimed_at < ${end}))::int as claimed,
          (count(*) filter (where pp.claimed_at >= ${previousStart} and pp.claimed_at < ${start}))::int as claimed_before,
          (count(*) filter (where pp.redeemed_at >= ${start} and pp.redeemed_at < ${end}))::int as redeemed,
          (count(*) filter (where pp.redeemed_at >= ${previousStart} and pp.redeemed_at < ${start}))::int as redeemed_before
        from patient_promotions pp join promotions p on p.id = pp.promotion_id
        where p.practice_id = ${practiceId}
          and ((pp.claimed_at >= ${previousStart} and pp.claimed_at < ${end})
            or (pp.redeemed_at >= ${previousStart} and pp.redeemed_at < ${end}))`,
  )
  const visits = await one<Record<string, unknown>>(
    db,
    sql`select
          (count(*) filter (where starts_at >= ${todayStart} and status <> 'cancelled'))::int as booked,
          (count(*) filter (where starts_at < ${todayStart} and status <> 'cancelled'))::int as booked_before,
          (count(*) filter (where starts_at >= ${todayStart} and status = 'completed'))::int as completed,
          (count(*) filter (where starts_at < ${todayStart} and status = 'completed'))::int as completed_before
        from appointments
        where practice_id = ${practiceId} and starts_at >= ${yesterday} and starts_at < ${tomorrow}`,
  )
  const ledgerMonths = await rows<{
    month: string
    earned: unknown
    redeemed: unknown
    expired: unknown
  }>(
    db,
    sql`select to_char(day, 'YYYY-MM') as month,
          sum(${NET.earned})::bigint as earned, sum(${NET.redeemed})::bigint as redeemed,
          sum(${NET.expired})::bigint as expired
        from ledger_daily
        where practice_id = ${practiceId} and day >= ${dt(seriesFrom)} and day < ${dt(seriesEndDay)}
        group by 1`,
  )
  const joinedMonths = await rows<{ month: string; joined: unknown }>(
    db,
    sql`select to_char(day, 'YYYY-MM') as month, sum(joined_dated)::int as joined
        from patient_daily
        where practice_id = ${practiceId} and day >= ${dt(seriesFrom)} and day < ${dt(seriesEndDay)}
        group by 1`,
  )
  const byMonth = new Map(ledgerMonths.map((row) => [row.month, row]))
  const joinedBy = new Map(joinedMonths.map((row) => [row.month, Number(row.joined)]))
  const series: MonthFigures[] = months.map((month) => {
    const row = byMonth.get(month)
    return {
      month,
      earned: Number(row?.earned ?? 0),
      redeemed: Number(row?.redeemed ?? 0),
      expired: Number(row?.expired ?? 0),
      new_patients: joinedBy.get(month) ?? 0,
    }
  })

  const outstanding = compared(points.outstanding, points.outstanding_before)
  const tiles: ReportSummary['tiles'] = {
    patients: compared(people.patients, people.patients_before),
    new_patients: compared(people.joined, people.joined_before),
    imported_patients: compared(people.imported, people.imported_before),
    points_outstanding: outstanding,
    points_earned: compared(points.earned, points.earned_before),
    points_redeemed: compared(points.redeemed, points.redeemed_before),
    points_expired: compared(points.expired, points.expired_before),
    points_adjusted: compared(points.adjusted, points.adjusted_before),
    offers_claimed: compared(offers.claimed, offers.claimed_before),
    offers_redeemed: compared(offers.redeemed, offers.redeemed_before),
    appointments_booked: compared(visits.booked, visits.booked_before),
    appointments_completed: compared(visits.completed, visits.completed_before),
  }
  const summary: ReportSummary = {
    period: { from, to },
    previous_period: previous,
    today,
    tiles,
    months: series,
    offers: await liveOfferFunnels(db, practiceId, now),
  }
  if (input.money) {
    const value = await pointValueCents(db, practiceId)
    summary.point_value_cents = value
    tiles.liability_cents = {
      current: outstanding.current * value,
      previous: outstanding.previous * value,
    }
  }
  return summary
}

/** The programme's point value in cents, today. */
async function pointValueCents(db: Database, practiceId: number): Promise<number> {
  const row = await one<{ value: unknown }>(
    db,
    sql`select point_value_cents as value from practices where id = ${practiceId}`,
  )
  return Number(row.value)
}

/**
 * `GET /reports/liability`: the balance at the start of `from`, each kind's movement over the
 * period and the balance at the end of `to`, in one statement over the daily sums. Every movement
 * carries its effect on the balance (one sign convention, redeemed and expired negative),
 * so the lines add up exactly: opening + earned + bonus + adjusted + redeemed + expired + reversed
 * = closing. Cents are each line times the programme's point value.
 */
export async function liabilityReport(
  db: Database,
  { practiceId, from, to }: { practiceId: number; from: string; to: string },
): Promise<LiabilityReport> {
  const row = await one<Record<string, unknown>>(
    db,
    sql`select
          coalesce(sum(${DAY_TOTAL}) filter (where day < ${dt(from)}), 0)::bigint as opening_points,
          coalesce(sum(earn) filter (where day >= ${dt(from)}), 0)::bigint as earned,
          coalesce(sum(bonus) filter (where day >= ${dt(from)}), 0)::bigint as bonus,
          coalesce(sum(adjust) filter (where day >= ${dt(from)}), 0)::bigint as adjusted,
          coalesce(sum(redeem) filter (where day >= ${dt(from)}), 0)::bigint as redeemed,
          coalesce(sum(expire) filter (where day >= ${dt(from)}), 0)::bigint as expired,
          coalesce(sum(reverse) filter (where day >= ${dt(from)}), 0)::bigint as reversed,
          coalesce(sum(${DAY_TOTAL}), 0)::bigint as closing_points,
          (select point_value_cents from practices where id = ${practiceId}) as point_value_cents
        from ledger_daily where practice_id = ${practiceId} and day <= ${dt(to)}`,
  )
  const n = (key: string) => Number(row[key] ?? 0)
  const value = n('point_value_cents')
  return {
    period: { from, to },
    point_value_cents: value,
    opening_points: n('opening_points'),
    earned: n('earned'),
    bonus: n('bonus'),
    adjusted: n('adjusted'),
    redeemed: n('redeemed'),
    expired: n('expired'),
    reversed: n('reversed'),
    closing_points: n('closing_points'),
    opening_cents: n('opening_points') * value,
    earned_cents: n('earned') * value,
    bonus_cents: n('bonus') * value,
    adjusted_cents: n('adjusted') * value,
    redeemed_cents: n('redeemed') * value,
    expired_cents: n('expired') * value,
    reversed_cents: n('reversed') * value,
    closing_cents: n('closing_points') * value,
  }
}

type RawRow = {
  patient_id: unknown
  first_name: string
  last_name: string
  points: unknown
  at: string | null
  label: string | null
  promotion_id: unknown
  appointment_id: unknown
  membership_id?: unknown
  amount?: unknown
  total: unknown
}

/**
 * The query of each list: its rows in order, each with `count(*) over ()` as `total`. The
 * memberships' lists read the billing clock's `billingNow` (the same as `now` in production).
 */
function worklistQuery(
  list: WorklistList,
  practiceId: number,
  now: Date,
  billingNow: Date = now,
): SQL {
  const today = now.toISOString().slice(0, 10)
  switch (list) {
    case 'memberships-past-due':
      // The amount due is the cycle it owes: at the version it renews on (a change set for the
      // renewal included).
      return sql`select p.id as patient_id, p.first_name, p.last_name, null as points,
            ${iso(sql`m.next_payment_attempt_at`)} as at, pl.name as label, null as promotion_id,
            null as appointment_id, m.id as membership_id, v.price_cents as amount,
            count(*) over () as total
          from memberships m
          join patients p on p.id = m.patient_id and p.archived_at is null
          join membership_plan_versions v on v.id = coalesce(m.next_plan_version_id, m.plan_version_id)
          join membership_plans pl on pl.id = v.plan_id
          where m.practice_id = ${practiceId} and m.status = 'past_due'
          order by m.next_payment_attempt_at asc nulls last, m.id`
    case 'cards-expiring': {
      // A card works to the end of its expiry month: those of this month stop at its last day.
      const year = billingNow.getUTCFullYear()
      const month = billingNow.getUTCMonth() + 1
      const lastDay = new Date(Date.UTC(year, month, 0, 12)).toISOString()
      return sql`select p.id as patient_id, p.first_name, p.last_name, null as points,
            ${lastDay}::text as at, m.card_brand || ' ending ' || m.card_last4 as label,
            null as promotion_id, null as appointment_id, m.id as membership_id,
            null as amount, count(*) over () as total
          from memberships m
          join patients p on p.id = m.patient_id and p.archived_at is null
          where m.practice_id = ${practiceId}
            and m.status in ('active', 'past_due', 'paused', 'unpaid')
            and m.card_exp_year = ${year} and m.card_exp_month = ${month}
          order by p.last_name, p.first_name, m.id`
    }
    case 'expiring': {
      const until = new Date(now.getTime() + WORKLIST_WINDOWS.expiringDays * DAY_MS)
      return sql`select lots.patient_id, p.first_name, p.last_name, lots.points,
            ${iso(sql`lots.at`)} as at, null as label, null as promotion_id, null as appointment_id,
            count(*) over () as total
          from (
            select e.patient_id, sum(e.points - coalesce(used.points, 0))::int as points,
              min(e.expires_at) as at
            from ledger_entries e
            left join lateral (
              select sum(a.points) as points from ledger_allocations a where a.lot_entry_id = e.id
            ) used on true
            where e.practice_id = ${practiceId} and e.expires_at is not null
              and e.expires_at > ${ts(now)} and e.expires_at <= ${ts(until)}
              and e.kind in ('earn', 'bonus', 'adjust') and e.points > 0
              and e.points - coalesce(used.points, 0) > 0
            group by e.patient_id
          ) lots
          join patients p on p.id = lots.patient_id and p.archived_at is null
          order by lots.at, lots.patient_id`
    }
    case 'lapsing': {
      const since = new Date(now.getTime() - WORKLIST_WINDOWS.lapsingDays * DAY_MS)
      return sql`select p.id as patient_id, p.first_name, p.last_name, p.points,
            ${iso(sql`p.last_visit_at`)} as at, null as label, null as promotion_id,
            null as appointment_id, count(*) over () as total
          from patients p
          where p.practice_id = ${practiceId} and p.archived_at is null and p.points > 0
            and coalesce(p.last_visit_at, p.created_at) < ${ts(since)}
          order by p.last_visit_at asc nulls first, p.id`
    }
    case 'offers-ending': {
      const until = new Date(now.getTime() + WORKLIST_WINDOWS.offersEndingDays * DAY_MS)
      return sql`select p.id as patient_id, p.first_name, p.last_name, null as points,
            ${iso(sql`coalesce(pp.ends_at, o.ends_at)`)} as at,
            coalesce(pp.title, o.title) as label, o.id as promotion_id,
            null as appointment_id, count(*) over () as total
          from patient_promotions pp
          join promotions o on o.id = pp.promotion_id
          join patients p on p.id = pp.patient_id and p.archived_at is null
          where o.practice_id = ${practiceId} and pp.status = 'claimed'
            and coalesce(pp.ends_at, o.ends_at) > ${ts(now)}
            and coalesce(pp.ends_at, o.ends_at) <= ${ts(until)}
          order by coalesce(pp.ends_at, o.ends_at), p.last_name, p.first_name, p.id`
    }
    case 'appointments':
      return sql`select p.id as patient_id, p.first_name, p.last_name, null as points,
            ${iso(sql`a.starts_at`)} as at, pr.name as label, null as promotion_id,
            a.id as appointment_id, count(*) over () as total
          from appointments a
          join patients p on p.id = a.patient_id
          left join procedures pr on pr.id = a.procedure_id
          where a.practice_id = ${practiceId} and a.status = 'scheduled'
            and a.starts_at >= ${startOf(today)} and a.starts_at < ${startOf(addDays(today, 1))}
          order by a.starts_at, a.id`
  }
}

/** `GET /reports/worklist`: one page of one list, with the list's total. */
export async function worklistPage(
  db: Database,
  input: {
    practiceId: number
    list: WorklistList
    page: number
    pageSize: number
    now: Date
    /** The billing clock's time, for the memberships' lists; `now` without it. */
    billingNow?: Date
    /** Whether the reader may see money (the amount a member owes); else it is left out. */
    money?: boolean
  },
): Promise<{ data: WorklistRow[]; total: number }> {
  const { practiceId, list, page, pageSize, now } = input
  const query = worklistQuery(list, practiceId, now, input.billingNow)
  const found = await rows<RawRow>(
    db,
    sql`${query} limit ${pageSize} offset ${(page - 1) * pageSize}`,
  )
  let total = Number(found[0]?.total ?? 0)
  if (found.length === 0 && page > 1) {
    // Past the last page: the total still says how many there are.
    const counted = await one<{ n: unknown }>(db, sql`select count(*) as n from (${query}) listed`)
    total = Number(counted.n)
  }
  const orNull = (value: unknown) => (value === null || value === undefined ? null : Number(value))
  return {
    total,
    data: found.map((row) => ({
      patient_id: Number(row.patient_id),
      first_name: row.first_name,
      last_name: row.last_name,
      points: orNull(row.points),
      at: row.at,
      label: row.label,
      promotion_id: orNull(row.promotion_id),
      appointment_id: orNull(row.appointment_id),
      ...(row.membership_id === undefined ? {} : { membership_id: orNull(row.membership_id) }),
      ...(input.money && row.amount !== undefined && row.amount !== null
        ? { amount_cents: Number(row.amount) }
        : {}),
    })),
  }
}

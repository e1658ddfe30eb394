/**
 * `GET /reports/memberships`: the memberships dashboard's numbers, computed by the database in a
 * few aggregate statements (definitions in domain/membership-reports.ts). No membership is loaded
 * into the app to be counted.
 *
 * History is read from what billing writes, at the billing clock's instants:
 * - a membership's **status** over time from its events (`enrolled` and `resumed` make it active;
 *   `past_due`, `unpaid`, `paused`, `cancelled`, `ended` are their own) and from the renewals paid
 *   by a retry (`membership_charges`, attempt > 1: a past-due or unpaid member active again);
 * - its **plan version** over time from its paid cycles (`membership_cycles`) and its changes of
 *   plan now (`membership_events.plan_version_id`, migration 0042).
 * The state at an instant is the one after every change before it; a change at exactly a month's
 * first instant belongs to that month. Each read uses an index on (practice, time).
 */
import { type SQL, sql } from 'drizzle-orm'
import type {
  MembershipReport,
  MembershipReportAllowance,
  MembershipReportMrrMonth,
} from '#domain/membership-reports.ts'
import { reportRate } from '#domain/membership-reports.ts'
import { addDays } from '#domain/report-period.ts'
import type { Database } from '#server/db/client.ts'

const ts = (date: Date) => sql`${date.toISOString()}::timestamptz`
const startOf = (day: string) => new Date(`${day}T00:00:00.000Z`)

async function rows<T>(db: Database, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows
}

/** The month boundaries of `from`..`to`: the period's start, each month's first day, its end. */
export function reportBounds(from: string, to: string): { months: string[]; bounds: Date[] } {
  const months: string[] = []
  const bounds: Date[] = [startOf(from)]
  let month = from.slice(0, 7)
  const last = to.slice(0, 7)
  for (;;) {
    months.push(month)
    if (month === last) break
    const [year, m] = month.split('-').map(Number) as [number, number]
    month = new Date(Date.UTC(year, m, 1)).toISOString().slice(0, 7)
    bounds.push(startOf(`${month}-01`))
  }
  bounds.push(startOf(addDays(to, 1)))
  return { months, bounds }
}

const STATUS_KINDS = sql.raw(
  `('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended')`,
)

/**
 * The statements' shared head: `bounds(i, b)`, then each membership's status (`st`) and MRR in
 * cents (`contrib`) at each bound, and its status segments (`seg`).
 */
function history(practiceId: number, bounds: Date[]): SQL {
  const last = bounds[bounds.length - 1] as Date
  return sql`
    bounds(i, b) as (values ${sql.join(
      bounds.map((b, i) => sql`(${i}::int, ${ts(b)})`),
      sql`, `,
    )}),
    status_ev as (
      select e.membership_id, e.at, 0 as tie, e.id as ord,
        case e.kind when 'enrolled' then 'active' when 'resumed' then 'active' else e.kind end as status
      from membership_events e
      where e.practice_id = ${practiceId} and e.kind in ${STATUS_KINDS} and e.at < ${ts(last)}
      union all
      select c.membership_id, c.settled_at, 1, c.id, 'active'
      from membership_charges c
      where c.practice_id = ${practiceId} and c.purpose = 'cycle' and c.status = 'succeeded'
        and c.attempt > 1 and c.settled_at < ${ts(last)}
    ),
    seg as (
      select membership_id, status, at,
        lead(at) over w as next_at, lead(status) over w as next_status
      from status_ev
      window w as (partition by membership_id order by at, tie, ord)
    ),
    st as (
      select s.membership_id, b.i, s.status, s.at as since
      from seg s join bounds b on s.at < b.b and (s.next_at is null or s.next_at >= b.b)
    ),
    version_ev as (
      select y.membership_id, y.created_at as at, 0 as tie, y.plan_version_id
      from membership_cycles y
      where y.practice_id = ${practiceId} and y.created_at < ${ts(last)}
      union all
      select e.membership_id, e.at, 1, e.plan_version_id
      from membership_events e
      where e.practice_id = ${practiceId} and e.kind = 'plan_changed' and e.at < ${ts(last)}
        and e.plan_version_id is not null
    ),
    -- Only the changes of version: a membership renews on the same version cycle after cycle, so
    -- the join below meets about one version per membership, not one per cycle.
    version_changes as (
      select membership_id, plan_version_id, at, tie from (
        select membership_id, plan_version_id, at, tie,
          lag(plan_version_id) over (partition by membership_id order by at, tie) as previous
        from version_ev
      ) ordered
      where previous is distinct from plan_version_id
    ),
    vseg as (
      select membership_id, plan_version_id, at,
        lead(at) over (partition by membership_id order by at, tie) as next_at
      from version_changes
    ),
    contrib as (
      select st.membership_id, st.i, st.status,
        case when st.status in ('active', 'past_due') then coalesce(round(v.price_cents::numeric /
          case v.interval when 'quarter' then 3 when 'year' then 12 else 1 end)::int, 0)
        else 0 end as mrr
      from st
      join bounds b on b.i = st.i
      left join bounds pb on pb.i = st.i - 1
      left join vseg vs on vs.membership_id = st.membership_id and vs.at < b.b
        and (vs.next_at is null or vs.next_at >= b.b)
      left join membership_plan_versions v on v.id = vs.plan_version_id
      -- A membership already over when the month opened moves nothing: left out.
      where not (st.status in ('cancelled', 'ended') and (pb.b is null or st.since < pb.b))
    )`
}

export type MembershipReportInput = {
  practiceId: number
  from: string
  to: string
  /** The billing clock's day. */
  today: string
  /** Whether the reader may see money: else every money field is left out. */
  money: boolean
}

/** `GET /reports/memberships`. */
export async function membershipReport(
  db: Database,
  input: MembershipReportInput,
): Promise<MembershipReport> {
  const { practiceId, from, to } = input
  const { months, bounds } = reportBounds(from, to)
  const k = bounds.length - 1
  const start = bounds[0] as Date
  const end = bounds[k] as Date
  const head = history(practiceId, bounds)

  const [counts] = await rows<Record<string, unknown>>(
    db,
    sql`with ${head}
      select
        (count(*) filter (where i = ${k} and status = 'active'))::int as active,
        (count(*) filter (where i = ${k} and status = 'paused'))::int as paused,
        (count(*) filter (where i = ${k} and status = 'past_due'))::int as past_due,
        (count(*) filter (where i = ${k} and status = 'unpaid'))::int as unpaid,
        (count(*) filter (where i = 0 and status in ('active', 'past_due', 'paused')))::int as at_start,
        -- One pass over the start and the end, grouped by membership: a self-join of the CTE
        -- was planned as a nested loop (2 rows estimated a side) and took 21 s at 10,000 members.
        (select count(*) from (select membership_id from st where i = 0 or i = ${k}
          group by membership_id
          having bool_or(i = 0 and status in ('active', 'past_due', 'paused'))
            and bool_or(i = ${k} and status in ('cancelled', 'ended', 'unpaid'))) ch)::int as churned,
        (select count(*) from seg where status = 'past_due' and next_status = 'active'
          and next_at >= ${ts(start)} and next_at < ${ts(end)})::int as recovered,
        (select count(*) from seg where status = 'past_due' and next_status in ('unpaid', 'cancelled', 'ended')
          and next_at >= ${ts(start)} and next_at < ${ts(end)})::int as not_recovered
      from st`,
  )
  const [lifecycle] = await rows<Record<string, unknown>>(
    db,
    sql`select
        (select count(*) from memberships where practice_id = ${practiceId}
          and started_at >= ${ts(start)} and started_at < ${ts(end)})::int as new,
        (count(*) filter (where m.cancel_reason = 'patient'))::int as patient,
        (count(*) filter (where m.cancel_reason = 'staff'))::int as staff,
        (count(*) filter (where m.cancel_reason = 'failed_payment'))::int as failed_payment,
        count(*)::int as cancelled
      from membership_events e join memberships m on m.id = e.membership_id
      where e.practice_id = ${practiceId} and e.kind in ('cancelled', 'ended')
        and e.at >= ${ts(start)} and e.at < ${ts(end)}`,
  )
  const allowances = await rows<{
    catalogue_item_id: unknown
    name: string
    units: unknown
    value: unknown
  }>(
    db,
    sql`select a.catalogue_item_id, p.name, sum(a.remaining)::int as units,
          sum(a.remaining::bigint * p.price)::bigint as value
        from memberships m
        join membership_allowances a on a.membership_id = m.id
        join procedures p on p.id = a.catalogue_item_id
        where m.practice_id = ${practiceId} and m.status in ('active', 'past_due', 'paused', 'unpaid')
          and a.remaining > 0
        group by a.catalogue_item_id, p.name
        order by p.name, a.catalogue_item_id`,
  )
  const n = (row: Record<string, unknown> | undefined, key: string) => Number(row?.[key] ?? 0)
  const atStart = n(counts, 'at_start')
  const churned = n(counts, 'churned')
  const recovered = n(counts, 'recovered')
  const notRecovered = n(counts, 'not_recovered')
  const report: MembershipReport = {
    from,
    to,
    today: input.today,
    active: n(counts, 'active'),
    new: n(lifecycle, 'new'),
    paused: n(counts, 'paused'),
    past_due: n(counts, 'past_due'),
    unpaid: n(counts, 'unpaid'),
    cancelled: n(lifecycle, 'cancelled'),
    cancelled_by_reason: {
      patient: n(lifecycle, 'patient'),
      staff: n(lifecycle, 'staff'),
      failed_payment: n(lifecycle, 'failed_payment'),
    },
    members_at_start: atStart,
    churned,
    churn_rate: reportRate(churned, atStart),
    recovered,
    not_recovered: notRecovered,
    recovery_rate: reportRate(recovered, recovered + notRecovered),
    allowances_outstanding: allowances.map(
      (row): MembershipReportAllowance => ({
        catalogue_item_id: Number(row.catalogue_item_id),
        name: row.name,
        units: Number(row.units),
        ...(input.money ? { value_cents: Number(row.value) } : {}),
      }),
    ),
  }
  if (!input.money) return report

  // The planner overestimates this statement's rows (ranges joined by time), and PostgreSQL
  // would spend longer compiling it (JIT, over a second at 10,000 members) than running it.
  const movement = await db.transaction(async (tx) => {
    await tx.execute(sql`set local jit = off`)
    return rows<Record<string, unknown>>(
      tx as unknown as Database,
      sql`with ${head},
      -- Each membership's MRR and status at a month's opening (the bound before) and its closing.
      -- A membership over before a month opened has nothing to move in it and is left out.
      pairs as (
        select c.membership_id, c.i, c.mrr as c, c.status as cst,
          coalesce(lag(c.mrr) over w, 0) as o, lag(c.status) over w as ost
        from contrib c
        window w as (partition by c.membership_id order by c.i)
      ),
      firsts as (
        select patient_id, min(started_at) as first_start from memberships
        where practice_id = ${practiceId} group by patient_id
      ),
      classed as (
        select p.i, p.o, p.c,
          case
            when p.o = 0 and p.c > 0 and p.ost = 'paused' then 'expansion'
            when p.o = 0 and p.c > 0 and f.first_start < ob.b then 'reactivation'
            when p.o = 0 and p.c > 0 then 'new'
            when p.o > 0 and p.c = 0 and p.cst = 'paused' then 'contraction'
            when p.o > 0 and p.c = 0 and (p.cst = 'unpaid' or m.cancel_reason = 'failed_payment')
              then 'involuntary'
            when p.o > 0 and p.c = 0 then 'voluntary'
            when p.c > p.o then 'expansion'
            when p.c < p.o then 'contraction'
          end as kind
        from pairs p
        join bounds ob on ob.i = p.i - 1
        join memberships m on m.id = p.membership_id
        left join firsts f on f.patient_id = m.patient_id
        where p.i > 0 and (p.o <> 0 or p.c <> 0)
      ),
      closings as (select i, sum(mrr) as mrr from contrib group by i)
      select b.i,
        coalesce(sum(c.c - c.o), 0)::bigint as change,
        coalesce(sum(c.c) filter (where c.kind = 'new'), 0)::bigint as new,
        coalesce(sum(c.c - c.o) filter (where c.kind = 'expansion'), 0)::bigint as expansion,
        coalesce(sum(c.o - c.c) filter (where c.kind = 'contraction'), 0)::bigint as contraction,
        coalesce(sum(c.o) filter (where c.kind = 'voluntary'), 0)::bigint as voluntary,
        coalesce(sum(c.o) filter (where c.kind = 'involuntary'), 0)::bigint as involuntary,
        coalesce(sum(c.c) filter (where c.kind = 'reactivation'), 0)::bigint as reactivation,
        coalesce(max(cl.mrr), 0)::bigint as closing
      from bounds b
      left join classed c on c.i = b.i
      left join closings cl on cl.i = b.i
      where b.i > 0
      group by b.i order by b.i`,
    )
  })
  const mrr_movement = movement.map(
    (row, index): MembershipReportMrrMonth => ({
      month: months[index] as string,
      opening_mrr_cents: n(row, 'closing') - n(row, 'change'),
      new_cents: n(row, 'new'),
      expansion_cents: n(row, 'expansion'),
      contraction_cents: n(row, 'contraction'),
      voluntary_churn_cents: n(row, 'voluntary'),
      involuntary_churn_cents: n(row, 'involuntary'),
      reactivation_cents: n(row, 'reactivation'),
      closing_mrr_cents: n(row, 'closing'),
    }),
  )
  const [bank] = await rows<Record<string, unknown>>(
    db,
    sql`select
        coalesce(sum(amount_cents) filter (where created_at < ${ts(start)}), 0)::bigint as opening,
        coalesce(sum(amount_cents) filter (where created_at >= ${ts(start)} and kind = 'credit'), 0)::bigint as paid_in,
        coalesce(-sum(amount_cents) filter (where created_at >= ${ts(start)} and kind not in ('credit', 'refund')), 0)::bigint as used,
        coalesce(-sum(amount_cents) filter (where created_at >= ${ts(start)} and kind = 'refund'), 0)::bigint as refunded,
        coalesce(sum(amount_cents), 0)::bigint as closing,
        (select coalesce(sum(bank_cents), 0) from memberships where practice_id = ${practiceId})::bigint as members
      from membership_bank_entries
      where practice_id = ${practiceId} and created_at < ${ts(end)}`,
  )
  return {
    ...report,
    mrr_cents: mrr_movement.at(-1)?.closing_mrr_cents ?? 0,
    mrr_movement,
    bank: {
      opening_cents: n(bank, 'opening'),
      paid_in_cents: n(bank, 'paid_in'),
      used_cents: n(bank, 'used'),
      refunded_cents: n(bank, 'refunded'),
      closing_cents: n(bank, 'closing'),
      members_cents: n(bank, 'members'),
    },
  }
}

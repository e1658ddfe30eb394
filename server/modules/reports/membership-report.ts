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
 * first instant belongs to that month.
 *
 * So that a year's report costs about the same at 10,000 members as at 100, nothing is read per
 * membership per month:
 * - a **closed month** (over on the billing clock) is worked out once and stored in
 *   `membership_report_months` (migration 0045): the statuses and MRR at its end, its movement and
 *   its bank flows. It never changes: every write is dated on the billing clock, which only moves
 *   forward (a visit's bank entry too);
 * - the rest (the days of the period's first month before it starts, the open month) is worked
 *   out from the memberships that *changed* in it (a status event, a renewal paid by a retry, a
 *   cycle on another plan version: partial indexes of 0042 and 0045), added to the standing the
 *   last closed month ended with. A membership without a change is the same at both ends.
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
/** The kinds the partial indexes of migrations 0042 and 0045 hold, spelled as they are. */
const INDEXED_KINDS = sql.raw(
  `('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended', 'plan_changed')`,
)

/**
 * A stretch of time the report works out from the memberships themselves, `[a, b)`. A *change*
 * window gives what changed between its two ends; a *period* window gives the churn and the
 * recoveries of the whole period.
 */
type Window = { a: Date; b: Date; period?: boolean }

/** Statuses and MRR at an instant, summed over the practice's memberships. */
type Standing = {
  active: number
  paused: number
  past_due: number
  unpaid: number
  /** Active, past due or paused: the members a churn rate starts from. */
  live: number
  mrr: number
}
type Movement = {
  new: number
  expansion: number
  contraction: number
  voluntary: number
  involuntary: number
  reactivation: number
}
type BankFlows = { paid_in: number; used: number; refunded: number }
type WindowAnswer = {
  /** Each figure at `b` less the same at `a`. */
  delta: Standing
  movement: Movement
  bank: BankFlows
  churned: number
  recovered: number
  not_recovered: number
}

const ZERO_STANDING: Standing = { active: 0, paused: 0, past_due: 0, unpaid: 0, live: 0, mrr: 0 }
const ZERO_MOVEMENT: Movement = {
  new: 0,
  expansion: 0,
  contraction: 0,
  voluntary: 0,
  involuntary: 0,
  reactivation: 0,
}

function plus(a: Standing, b: Standing): Standing {
  return {
    active: a.active + b.active,
    paused: a.paused + b.paused,
    past_due: a.past_due + b.past_due,
    unpaid: a.unpaid + b.unpaid,
    live: a.live + b.live,
    mrr: a.mrr + b.mrr,
  }
}

/**
 * What changed in each window, in one statement that reads only the memberships with a change in
 * a window (a status event, a renewal paid by a retry, a change of plan version): every other
 * membership is the same at both ends and moves nothing. For those, the state at each end is the
 * one after every change before it (a change at exactly `a` belongs to the window), from their
 * whole history; the movement is classed as domain/membership-reports.ts says.
 *
 * A period window reads only the memberships that turned unpaid, cancelled, ended or active again
 * in it: the members it may have churned or recovered.
 */
function windowsQuery(practiceId: number, windows: Window[]): SQL {
  const last = windows.reduce((max, w) => (w.b > max ? w.b : max), windows[0]?.b as Date)
  return sql`
    with windows(w, a, b, period) as (values ${sql.join(
      windows.map(
        (w, i) => sql`(${i}::int, ${ts(w.a)}, ${ts(w.b)}, ${sql.raw(w.period ? 'true' : 'false')})`,
      ),
      sql`, `,
    )}),
    changed as (
      select distinct w.w, x.membership_id from windows w
      cross join lateral (
        select e.membership_id from membership_events e
        where e.practice_id = ${practiceId} and e.kind in ${INDEXED_KINDS}
          and e.at >= w.a and e.at < w.b
          and (not w.period or e.kind in ('unpaid', 'cancelled', 'ended', 'resumed'))
        union all
        select c.membership_id from membership_charges c
        where c.practice_id = ${practiceId} and c.purpose = 'cycle' and c.status = 'succeeded'
          and c.attempt > 1 and c.settled_at >= w.a and c.settled_at < w.b
        union all
        select y.membership_id from membership_cycles y
        where not w.period and y.practice_id = ${practiceId} and y.version_changed
          and y.created_at >= w.a and y.created_at < w.b
      ) x
    ),
    ids as (select distinct membership_id from changed),
    status_ev as (
      select e.membership_id, e.at, 0 as tie, e.id as ord,
        case e.kind when 'enrolled' then 'active' when 'resumed' then 'active' else e.kind end as status
      from ids join membership_events e on e.membership_id = ids.membership_id
        and e.kind in ${STATUS_KINDS} and e.at < ${ts(last)}
      union all
      select c.membership_id, c.settled_at, 1, c.id, 'active'
      from ids join membership_charges c on c.membership_id = ids.membership_id
        and c.purpose = 'cycle' and c.status = 'succeeded' and c.attempt > 1
        and c.settled_at < ${ts(last)}
    ),
    seg as (
      select membership_id, status, at,
        lead(at) over w as next_at, lead(status) over w as next_status
      from status_ev
      window w as (partition by membership_id order by at, tie, ord)
    ),
    -- The versions: a cycle that changed it (migration 0045 marks them) or a change of plan now.
    version_ev as (
      select y.membership_id, y.created_at as at, 0 as tie, y.plan_version_id
      from ids join membership_cycles y on y.membership_id = ids.membership_id
        and y.version_changed and y.created_at < ${ts(last)}
      union all
      select e.membership_id, e.at, 1, e.plan_version_id
      from ids join membership_events e on e.membership_id = ids.membership_id
        and e.kind = 'plan_changed' and e.at < ${ts(last)} and e.plan_version_id is not null
    ),
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
    ends as (
      select c.w, c.membership_id, e.side, e.t
      from changed c join windows w on w.w = c.w
      cross join lateral (values (0, w.a), (1, w.b)) e(side, t)
    ),
    val as (
      select n.w, n.membership_id, n.side, g.status,
        case when g.status in ('active', 'past_due') then coalesce(round(v.price_cents::numeric /
          case v.interval when 'quarter' then 3 when 'year' then 12 else 1 end)::int, 0)
        else 0 end as mrr
      from ends n
      join seg g on g.membership_id = n.membership_id and g.at < n.t
        and (g.next_at is null or g.next_at >= n.t)
      left join vseg vs on vs.membership_id = n.membership_id and vs.at < n.t
        and (vs.next_at is null or vs.next_at >= n.t)
      left join membership_plan_versions v on v.id = vs.plan_version_id
    ),
    pairs as (
      select c.w, c.membership_id, o.status as ost, cl.status as cst,
        coalesce(o.mrr, 0) as o, coalesce(cl.mrr, 0) as c
      from changed c
      left join val o on o.w = c.w and o.membership_id = c.membership_id and o.side = 0
      left join val cl on cl.w = c.w and cl.membership_id = c.membership_id and cl.side = 1
    ),
    firsts as (
      select m.patient_id, min(m.started_at) as first_start from memberships m
      where m.patient_id in (select m2.patient_id from ids join memberships m2 on m2.id = ids.membership_id)
      group by m.patient_id
    ),
    classed as (
      select p.*,
        case
          when p.o = 0 and p.c > 0 and p.ost = 'paused' then 'expansion'
          when p.o = 0 and p.c > 0 and f.first_start < w.a then 'reactivation'
          when p.o = 0 and p.c > 0 then 'new'
          when p.o > 0 and p.c = 0 and p.cst = 'paused' then 'contraction'
          when p.o > 0 and p.c = 0 and (p.cst = 'unpaid' or m.cancel_reason = 'failed_payment')
            then 'involuntary'
          when p.o > 0 and p.c = 0 then 'voluntary'
          when p.c > p.o then 'expansion'
          when p.c < p.o then 'contraction'
        end as kind
      from pairs p
      join windows w on w.w = p.w
      join memberships m on m.id = p.membership_id
      left join firsts f on f.patient_id = m.patient_id
    ),
    moved as (
      select w,
        count(*) filter (where cst = 'active') - count(*) filter (where ost = 'active') as active,
        count(*) filter (where cst = 'paused') - count(*) filter (where ost = 'paused') as paused,
        count(*) filter (where cst = 'past_due') - count(*) filter (where ost = 'past_due') as past_due,
        count(*) filter (where cst = 'unpaid') - count(*) filter (where ost = 'unpaid') as unpaid,
        count(*) filter (where cst in ('active', 'past_due', 'paused'))
          - count(*) filter (where ost in ('active', 'past_due', 'paused')) as live,
        coalesce(sum(c - o), 0) as mrr,
        coalesce(sum(c) filter (where kind = 'new'), 0) as new,
        coalesce(sum(c - o) filter (where kind = 'expansion'), 0) as expansion,
        coalesce(sum(o - c) filter (where kind = 'contraction'), 0) as contraction,
        coalesce(sum(o) filter (where kind = 'voluntary'), 0) as voluntary,
        coalesce(sum(o) filter (where kind = 'involuntary'), 0) as involuntary,
        coalesce(sum(c) filter (where kind = 'reactivation'), 0) as reactivation,
        count(*) filter (where ost in ('active', 'past_due', 'paused')
          and cst in ('cancelled', 'ended', 'unpaid')) as churned
      from classed group by w
    ),
    recoveries as (
      select c.w,
        count(*) filter (where g.next_status = 'active') as recovered,
        count(*) filter (where g.next_status in ('unpaid', 'cancelled', 'ended')) as not_recovered
      from changed c join windows w on w.w = c.w and w.period
      join seg g on g.membership_id = c.membership_id and g.status = 'past_due'
        and g.next_at >= w.a and g.next_at < w.b
      group by c.w
    ),
    bank as (
      select w.w,
        coalesce(sum(e.amount_cents) filter (where e.kind = 'credit'), 0) as paid_in,
        coalesce(-sum(e.amount_cents) filter (where e.kind not in ('credit', 'refund')), 0) as used,
        coalesce(-sum(e.amount_cents) filter (where e.kind = 'refund'), 0) as refunded
      from windows w
      join membership_bank_entries e on e.practice_id = ${practiceId}
        and e.created_at >= w.a and e.created_at < w.b
      where not w.period
      group by w.w
    )
    select w.w,
      coalesce(m.active, 0)::int as active, coalesce(m.paused, 0)::int as paused,
      coalesce(m.past_due, 0)::int as past_due, coalesce(m.unpaid, 0)::int as unpaid,
      coalesce(m.live, 0)::int as live, coalesce(m.mrr, 0)::bigint as mrr,
      coalesce(m.new, 0)::bigint as new, coalesce(m.expansion, 0)::bigint as expansion,
      coalesce(m.contraction, 0)::bigint as contraction,
      coalesce(m.voluntary, 0)::bigint as voluntary,
      coalesce(m.involuntary, 0)::bigint as involuntary,
      coalesce(m.reactivation, 0)::bigint as reactivation,
      coalesce(m.churned, 0)::int as churned,
      coalesce(r.recovered, 0)::int as recovered, coalesce(r.not_recovered, 0)::int as not_recovered,
      coalesce(k.paid_in, 0)::bigint as paid_in, coalesce(k.used, 0)::bigint as used,
      coalesce(k.refunded, 0)::bigint as refunded
    from windows w
    left join moved m on m.w = w.w
    left join recoveries r on r.w = w.w
    left join bank k on k.w = w.w
    order by w.w`
}

/** What changed in each window (see {@link windowsQuery}), in the windows' order. */
async function changesIn(
  db: Database,
  practiceId: number,
  windows: Window[],
): Promise<WindowAnswer[]> {
  if (windows.length === 0) return []
  // The planner overestimates this statement's rows (ranges joined by time), and PostgreSQL
  // would spend longer compiling it (JIT) than running it.
  const found = await db.transaction(async (tx) => {
    await tx.execute(sql`set local jit = off`)
    return rows<Record<string, unknown>>(
      tx as unknown as Database,
      windowsQuery(practiceId, windows),
    )
  })
  return found.map((row) => {
    const n = (key: string) => Number(row[key] ?? 0)
    return {
      delta: {
        active: n('active'),
        paused: n('paused'),
        past_due: n('past_due'),
        unpaid: n('unpaid'),
        live: n('live'),
        mrr: n('mrr'),
      },
      movement: {
        new: n('new'),
        expansion: n('expansion'),
        contraction: n('contraction'),
        voluntary: n('voluntary'),
        involuntary: n('involuntary'),
        reactivation: n('reactivation'),
      },
      bank: { paid_in: n('paid_in'), used: n('used'), refunded: n('refunded') },
      churned: n('churned'),
      recovered: n('recovered'),
      not_recovered: n('not_recovered'),
    }
  })
}

/** A closed month as stored (table `membership_report_months`). */
type ClosedMonth = {
  /** Its first instant. */
  start: Date
  /** The practice's standing at its end. */
  closing: Standing
  movement: Movement
  bank: BankFlows
  /** The bank at its end. */
  bankClosing: number
}

/** How long after a month ends on the billing clock it counts as closed (writes in flight). */
const CLOSE_AFTER_MS = 60 * 60 * 1000

const monthOf = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1))
const nextMonth = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1))
const dayKey = (date: Date) => date.toISOString().slice(0, 10)

/**
 * The practice's closed months: those that ended before `closedEnd`, from the first with any
 * membership activity. The ones not stored yet are worked out from the last stored one (each
 * month's changes added to the standing before it) and stored, once: a closed month never
 * changes, since every write is dated on the billing clock, which only moves forward. Two reports
 * storing the same month store the same figures; the first one wins.
 */
async function closedMonths(
  db: Database,
  practiceId: number,
  closedEnd: Date,
): Promise<Map<string, ClosedMonth>> {
  const stored = await rows<Record<string, unknown>>(
    db,
    sql`select * from membership_report_months where practice_id = ${practiceId} order by month`,
  )
  const months = new Map<string, ClosedMonth>()
  for (const row of stored) {
    const n = (key: string) => Number(row[key] ?? 0)
    const start = startOf(String(row.month).slice(0, 10))
    months.set(dayKey(start), {
      start,
      closing: {
        active: n('active'),
        paused: n('paused'),
        past_due: n('past_due'),
        unpaid: n('unpaid'),
        live: n('active') + n('past_due') + n('paused'),
        mrr: n('mrr_cents'),
      },
      movement: {
        new: n('new_cents'),
        expansion: n('expansion_cents'),
        contraction: n('contraction_cents'),
        voluntary: n('voluntary_cents'),
        involuntary: n('involuntary_cents'),
        reactivation: n('reactivation_cents'),
      },
      bank: {
        paid_in: n('bank_paid_in_cents'),
        used: n('bank_used_cents'),
        refunded: n('bank_refunded_cents'),
      },
      bankClosing: n('bank_closing_cents'),
    })
  }
  const lastStored = [...months.values()].at(-1)
  let first: Date | null
  if (lastStored) {
    first = nextMonth(lastStored.start)
  } else {
    const [found] = await rows<{ at: unknown }>(
      db,
      sql`select least(
          (select min(at) from membership_events
            where practice_id = ${practiceId} and kind in ${INDEXED_KINDS}),
          (select min(created_at) from membership_bank_entries where practice_id = ${practiceId})
        ) as at`,
    )
    first = found?.at ? monthOf(new Date(String(found.at))) : null
  }
  if (!first || nextMonth(first) > closedEnd) return months

  const missing: Window[] = []
  for (let m = first; nextMonth(m) <= closedEnd; m = nextMonth(m)) {
    missing.push({ a: m, b: nextMonth(m) })
  }
  const answers = await changesIn(db, practiceId, missing)
  let standing = lastStored?.closing ?? ZERO_STANDING
  let bankClosing = lastStored?.bankClosing ?? 0
  const computed: ClosedMonth[] = missing.map((w, i) => {
    const answer = answers[i] as WindowAnswer
    standing = plus(standing, answer.delta)
    bankClosing += answer.bank.paid_in - answer.bank.used - answer.bank.refunded
    return {
      start: w.a,
      closing: standing,
      movement: answer.movement,
      bank: answer.bank,
      bankClosing,
    }
  })
  await db.execute(sql`
    insert into membership_report_months (practice_id, month, active, paused, past_due, unpaid,
      mrr_cents, new_cents, expansion_cents, contraction_cents, voluntary_cents, involuntary_cents,
      reactivation_cents, bank_paid_in_cents, bank_used_cents, bank_refunded_cents,
      bank_closing_cents)
    values ${sql.join(
      computed.map(
        (m) => sql`(${practiceId}, ${dayKey(m.start)}::date, ${m.closing.active},
          ${m.closing.paused}, ${m.closing.past_due}, ${m.closing.unpaid}, ${m.closing.mrr},
          ${m.movement.new}, ${m.movement.expansion}, ${m.movement.contraction},
          ${m.movement.voluntary}, ${m.movement.involuntary}, ${m.movement.reactivation},
          ${m.bank.paid_in}, ${m.bank.used}, ${m.bank.refunded}, ${m.bankClosing})`,
      ),
      sql`, `,
    )}
    on conflict (practice_id, month) do nothing`)
  for (const m of computed) months.set(dayKey(m.start), m)
  return months
}

export type MembershipReportInput = {
  practiceId: number
  from: string
  to: string
  /** The billing clock's day. */
  today: string
  /** The billing clock's instant (by default `today`'s first): the months before it are closed. */
  now?: Date
  /** Whether the reader may see money: else every money field is left out. */
  money: boolean
}

/**
 * `GET /reports/memberships`. The closed months come from `membership_report_months` (worked out
 * once, see {@link closedMonths}); the rest (the period's first days when it starts within a month,
 * the month still open) from the memberships that changed in them only, added to the standing
 * the closed months end with. So the report reads about as much at 10,000 members as at 100: a
 * year of stored months, plus the month's changes.
 */
export async function membershipReport(
  db: Database,
  input: MembershipReportInput,
): Promise<MembershipReport> {
  const { practiceId, from, to } = input
  const { months, bounds } = reportBounds(from, to)
  const k = bounds.length - 1
  const start = bounds[0] as Date
  const end = bounds[k] as Date
  const now = input.now ?? startOf(input.today)
  const closedEnd = monthOf(new Date(now.getTime() - CLOSE_AFTER_MS))
  const closed = await closedMonths(db, practiceId, closedEnd)
  const firstStored = [...closed.values()][0]?.start

  /** The stored standing and bank at a month's first instant, up to `closedEnd`. */
  const storedAt = (monthStart: Date): { standing: Standing; bank: number } => {
    if (!firstStored || monthStart <= firstStored) return { standing: ZERO_STANDING, bank: 0 }
    const before = closed.get(
      dayKey(new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() - 1, 1))),
    )
    if (!before)
      throw new Error(`The memberships report has no stored month before ${dayKey(monthStart)}`)
    return { standing: before.closing, bank: before.bankClosing }
  }
  /** The stored month starting at `a` and ending at `b`, when the window is exactly that. */
  const storedMonth = (a: Date, b: Date): ClosedMonth | 'empty' | null => {
    if (a.getTime() !== monthOf(a).getTime() || b.getTime() !== nextMonth(a).getTime()) return null
    if (b > closedEnd) return null
    if (!firstStored || a < firstStored) return 'empty'
    return closed.get(dayKey(a)) ?? null
  }

  // The windows to work out: from a stored month's start to the period's start, each month of the
  // period not stored, and the whole period (churn, recoveries).
  const anchor = start < closedEnd ? monthOf(start) : closedEnd
  const windows: Window[] = []
  const pre = anchor < start ? windows.push({ a: anchor, b: start }) - 1 : -1
  const segment: (number | ClosedMonth | 'empty')[] = []
  for (let i = 1; i <= k; i++) {
    const a = bounds[i - 1] as Date
    const b = bounds[i] as Date
    segment.push(storedMonth(a, b) ?? windows.push({ a, b }) - 1)
  }
  const whole = windows.push({ a: start, b: end, period: true }) - 1
  const answers = await changesIn(db, practiceId, windows)

  const opening = storedAt(anchor)
  let standing = opening.standing
  let bankBalance = opening.bank
  if (pre >= 0) {
    const answer = answers[pre] as WindowAnswer
    standing = plus(standing, answer.delta)
    bankBalance += answer.bank.paid_in - answer.bank.used - answer.bank.refunded
  }
  const atStart = standing
  const bankOpening = bankBalance
  const bank: BankFlows = { paid_in: 0, used: 0, refunded: 0 }
  const mrr_movement: MembershipReportMrrMonth[] = segment.map((part, index) => {
    const openingMrr = standing.mrr
    let movement = ZERO_MOVEMENT
    let flows: BankFlows = { paid_in: 0, used: 0, refunded: 0 }
    if (typeof part === 'number') {
      const answer = answers[part] as WindowAnswer
      standing = plus(standing, answer.delta)
      movement = answer.movement
      flows = answer.bank
    } else if (part !== 'empty') {
      standing = part.closing
      movement = part.movement
      flows = part.bank
    }
    bank.paid_in += flows.paid_in
    bank.used += flows.used
    bank.refunded += flows.refunded
    return {
      month: months[index] as string,
      opening_mrr_cents: openingMrr,
      new_cents: movement.new,
      expansion_cents: movement.expansion,
      contraction_cents: movement.contraction,
      voluntary_churn_cents: movement.voluntary,
      involuntary_churn_cents: movement.involuntary,
      reactivation_cents: movement.reactivation,
      closing_mrr_cents: standing.mrr,
    }
  })
  const period = answers[whole] as WindowAnswer

  const [lifecycle] = await rows<Record<string, unknown>>(
    db,
    sql`select
        (select count(*) from memberships where practice_id = ${practiceId}
          and started_at >= ${ts(start)} and started_at < ${ts(end)})::int as new,
        (count(*) filter (where m.cancel_reason = 'patient'))::int as patient,
        (count(*) filter (where m.cancel_reason = 'staff'))::int as staff,
        (count(*) filter (where m.cancel_reason = 'failed_payment'))::int as failed_payment,
        count(*)::int as cancelled,
        (select coalesce(sum(bank_cents), 0) from memberships
          where practice_id = ${practiceId})::bigint as members_bank
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
  const report: MembershipReport = {
    from,
    to,
    today: input.today,
    active: standing.active,
    new: n(lifecycle, 'new'),
    paused: standing.paused,
    past_due: standing.past_due,
    unpaid: standing.unpaid,
    cancelled: n(lifecycle, 'cancelled'),
    cancelled_by_reason: {
      patient: n(lifecycle, 'patient'),
      staff: n(lifecycle, 'staff'),
      failed_payment: n(lifecycle, 'failed_payment'),
    },
    members_at_start: atStart.live,
    churned: period.churned,
    churn_rate: reportRate(period.churned, atStart.live),
    recovered: period.recovered,
    not_recovered: period.not_recovered,
    recovery_rate: reportRate(period.recovered, period.recovered + period.not_recovered),
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
  return {
    ...report,
    mrr_cents: mrr_movement.at(-1)?.closing_mrr_cents ?? 0,
    mrr_movement,
    bank: {
      opening_cents: bankOpening,
      paid_in_cents: bank.paid_in,
      used_cents: bank.used,
      refunded_cents: bank.refunded,
      closing_cents: bankOpening + bank.paid_in - bank.used - bank.refunded,
      members_cents: n(lifecycle, 'members_bank'),
    },
  }
}

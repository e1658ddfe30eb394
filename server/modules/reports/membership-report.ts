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
 * first instant belongs to that month. Triggers keep each of those changes as it is written, with
 * the state before and after it, in `membership_changes` (migration 0047), in the order applied.
 *
 * So that a year's report costs about the same at 10,000 members as at 100, nothing is read per
 * membership, only per change:
 * - a **closed month** (over on the billing clock) is worked out once and stored in
 *   `membership_report_months` (migration 0045): the statuses and MRR at its end, its movement and
 *   its bank flows. It never changes: every write is dated on the billing clock, which only moves
 *   forward (a visit's bank entry too);
 * - the rest (the days of the period's first month before it starts, the open month) is worked
 *   out from the changes in it, added to the standing the last closed month ended with: a
 *   membership's first change in a stretch gives its state at the start, its last the state at
 *   the end, and a membership without a change is the same at both ends;
 * - what changed in a stretch that is over (a day and an hour past, on the billing clock) is
 *   stored the first time a report needs it, in `membership_report_windows`: the period's first
 *   days, its first month, and the part of the open month and of the whole period up to the last
 *   closed day. A report adds to it only what changed since, for the memberships that changed.
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
  /** A period's memberships started in it, and those cancelled or ended in it (by reason). */
  lifecycle: Lifecycle
}
type Lifecycle = {
  started: number
  cancelled: number
  patient: number
  staff: number
  failed_payment: number
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

/** A plan version's price as a month's revenue (domain/membership-reports.ts `monthlyCents`). */
const MONTHLY = (v: string) =>
  sql.raw(`round(${v}.price_cents::numeric /
    case ${v}.interval when 'quarter' then 3 when 'year' then 12 else 1 end)::int`)

/** The state of a membership after its last change before `${t}` (the row's `membership_id`). */
const STATE_BEFORE = (x: string, t: string) =>
  sql.raw(`(select c.status_after as status, c.plan_version_after as version
      from membership_changes c
      where c.membership_id = ${x}.membership_id and c.at < ${x}.${t}
      order by c.at desc, c.source desc, c.source_id desc limit 1)`)

/**
 * A window as the statement below works it out, `[a, b)`: from its changes alone when `d = a`;
 * else what its changes from `d` on add to the answer of `[a, d)` (stored apart).
 */
type Part = { a: Date; d: Date; b: Date; period: boolean }

/**
 * What changed in each part, in one statement that reads only changes (`membership_changes`,
 * kept at write time: a status event, a renewal paid by a retry, a change of plan version, each
 * with its state before and after): a membership without a change is the same at both ends and
 * moves nothing.
 *
 * - Worked out alone (`d = a`), a membership's state at `a` is the one before its first change in
 *   the window (a change at exactly `a` belongs to it), at `b` the one after its last.
 * - Added to `[a, d)`: each membership that changed from `d` on counts with its states at `a` and
 *   `b`, less what it counted in `[a, d)` (its states at `a` and `d`), each looked up by its key.
 *
 * The movement is classed as domain/membership-reports.ts says. A period part gives the churn
 * (worked out alone: from the changes to cancelled, ended or unpaid in it), and from `d` on the
 * past-due episodes that ended (each one change), the memberships started and those cancelled or
 * ended, by their reason.
 */
function windowsQuery(practiceId: number, parts: Part[]): SQL {
  return sql`
    with windows(w, a, d, b, period) as (values ${sql.join(
      parts.map(
        (p, i) =>
          sql`(${i}::int, ${ts(p.a)}, ${ts(p.d)}, ${ts(p.b)}, ${sql.raw(p.period ? 'true' : 'false')})`,
      ),
      sql`, `,
    )}),
    -- The changes of the windows worked out alone, numbered per membership in the order they apply.
    ch as materialized (
      select w.w, c.membership_id, c.status_before, c.plan_version_before, c.status_after,
        c.plan_version_after,
        row_number() over (partition by w.w, c.membership_id
          order by c.at, c.source, c.source_id) as i,
        count(*) over (partition by w.w, c.membership_id) as n
      from windows w
      join membership_changes c on c.practice_id = ${practiceId}
        and c.at >= w.a and c.at < w.b
      where not w.period and w.d = w.a
    ),
    -- The memberships that changed since \`d\`, with their states at \`a\`, \`d\` and \`b\`.
    since as materialized (
      select x.w, x.membership_id, sa.status as sa, sa.version as va, sd.status as sd,
        sd.version as vd, sb.status as sb, sb.version as vb
      from (
        select distinct w.w, w.a, w.d, w.b, c.membership_id from windows w
        join membership_changes c on c.practice_id = ${practiceId}
          and c.at >= w.d and c.at < w.b
        where w.d > w.a
      ) x
      left join lateral ${STATE_BEFORE('x', 'a')} sa on true
      left join lateral ${STATE_BEFORE('x', 'd')} sd on true
      left join lateral ${STATE_BEFORE('x', 'b')} sb on true
    ),
    ends as (
      select w, membership_id, 1 as sign,
        max(status_before) filter (where i = 1) as ost,
        max(plan_version_before) filter (where i = 1) as ov,
        max(status_after) filter (where i = n) as cst,
        max(plan_version_after) filter (where i = n) as cv
      from ch group by w, membership_id
      union all
      select w, membership_id, 1, sa, va, sb, vb from since
      union all
      select w, membership_id, -1, sa, va, sd, vd from since
    ),
    -- Each membership's state at the two ends, with its MRR.
    pairs as materialized (
      select e.w, e.membership_id, e.sign, e.ost, e.cst,
        case when e.ost in ('active', 'past_due') then coalesce(${MONTHLY('ov')}, 0) else 0 end as o,
        case when e.cst in ('active', 'past_due') then coalesce(${MONTHLY('cv')}, 0) else 0 end as c
      from ends e
      left join membership_plan_versions ov on ov.id = e.ov
      left join membership_plan_versions cv on cv.id = e.cv
    ),
    classed as materialized (
      select p.*,
        case
          when w.period then null
          when p.o = 0 and p.c > 0 and p.ost = 'paused' then 'expansion'
          when p.o = 0 and p.c > 0 and exists (select 1 from memberships m
            join memberships f on f.patient_id = m.patient_id
            where m.id = p.membership_id and f.started_at < w.a) then 'reactivation'
          when p.o = 0 and p.c > 0 then 'new'
          when p.o > 0 and p.c = 0 and p.cst = 'paused' then 'contraction'
          when p.o > 0 and p.c = 0 and (p.cst = 'unpaid' or (select m.cancel_reason
            from memberships m where m.id = p.membership_id) = 'failed_payment')
            then 'involuntary'
          when p.o > 0 and p.c = 0 then 'voluntary'
          when p.c > p.o then 'expansion'
          when p.c < p.o then 'contraction'
        end as kind
      from pairs p
      join windows w on w.w = p.w
    ),
    moved as materialized (
      select w,
        coalesce(sum(sign) filter (where cst = 'active'), 0)
          - coalesce(sum(sign) filter (where ost = 'active'), 0) as active,
        coalesce(sum(sign) filter (where cst = 'paused'), 0)
          - coalesce(sum(sign) filter (where ost = 'paused'), 0) as paused,
        coalesce(sum(sign) filter (where cst = 'past_due'), 0)
          - coalesce(sum(sign) filter (where ost = 'past_due'), 0) as past_due,
        coalesce(sum(sign) filter (where cst = 'unpaid'), 0)
          - coalesce(sum(sign) filter (where ost = 'unpaid'), 0) as unpaid,
        coalesce(sum(sign) filter (where cst in ('active', 'past_due', 'paused')), 0)
          - coalesce(sum(sign) filter (where ost in ('active', 'past_due', 'paused')), 0) as live,
        coalesce(sum(sign * (c - o)), 0) as mrr,
        coalesce(sum(sign * c) filter (where kind = 'new'), 0) as new,
        coalesce(sum(sign * (c - o)) filter (where kind = 'expansion'), 0) as expansion,
        coalesce(sum(sign * (o - c)) filter (where kind = 'contraction'), 0) as contraction,
        coalesce(sum(sign * o) filter (where kind = 'voluntary'), 0) as voluntary,
        coalesce(sum(sign * o) filter (where kind = 'involuntary'), 0) as involuntary,
        coalesce(sum(sign * c) filter (where kind = 'reactivation'), 0) as reactivation,
        coalesce(sum(sign) filter (where ost in ('active', 'past_due', 'paused')
          and cst in ('cancelled', 'ended', 'unpaid')), 0) as churned
      from classed group by w
    ),
    -- A period worked out alone: live at its start, cancelled, ended or unpaid at its end; such a
    -- membership changed to one of those in it.
    churn as materialized (
      select w.w, count(*) as churned
      from windows w
      cross join lateral (
        select distinct c.membership_id from membership_changes c
        where c.practice_id = ${practiceId} and c.at >= w.a and c.at < w.b
          and c.sets_status in ('cancelled', 'ended', 'unpaid')
      ) k
      cross join lateral (
        select c.status_after from membership_changes c
        where c.membership_id = k.membership_id and c.at < w.b
        order by c.at desc, c.source desc, c.source_id desc limit 1
      ) closing
      cross join lateral (
        select c.status_after from membership_changes c
        where c.membership_id = k.membership_id and c.at < w.a
        order by c.at desc, c.source desc, c.source_id desc limit 1
      ) opening
      where w.period and w.d = w.a and closing.status_after in ('cancelled', 'ended', 'unpaid')
        and opening.status_after in ('active', 'past_due', 'paused')
      group by w.w
    ),
    -- A period's memberships started in it, and its cancellations (the reason their own).
    lifecycle as materialized (
      select w.w,
        (select count(*) from memberships s where s.practice_id = ${practiceId}
          and s.started_at >= w.d and s.started_at < w.b) as started,
        count(m.id) as cancelled,
        count(*) filter (where m.cancel_reason = 'patient') as patient,
        count(*) filter (where m.cancel_reason = 'staff') as staff,
        count(*) filter (where m.cancel_reason = 'failed_payment') as failed_payment
      from windows w
      left join membership_changes c on c.practice_id = ${practiceId}
        and c.at >= w.d and c.at < w.b and c.sets_status in ('cancelled', 'ended')
      left join memberships m on m.id = c.membership_id
      where w.period
      group by w.w, w.d, w.b
    ),
    recoveries as materialized (
      select w.w,
        count(*) filter (where c.sets_status = 'active') as recovered,
        count(*) filter (where c.sets_status in ('unpaid', 'cancelled', 'ended')) as not_recovered
      from windows w
      join membership_changes c on c.practice_id = ${practiceId}
        and c.at >= w.d and c.at < w.b
        and c.status_before = 'past_due' and c.sets_status is not null
      where w.period
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
      (coalesce(m.churned, 0) + coalesce(ch.churned, 0))::int as churned,
      coalesce(r.recovered, 0)::int as recovered, coalesce(r.not_recovered, 0)::int as not_recovered,
      coalesce(l.started, 0)::int as started, coalesce(l.cancelled, 0)::int as cancelled,
      coalesce(l.patient, 0)::int as cancelled_patient, coalesce(l.staff, 0)::int as cancelled_staff,
      coalesce(l.failed_payment, 0)::int as cancelled_failed_payment
    from windows w
    left join moved m on m.w = w.w
    left join churn ch on ch.w = w.w
    left join recoveries r on r.w = w.w
    left join lifecycle l on l.w = w.w
    order by w.w`
}

/** The bank's entries in each part from `d` to `b`: paid in, used (net of undone visits'), refunded. */
function bankQuery(practiceId: number, parts: Part[]): SQL {
  return sql`
    with spans(w, d, b) as (values ${sql.join(
      parts.map((p, i) => sql`(${i}::int, ${ts(p.d)}, ${ts(p.b)})`),
      sql`, `,
    )})
    select s.w,
      coalesce(sum(e.amount_cents) filter (where e.kind = 'credit'), 0)::bigint as paid_in,
      coalesce(-sum(e.amount_cents) filter (where e.kind not in ('credit', 'refund')), 0)::bigint
        as used,
      coalesce(-sum(e.amount_cents) filter (where e.kind = 'refund'), 0)::bigint as refunded
    from spans s
    left join membership_bank_entries e on e.practice_id = ${practiceId}
      and e.created_at >= s.d and e.created_at < s.b
    group by s.w
    order by s.w`
}

const ZERO_ANSWER: WindowAnswer = {
  delta: ZERO_STANDING,
  movement: ZERO_MOVEMENT,
  bank: { paid_in: 0, used: 0, refunded: 0 },
  churned: 0,
  recovered: 0,
  not_recovered: 0,
  lifecycle: { started: 0, cancelled: 0, patient: 0, staff: 0, failed_payment: 0 },
}

/** Whether nothing happened in a window: every figure of its answer is 0. */
const isZero = (x: WindowAnswer) =>
  [x.delta, x.movement, x.bank, x.lifecycle, x].every((part) =>
    Object.values(part).every((value) => typeof value !== 'number' || value === 0),
  )

function addAnswers(x: WindowAnswer, y: WindowAnswer): WindowAnswer {
  const sum = <T extends Record<string, number>>(p: T, q: T) =>
    Object.fromEntries(Object.keys(p).map((key) => [key, (p[key] ?? 0) + (q[key] ?? 0)])) as T
  return {
    delta: sum(x.delta, y.delta),
    movement: sum(x.movement, y.movement),
    bank: sum(x.bank, y.bank),
    churned: x.churned + y.churned,
    recovered: x.recovered + y.recovered,
    not_recovered: x.not_recovered + y.not_recovered,
    lifecycle: sum(x.lifecycle, y.lifecycle),
  }
}

/** An answer from a row of the statements above or of `membership_report_windows`. */
function answerOf(row: Record<string, unknown>, bank: Record<string, unknown>): WindowAnswer {
  const n = (key: string) => Number(row[key] ?? 0)
  const k = (key: string) => Number(bank[key] ?? 0)
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
    bank: { paid_in: k('paid_in'), used: k('used'), refunded: k('refunded') },
    churned: n('churned'),
    recovered: n('recovered'),
    not_recovered: n('not_recovered'),
    lifecycle: {
      started: n('started'),
      cancelled: n('cancelled'),
      patient: n('cancelled_patient'),
      staff: n('cancelled_staff'),
      failed_payment: n('cancelled_failed_payment'),
    },
  }
}

/** How long after a month or a day ends on the billing clock it counts as closed (writes in flight). */
const CLOSE_AFTER_MS = 60 * 60 * 1000

/**
 * What changed in each window, in the windows' order. With `closedDayEnd` (the end of the last
 * closed day), a window over by then is read from `membership_report_windows`, worked out and
 * stored the first time; a window running on past it adds what changed since to its stored part
 * up to then. A closed window never changes: every write is dated on the billing clock, which
 * only moves forward. Without, each window is worked out from its changes alone.
 */
async function changesIn(
  db: Database,
  practiceId: number,
  windows: Window[],
  closedDayEnd: Date | null,
): Promise<WindowAnswer[]> {
  if (windows.length === 0) return []
  const keyOf = (a: Date, b: Date, period: boolean) =>
    `${a.toISOString()} ${b.toISOString()} ${period}`
  /** The closed windows each window needs: itself, or its part up to `closedDayEnd`. */
  const storedPart = (w: Window): Window | null => {
    if (!closedDayEnd || w.a >= closedDayEnd) return null
    return { a: w.a, b: w.b <= closedDayEnd ? w.b : closedDayEnd, period: w.period }
  }
  const needed = new Map<string, Window>()
  for (const w of windows) {
    const part = storedPart(w)
    if (part) needed.set(keyOf(part.a, part.b, !!part.period), part)
  }
  const stored = new Map<string, WindowAnswer>()
  if (needed.size) {
    const found = await rows<Record<string, unknown>>(
      db,
      sql`select * from membership_report_windows
          where practice_id = ${practiceId} and (starts_at, ends_at, period) in (${sql.join(
            [...needed.values()].map(
              (w) => sql`(${ts(w.a)}, ${ts(w.b)}, ${sql.raw(w.period ? 'true' : 'false')})`,
            ),
            sql`, `,
          )})`,
    )
    for (const row of found) {
      const answer = answerOf(
        {
          ...row,
          mrr: row.mrr_cents,
          new: row.new_cents,
          expansion: row.expansion_cents,
          contraction: row.contraction_cents,
          voluntary: row.voluntary_cents,
          involuntary: row.involuntary_cents,
          reactivation: row.reactivation_cents,
        },
        {
          paid_in: row.bank_paid_in_cents,
          used: row.bank_used_cents,
          refunded: row.bank_refunded_cents,
        },
      )
      const a = new Date(
        String(row.starts_at instanceof Date ? row.starts_at.toISOString() : row.starts_at),
      )
      const b = new Date(
        String(row.ends_at instanceof Date ? row.ends_at.toISOString() : row.ends_at),
      )
      stored.set(keyOf(a, b, row.period === true || row.period === 't'), answer)
    }
  }
  // The statement's parts: the closed windows not stored yet, worked out alone; then each window,
  // alone when nothing of it is closed, else what changed after its closed part.
  const missing = [...needed.entries()].filter(([key]) => !stored.has(key))
  const parts: Part[] = missing.map(([, w]) => ({ a: w.a, d: w.a, b: w.b, period: !!w.period }))
  const first = parts.length
  for (const w of windows) {
    const part = storedPart(w)
    parts.push({ a: w.a, d: part ? part.b : w.a, b: w.b, period: !!w.period })
  }
  const open = parts.slice(first)
  const computable = parts.filter((p, i) => i < first || p.d < p.b)
  // The planner overestimates these statements' rows (ranges joined by time), and PostgreSQL
  // would spend longer compiling them (JIT) than running them.
  const answers = await db.transaction(async (tx) => {
    await tx.execute(sql`set local jit = off`)
    const ex = tx as unknown as Database
    if (computable.length === 0) return open.map(() => ZERO_ANSWER)
    const found = await rows<Record<string, unknown>>(ex, windowsQuery(practiceId, computable))
    const flowing = computable.map((p) => (p.period ? { ...p, d: p.b } : p))
    const flows = await rows<Record<string, unknown>>(ex, bankQuery(practiceId, flowing))
    const computed = computable.map((_, i) => answerOf(found[i] ?? {}, flows[i] ?? {}))
    for (const [i, [key]] of missing.entries()) stored.set(key, computed[i] as WindowAnswer)
    // A window in which nothing happened is not stored: working it out again reads nothing.
    const storing = missing
      .map(([, w], i) => ({ w, x: computed[i] as WindowAnswer }))
      .filter(({ x }) => !isZero(x))
    if (storing.length) {
      await ex.execute(sql`
        insert into membership_report_windows (practice_id, starts_at, ends_at, period, active,
          paused, past_due, unpaid, live, mrr_cents, new_cents, expansion_cents, contraction_cents,
          voluntary_cents, involuntary_cents, reactivation_cents, bank_paid_in_cents,
          bank_used_cents, bank_refunded_cents, churned, recovered, not_recovered, started,
          cancelled, cancelled_patient, cancelled_staff, cancelled_failed_payment)
        values ${sql.join(
          storing.map(({ w, x }) => {
            return sql`(${practiceId}, ${ts(w.a)}, ${ts(w.b)}, ${sql.raw(w.period ? 'true' : 'false')},
              ${x.delta.active}, ${x.delta.paused}, ${x.delta.past_due}, ${x.delta.unpaid},
              ${x.delta.live}, ${x.delta.mrr}, ${x.movement.new}, ${x.movement.expansion},
              ${x.movement.contraction}, ${x.movement.voluntary}, ${x.movement.involuntary},
              ${x.movement.reactivation}, ${x.bank.paid_in}, ${x.bank.used}, ${x.bank.refunded},
              ${x.churned}, ${x.recovered}, ${x.not_recovered}, ${x.lifecycle.started},
              ${x.lifecycle.cancelled}, ${x.lifecycle.patient}, ${x.lifecycle.staff},
              ${x.lifecycle.failed_payment})`
          }),
          sql`, `,
        )}
        on conflict do nothing`)
      // Windows of days gone by are not asked for again (a period moves on with the days).
      await ex.execute(sql`
        delete from membership_report_windows
        where practice_id = ${practiceId} and computed_at < now() - interval '2 days'`)
    }
    let next = first
    return open.map((p) => (p.d < p.b ? (computed[next++] as WindowAnswer) : ZERO_ANSWER))
  })
  return windows.map((w, i) => {
    const part = storedPart(w)
    const after = answers[i] as WindowAnswer
    if (!part) return after
    const before = stored.get(keyOf(part.a, part.b, !!part.period))
    if (!before) throw new Error('The memberships report lost a stored window')
    return addAnswers(before, after)
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

const monthOf = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1))
const dayOf = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()))
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
  const answers = await changesIn(db, practiceId, missing, null)
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
  const closedDayEnd = dayOf(new Date(now.getTime() - CLOSE_AFTER_MS))
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
  const answers = await changesIn(db, practiceId, windows, closedDayEnd)

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

  // Now: the members' banks, and the units left of each treatment to live members, in one read of
  // the practice's memberships (which also finds those cancelled or ended, the only other
  // statuses: their allowances do not count) and one of the allowances, without a join.
  const current = await rows<{
    catalogue_item_id: unknown
    name: string | null
    units: unknown
    value: unknown
    members_bank: unknown
  }>(
    db,
    sql`with m as materialized (
          select coalesce(sum(bank_cents), 0) as bank,
            coalesce(array_agg(id) filter (where status in ('cancelled', 'ended')), '{}') as gone
          from memberships where practice_id = ${practiceId}
        )
        select 0::bigint as k, null::int as catalogue_item_id, null::text as name,
          null::int as units, null::bigint as value, (select bank from m)::bigint as members_bank
        union all
        select row_number() over (order by p.name, u.catalogue_item_id), u.catalogue_item_id,
          p.name, u.units::int, (u.units * p.price)::bigint, null
        from (
          select a.catalogue_item_id, sum(a.remaining) as units
          from membership_allowances a
          where a.practice_id = ${practiceId} and a.remaining > 0
            and a.membership_id not in (select unnest(gone) from m)
          group by a.catalogue_item_id
        ) u
        join procedures p on p.id = u.catalogue_item_id
        order by k`,
  )
  const [banks, ...allowances] = current
  const lifecycle = period.lifecycle
  const report: MembershipReport = {
    from,
    to,
    today: input.today,
    active: standing.active,
    new: lifecycle.started,
    paused: standing.paused,
    past_due: standing.past_due,
    unpaid: standing.unpaid,
    cancelled: lifecycle.cancelled,
    cancelled_by_reason: {
      patient: lifecycle.patient,
      staff: lifecycle.staff,
      failed_payment: lifecycle.failed_payment,
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
        name: String(row.name),
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
      members_cents: Number(banks?.members_bank ?? 0),
    },
  }
}

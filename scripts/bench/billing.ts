/**
 * A day of membership renewals at scale (`npm run bench -- --only=billing`, issue 33): 100,000
 * members of one practice renewing on one day, charged through the test member gateway by
 * `createBilling(…).runDue()` (server/modules/memberships/billing.ts) on the billing clock moved
 * to that day. Measured: the run's time, the charges (gateway calls, declines included) per second
 * and the process's peak memory while it runs (`process.memoryUsage()` sampled every 50 ms).
 * Checked: one succeeded cycle-2 charge and the cycle's perks per good member, no cycle charged
 * twice (in `membership_charges` and at the gateway), nothing left pending, each failing member
 * past due with one notice queued, the members not due untouched.
 *
 * Scenarios, each on a database of its own (created next to BENCH_DATABASE_URL or
 * TEST_DATABASE_URL, default the local server, seeded with the demo practice, dropped after):
 * - A: every member due, every card good;
 * - B: every member due, 5% of the cards declined when charged;
 * - C: a tenth of the members due among all of them (the others renew on the 29 days after), then
 *   the same number due among only that many: the time per due member should be the same, since
 *   the run reads only the rows whose attempt is due.
 *
 * The members are written with SQL (`INSERT … SELECT generate_series`), as enrolment
 * (server/modules/memberships/service.ts `enrol`) writes them: the membership in cycle 1, its
 * succeeded first charge (and the gateway's), the cycle-1 row, the bank credit, the allowance and
 * the timeline's events; the customers at the test gateway, `card_declined` for the failing ones.
 * The plan is monthly at $99 with a $50 bank credit and one HydraFacial a cycle (roll-over cap 2).
 *
 * Budget (issue 33): the day's run under 10 minutes on this machine, its cost linear in the
 * members due, not in all members.
 */
import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { enqueueMessage } from '#server/messaging/outbound.ts'
import { createBilling, createBillingClock } from '#server/modules/memberships/index.ts'
import { createTestMemberPayments } from '#server/payments/member-gateway.ts'
import { postgresBackend } from '#server/testing/test-app.ts'
import { rowsOf } from './scale-seed.ts'

/** The run's budget (issue 33). */
export const BILLING_BUDGET_SECONDS = 600

export type BillingScenario = {
  label: string
  members: number
  due: number
  /** Members whose card is declined when charged. */
  failing: number
  seedSeconds: number
  runSeconds: number
  /** Gateway calls (succeeded and declined) per second of the run. */
  chargesPerSecond: number
  /** Milliseconds of the run per member due. */
  msPerDue: number
  /** CPU milliseconds of this process (user + system) per member due: the bench's own cost, which the machine's load does not inflate as much as the wall time. */
  cpuMsPerDue: number
  charged: number
  failed: number
  unknown: number
  notices: number
  /** Peak resident set and heap used during the run, and the resident set before it (MB). */
  rssBeforeMb: number
  peakRssMb: number
  peakHeapMb: number
  /** (membership, cycle) pairs with more than one succeeded charge, ours or the gateway's. */
  doubleCharges: number
  /** The checks that did not hold (empty: all held). */
  problems: string[]
}

export type BillingBench = {
  database: string
  concurrency: number
  scenarios: BillingScenario[]
}

const PRACTICE_ID = 1
const ACCOUNT_ID = 'acct_test_bench_billing'
const PRICE_CENTS = 9_900
const BANK_CENTS = 5_000
/** The demo practice's HydraFacial (procedures.id 2 of the seed). */
const ALLOWANCE_ITEM = 2
const ALLOWANCE = { quantity: 1, rollover_cap: 2 }

/** The renewal day: midnight UTC, 30 days from today, so cycle 1 started about today. */
function renewalDay(): Date {
  const today = new Date()
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 30))
}

/**
 * Writes the plan, the payment account and `members` members, the first `due` renewing at
 * `renewal` and the rest on one of the 29 days after; every twentieth card of the due ones
 * declines when `failing`. Answers the plan version's id and the failing members' count.
 */
async function seed(
  db: Database,
  options: { members: number; due: number; failing: boolean; renewal: Date },
): Promise<{ failing: number }> {
  const { members, due, renewal } = options
  const perks = {
    bank_cents: BANK_CENTS,
    allowances: [{ catalogue_item_id: ALLOWANCE_ITEM, ...ALLOWANCE }],
    discount_percent: 10,
    discount_item_ids: [],
    points_multiplier: 1,
    join_bonus_points: 0,
  }
  await db.execute(sql`insert into test_gateway_accounts (id) values (${ACCOUNT_ID})`)
  await db.execute(
    sql`insert into payment_accounts (practice_id, provider, account_id) values (${PRACTICE_ID}, 'test', ${ACCOUNT_ID})`,
  )
  const [plan] = await rowsOf<{ id: number }>(
    db,
    sql`insert into membership_plans (practice_id, name, description)
        values (${PRACTICE_ID}, 'Glow Monthly', 'The bench plan') returning id`,
  )
  const [version] = await rowsOf<{ id: number }>(
    db,
    sql`insert into membership_plan_versions (practice_id, plan_id, version, price_cents, interval, perks)
        values (${PRACTICE_ID}, ${plan?.id}, 1, ${PRICE_CENTS}, 'month', ${JSON.stringify(perks)}::jsonb)
        returning id`,
  )
  const versionId = version?.id as number
  const renewalIso = renewal.toISOString()
  // g: 1…members; the first `due` renew on the day, the others on one of the 29 days after.
  const failingCase = options.failing
    ? sql`case when g <= ${due} and g % 20 = 0 then 'card_declined' else 'ok' end`
    : sql`'ok'`
  await db.execute(sql`
    insert into patients (practice_id, first_name, last_name, email, phone, sms_subscription, unsubscribe_id)
    select ${PRACTICE_ID}, 'Member', 'Bench ' || g, 'member' || g || '@bench.test',
           '555' || lpad(g::text, 7, '0'), g % 4 = 0, 'bench_billing_' || g
    from generate_series(1, ${members}) g`)
  await db.execute(sql`
    insert into test_gateway_member_customers
      (id, account_id, card_brand, card_last4, card_exp_month, card_exp_year, charge_outcome)
    select 'cus_bench_' || g, ${ACCOUNT_ID}, 'visa', case when g % 20 = 0 then '0341' else '4242' end,
           12, extract(year from ${renewalIso}::timestamptz)::int + 4, ${failingCase}
    from generate_series(1, ${members}) g`)
  await db.execute(sql`
    insert into memberships
      (practice_id, patient_id, plan_version_id, status, started_at, cycle, current_period_start,
       current_period_end, renews_at, next_payment_attempt_at, bank_cents, customer_id, card_brand,
       card_last4, card_exp_month, card_exp_year, consent_text_version, consent_accepted_by_name,
       consent_at, consent_method, idempotency_key, created_at)
    select ${PRACTICE_ID}, p.id, ${versionId}, 'active', r.renews - interval '1 month', 1,
           r.renews - interval '1 month', r.renews, r.renews, r.renews, ${BANK_CENTS},
           c.id, c.card_brand, c.card_last4, c.card_exp_month, c.card_exp_year, '2025-01',
           p.first_name || ' ' || p.last_name, r.renews - interval '1 month', 'desk',
           'bench_' || p.g, r.renews - interval '1 month'
    from (select id, first_name, last_name, substr(unsubscribe_id, 15)::int as g
          from patients where unsubscribe_id like 'bench_billing_%') p
    cross join lateral (
      select ${renewalIso}::timestamptz
             + case when p.g <= ${due} then interval '0' else (p.g % 29 + 1) * interval '1 day' end
             as renews
    ) r
    join test_gateway_member_customers c on c.id = 'cus_bench_' || p.g`)
  // The first charge, at the gateway and ours, as enrolment writes them.
  await db.execute(sql`
    insert into test_gateway_charges
      (id, idempotency_key, account_id, customer_id, kind, amount_cents, status, metadata, created_at)
    select 'ch_bench_' || m.id, 'enrol_' || m.practice_id || '_' || m.idempotency_key || '_first',
           ${ACCOUNT_ID}, m.customer_id, 'charge', ${PRICE_CENTS}, 'succeeded',
           jsonb_build_object('charge_key', 'enrol_' || m.practice_id || '_' || m.idempotency_key || '_first',
                              'patient_id', m.patient_id::text),
           m.started_at
    from memberships m`)
  await db.execute(sql`
    insert into membership_charges
      (practice_id, membership_id, cycle, purpose, attempt, amount_cents, status, idempotency_key,
       gateway_ref, created_at, settled_at)
    select m.practice_id, m.id, 1, 'cycle', 1, ${PRICE_CENTS}, 'succeeded',
           'enrol_' || m.practice_id || '_' || m.idempotency_key || '_first', 'ch_bench_' || m.id,
           m.started_at, m.started_at
    from memberships m`)
  await db.execute(sql`
    insert into membership_cycles
      (membership_id, cycle, practice_id, plan_version_id, charge_id, period_start, period_end,
       bank_cents, created_at)
    select m.id, 1, m.practice_id, m.plan_version_id, c.id, m.current_period_start,
           m.current_period_end, ${BANK_CENTS}, m.started_at
    from memberships m join membership_charges c on c.membership_id = m.id and c.cycle = 1`)
  await db.execute(sql`
    insert into membership_bank_entries
      (practice_id, membership_id, kind, cycle, amount_cents, balance_after, created_at)
    select m.practice_id, m.id, 'credit', 1, ${BANK_CENTS}, ${BANK_CENTS}, m.started_at
    from memberships m`)
  await db.execute(sql`
    insert into membership_allowances (membership_id, catalogue_item_id, practice_id, remaining)
    select m.id, ${ALLOWANCE_ITEM}, m.practice_id, ${ALLOWANCE.quantity} from memberships m`)
  await db.execute(sql`
    insert into membership_events (practice_id, membership_id, kind, amount_cents, detail, at)
    select m.practice_id, m.id, e.kind, e.amount, e.detail, m.started_at
    from memberships m cross join (values
      ('enrolled', null::int, 'Joined Glow Monthly (version 1); the member accepted the agreement of 2025-01, automatic renewal included.'),
      ('charged', ${PRICE_CENTS}::int, 'Charged $99.00 for cycle 1.'),
      ('perks_issued', ${BANK_CENTS}::int, 'Cycle 1''s perks: $50.00 banked, 1 included treatment.')
    ) as e(kind, amount, detail)`)
  await db.execute(sql`analyze`)
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from test_gateway_member_customers where charge_outcome <> 'ok'`,
  )
  return { failing: Number(row?.n ?? 0) }
}

/** The checks of the outcome; answers the double charges and the checks that did not hold. */
async function check(
  db: Database,
  expected: { members: number; due: number; failing: number },
): Promise<{ doubleCharges: number; problems: string[] }> {
  const one = async (query: ReturnType<typeof sql>) =>
    Number((await rowsOf<{ n: number }>(db, query))[0]?.n ?? 0)
  const good = expected.due - expected.failing
  const problems: string[] = []
  const expect = (what: string, actual: number, wanted: number) => {
    if (actual !== wanted) problems.push(`${what}: ${actual}, expected ${wanted}`)
  }
  const ours = await one(sql`
    select count(*)::int as n from (
      select membership_id, cycle from membership_charges
      where status = 'succeeded' and purpose = 'cycle'
      group by membership_id, cycle having count(*) > 1) d`)
  const gateway = await one(sql`
    select count(*)::int as n from (
      select metadata->>'membership_id', metadata->>'cycle' from test_gateway_charges
      where status = 'succeeded' and kind = 'charge' and metadata ? 'membership_id'
      group by 1, 2 having count(*) > 1) d`)
  expect(
    'members with one succeeded cycle-2 charge',
    await one(sql`
      select count(distinct membership_id)::int as n from membership_charges
      where cycle = 2 and purpose = 'cycle' and status = 'succeeded'`),
    good,
  )
  expect(
    'succeeded cycle-2 charges',
    await one(sql`
      select count(*)::int as n from membership_charges
      where cycle = 2 and purpose = 'cycle' and status = 'succeeded'`),
    good,
  )
  expect(
    'succeeded charges at the gateway (cycle 2)',
    await one(sql`
      select count(*)::int as n from test_gateway_charges
      where status = 'succeeded' and metadata->>'cycle' = '2'`),
    good,
  )
  expect(
    'charges left pending',
    await one(sql`select count(*)::int as n from membership_charges where status = 'pending'`),
    0,
  )
  expect(
    'members in cycle 2, active, renewing a month on',
    await one(sql`
      select count(*)::int as n from memberships
      where cycle = 2 and status = 'active' and failed_attempts = 0
        and renews_at = next_payment_attempt_at and renews_at > current_period_start`),
    good,
  )
  expect(
    'cycle-2 perks (cycle rows with the charge)',
    await one(sql`
      select count(*)::int as n from membership_cycles
      where cycle = 2 and charge_id is not null and bank_cents = ${BANK_CENTS}`),
    good,
  )
  expect(
    'cycle-2 bank credits, balance $100',
    await one(sql`
      select count(*)::int as n from membership_bank_entries b
      join memberships m on m.id = b.membership_id
      where b.kind = 'credit' and b.cycle = 2 and b.balance_after = ${2 * BANK_CENTS}
        and m.bank_cents = ${2 * BANK_CENTS}`),
    good,
  )
  expect(
    'allowances refilled (1 rolled over + 1)',
    await one(sql`
      select count(*)::int as n from membership_allowances
      where remaining = ${Math.min(ALLOWANCE.quantity, ALLOWANCE.rollover_cap) + ALLOWANCE.quantity}`),
    good,
  )
  expect(
    'failing members past due, one failed attempt, retry tomorrow',
    await one(sql`
      select count(*)::int as n from memberships
      where status = 'past_due' and cycle = 1 and failed_attempts = 1
        and next_payment_attempt_at = renews_at + interval '1 day' and card_link_hash is not null`),
    expected.failing,
  )
  expect(
    'failed cycle-2 attempts',
    await one(sql`
      select count(*)::int as n from membership_charges
      where cycle = 2 and status = 'failed' and attempt = 1`),
    expected.failing,
  )
  expect(
    'members with exactly one notice',
    await one(sql`
      select count(*)::int as n from (
        select membership_id from membership_events where kind = 'notice_sent'
        group by membership_id having count(*) = 1) d`),
    expected.failing,
  )
  expect(
    'notice_sent events',
    await one(sql`select count(*)::int as n from membership_events where kind = 'notice_sent'`),
    expected.failing,
  )
  expect(
    'declined e-mails queued',
    await one(sql`
      select count(*)::int as n from outbound_messages
      where channel = 'email' and subject like '%payment was declined'`),
    expected.failing,
  )
  expect(
    'members not due, untouched',
    await one(sql`
      select count(*)::int as n from memberships
      where cycle = 1 and status = 'active' and failed_attempts = 0
        and next_payment_attempt_at = renews_at`),
    expected.members - expected.due,
  )
  return { doubleCharges: ours + gateway, problems }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)

async function runScenario(
  baseUrl: string,
  scenario: { label: string; members: number; due: number; failing: boolean },
  concurrency: number,
): Promise<BillingScenario> {
  const handle = await postgresBackend(baseUrl).open({ seeded: true })
  const { db } = handle
  try {
    const renewal = renewalDay()
    const seedStarted = performance.now()
    const { failing } = await seed(db, { ...scenario, renewal })
    const seedSeconds = (performance.now() - seedStarted) / 1000
    // The billing clock moved to 06:00 on the renewal day, as `POST /dev/clock` moves it.
    const wall = () => new Date()
    const offset = renewal.getTime() + 6 * 3_600_000 - Date.now()
    await db.execute(sql`insert into billing_clock (id, offset_ms) values (1, ${offset})`)
    const clock = createBillingClock(db, wall)
    const payments = createTestMemberPayments({
      db,
      gateway: {
        takeCard() {
          throw new Error('The bench saves no card.')
        },
      },
      clock: () => clock.now(),
    })
    let kicked = 0
    const billing = createBilling({
      db,
      payments,
      outbound: {
        enqueue: (executor, message, options) =>
          enqueueMessage(executor, message, new Date(), options),
        kick: () => {
          kicked++
        },
      },
      publicUrl: 'http://localhost:3000',
      now: wall,
      log: memoryLogger(),
    })
    globalThis.gc?.()
    const before = process.memoryUsage()
    let peakRss = before.rss
    let peakHeap = before.heapUsed
    const sample = () => {
      const usage = process.memoryUsage()
      peakRss = Math.max(peakRss, usage.rss)
      peakHeap = Math.max(peakHeap, usage.heapUsed)
    }
    const sampler = setInterval(sample, 50)
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    let outcome: Awaited<ReturnType<typeof billing.runDue>>
    try {
      outcome = await billing.runDue({ concurrency })
    } finally {
      clearInterval(sampler)
    }
    const runSeconds = (performance.now() - started) / 1000
    const cpu = process.cpuUsage(cpuBefore)
    sample()
    const checked = await check(db, { members: scenario.members, due: scenario.due, failing })
    if (outcome.notices > 0 && kicked === 0)
      checked.problems.push('the outbound queue was not kicked')
    if (outcome.charged + outcome.failed !== scenario.due) {
      checked.problems.push(
        `the run counted ${outcome.charged} charged and ${outcome.failed} failed of ${scenario.due} due`,
      )
    }
    return {
      label: scenario.label,
      members: scenario.members,
      due: scenario.due,
      failing,
      seedSeconds,
      runSeconds,
      chargesPerSecond: (outcome.charged + outcome.failed) / runSeconds,
      msPerDue: (runSeconds * 1000) / scenario.due,
      cpuMsPerDue: (cpu.user + cpu.system) / 1000 / scenario.due,
      charged: outcome.charged,
      failed: outcome.failed,
      unknown: outcome.unknown,
      notices: outcome.notices,
      rssBeforeMb: mb(before.rss),
      peakRssMb: mb(peakRss),
      peakHeapMb: mb(peakHeap),
      doubleCharges: checked.doubleCharges,
      problems: checked.problems,
    }
  } finally {
    await handle.close()
  }
}

/** The base database the scenarios' databases are created next to. */
export function billingDatabaseUrl(env = process.env): string {
  return (
    (env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL)?.trim() ||
    'postgres://postgres@127.0.0.1:5432/postgres'
  )
}

/** The scenarios: `a` all due and good, `b` 5% failing, `c` the linearity pair. */
export type BillingScenarioKey = 'a' | 'b' | 'c'

export async function benchBilling({
  members = 100_000,
  concurrency = 8,
  scenarios: keys = ['a', 'b', 'c'],
  onScenario,
}: {
  members?: number
  concurrency?: number
  scenarios?: readonly BillingScenarioKey[]
  /** Called after each scenario (progress on a long run). */
  onScenario?: (scenario: BillingScenario) => void
} = {}): Promise<BillingBench> {
  const baseUrl = billingDatabaseUrl()
  const tenth = Math.max(1, Math.round(members / 10))
  const plan = [
    { key: 'a', label: 'A: all due, all good', members, due: members, failing: false },
    { key: 'b', label: 'B: all due, 5% failing', members, due: members, failing: true },
    { key: 'c', label: 'C: a tenth due among all', members, due: tenth, failing: false },
    { key: 'c', label: 'C: the same due alone', members: tenth, due: tenth, failing: false },
  ].filter((s) => keys.includes(s.key as BillingScenarioKey))
  const scenarios: BillingScenario[] = []
  for (const { key: _key, ...scenario } of plan) {
    const result = await runScenario(baseUrl, scenario, concurrency)
    scenarios.push(result)
    onScenario?.(result)
  }
  return { database: 'PostgreSQL', concurrency, scenarios }
}

/** The failures of the bench: a check that did not hold, a double charge (not the budget). */
export function billingFailures(bench: BillingBench): string[] {
  return bench.scenarios.flatMap((s) => [
    ...s.problems.map((problem) => `billing, ${s.label}: ${problem}`),
    ...(s.doubleCharges > 0 ? [`billing, ${s.label}: ${s.doubleCharges} double charges`] : []),
  ])
}

const n = (value: number) => value.toLocaleString('en-US')

/** The bench's table. */
export function formatBillingTable(bench: BillingBench): string {
  const lines = [
    `A day of membership renewals on ${bench.database} (test gateway, runDue concurrency ${bench.concurrency}; budget: under ${BILLING_BUDGET_SECONDS / 60} min, cost linear in the members due)`,
    '| Scenario | Members | Due | Run time | Charges/s | ms per due | CPU ms per due | Failures | Notices | Peak RSS (before) | Peak heap | Double charges | Checks |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const s of bench.scenarios) {
    lines.push(
      `| ${s.label} | ${n(s.members)} | ${n(s.due)} | ${s.runSeconds.toFixed(1)} s${s.runSeconds > BILLING_BUDGET_SECONDS ? ' ✖' : ''} | ${Math.round(s.chargesPerSecond)} | ${s.msPerDue.toFixed(2)} | ${s.cpuMsPerDue.toFixed(2)} | ${n(s.failed)} | ${n(s.notices)} | ${s.peakRssMb} MB (${s.rssBeforeMb}) | ${s.peakHeapMb} MB | ${s.doubleCharges} | ${s.problems.length ? `✖ ${s.problems.length}` : 'ok'} |`,
    )
  }
  const among = bench.scenarios.find((s) => s.label.startsWith('C: a tenth'))
  const alone = bench.scenarios.find((s) => s.label.startsWith('C: the same'))
  if (among && alone) {
    lines.push(
      `Linearity: ${among.msPerDue.toFixed(2)} ms per due member among ${n(among.members)} members, ${alone.msPerDue.toFixed(2)} ms alone (× ${(among.msPerDue / alone.msPerDue).toFixed(2)}).`,
    )
  }
  for (const s of bench.scenarios) {
    for (const problem of s.problems) lines.push(`✖ ${s.label}: ${problem}`)
  }
  lines.push(
    `Seeding (SQL, not timed in the run): ${bench.scenarios.map((s) => `${s.seedSeconds.toFixed(0)} s`).join(', ')}.`,
  )
  return lines.join('\n')
}

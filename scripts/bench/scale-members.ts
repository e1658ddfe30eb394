/**
 * The members of the "portal at scale" bench (scripts/bench/scale.ts): every patient of a scale
 * practice (scripts/bench/scale-seed.ts) a member of one plan, with up to 15 months of billing
 * history, written in bulk SQL (`INSERT … SELECT`, as the billing bench seeds its members) yet as
 * enrolment and the billing run (server/modules/memberships) would have written it.
 *
 * The practice gets a HydraFacial ($199) and a chemical peel ($150) in its catalogue, its payment
 * account connected (the test gateway's), and the plan "Glow Monthly": $99 a month, $100 banked
 * and 1 HydraFacial included per cycle, 15% member price, 2× points. The `n`th patient (by id)
 * joined 1 to 15 months ago and paid every cycle since, one charge, one cycle row, one bank
 * `credit` (its `balance_after` the running sum, `memberships.bank_cents` the last one) and the
 * timeline's events each; the cycle's allowance is left. Among them:
 * - every 20th (n ≡ 1) cancelled now by the patient in its last paid cycle, its bank kept;
 * - every 20th (n ≡ 7) past due: the renewal two days ago declined, and its retry a day later,
 *   the next try tomorrow;
 * - every 10th (n ≡ 3) with 3 paid cycles or more paid its second renewal on the retry, a day
 *   late (a past-due episode recovered);
 * - the others active, renewing in 3 to 27 days.
 *
 * ```ts
 * const members = await enrolMembers(db, practice)
 * ```
 */
import { sql } from 'drizzle-orm'
import { MEMBERSHIP_AGREEMENT, type PlanPerks } from '#domain/memberships.ts'
import type { Database } from '#server/db/client.ts'
import { rowsOf, type ScalePractice } from './scale-seed.ts'

/** The plan's price and what a paid cycle banks. */
const PRICE_CENTS = 9_900
const BANK_CENTS = 10_000

/** What the checkout of the bench needs of a practice's members. */
export type ScaleMembers = {
  /** Memberships of the practice (one per patient). */
  members: number
  /** The included treatment (1 a cycle) and a procedure charged at the member price. */
  hydraFacialId: number
  peelId: number
  /** Patients whose membership is active (perks apply, the bank holds at least $100), by id. */
  activePatientIds: number[]
}

/**
 * Makes every patient of the practice a member, with its history (see the file's comment), in
 * one transaction; then refreshes the planner's statistics and checks the banks.
 */
export async function enrolMembers(db: Database, practice: ScalePractice): Promise<ScaleMembers> {
  const practiceId = practice.practiceId
  const account = `acct_test_bench_scale_${practiceId}`
  const now = new Date().toISOString()
  const ids = await db.transaction(async (tx) => {
    // Months are added as the billing clock adds them (domain/memberships.ts addMonths): in UTC.
    await tx.execute(sql`set local time zone 'UTC'`)
    const [hydra] = await rowsOf<{ id: number }>(
      tx,
      sql`insert into procedures (practice_id, name, price)
          values (${practiceId}::int, 'HydraFacial', 19900) returning id`,
    )
    const [peel] = await rowsOf<{ id: number }>(
      tx,
      sql`insert into procedures (practice_id, name, price, points)
          values (${practiceId}::int, 'Chemical peel', 15000, 100) returning id`,
    )
    if (!hydra || !peel) throw new Error('The bench procedures were not created')
    const hydraId = Number(hydra.id)
    await tx.execute(sql`insert into test_gateway_accounts (id) values (${account})`)
    await tx.execute(sql`
      insert into payment_accounts (practice_id, provider, account_id, connected_by)
      values (${practiceId}::int, 'test', ${account}, ${practice.admin.id}::int)`)
    const perks: PlanPerks = {
      bank_cents: BANK_CENTS,
      allowances: [{ catalogue_item_id: hydraId, quantity: 1, rollover_cap: 0 }],
      discount_percent: 15,
      discount_item_ids: [],
      points_multiplier: 2,
      join_bonus_points: 0,
    }
    const [plan] = await rowsOf<{ id: number }>(
      tx,
      sql`insert into membership_plans (practice_id, name, description)
          values (${practiceId}::int, 'Glow Monthly', 'The scale bench plan') returning id`,
    )
    const [version] = await rowsOf<{ id: number }>(
      tx,
      sql`insert into membership_plan_versions
            (practice_id, plan_id, version, price_cents, interval, perks, created_at)
          values (${practiceId}::int, ${plan?.id}::int, 1, ${PRICE_CENTS}::int, 'month',
            ${JSON.stringify(perks)}::jsonb, ${now}::timestamptz - interval '16 months')
          returning id`,
    )
    const versionId = Number(version?.id)

    // Each member's history, by its number n among the practice's patients: `paid` cycles from
    // `s` (cycle c runs from s + (c - 1) months to s + c months).
    await tx.execute(sql`
      create temporary table bench_member on commit drop as
      select p.id as patient_id, p.n, p.first_name || ' ' || p.last_name as name, k.kind,
        1 + (p.n * 7) % 15 as paid,
        case k.kind
          when 'active' then ${now}::timestamptz - (1 + (p.n * 7) % 15) * interval '1 month'
            + (3 + p.n % 25) * interval '1 day'
          when 'past_due' then ${now}::timestamptz - (1 + (p.n * 7) % 15) * interval '1 month'
            - interval '2 days'
          else ${now}::timestamptz - (1 + (p.n * 7) % 15) * interval '1 month' - interval '10 days'
        end as s,
        null::int as membership_id
      from (select id, first_name, last_name, (row_number() over (order by id))::int as n
            from patients where practice_id = ${practiceId}::int) p
      cross join lateral (select case when p.n % 20 = 1 then 'cancelled'
                                      when p.n % 20 = 7 then 'past_due'
                                      else 'active' end as kind) k`)
    await tx.execute(sql`
      insert into test_gateway_member_customers
        (id, account_id, card_brand, card_last4, card_exp_month, card_exp_year, charge_outcome)
      select 'cus_bench_' || ${practiceId}::int || '_' || b.n, ${account}, 'visa',
        case when b.kind = 'past_due' then '0341' else '4242' end, 12,
        extract(year from ${now}::timestamptz)::int + 3,
        case when b.kind = 'past_due' then 'card_declined' else 'ok' end
      from bench_member b`)
    // The membership as the history left it; a cancelled one keeps its bank.
    await tx.execute(sql`
      insert into memberships
        (practice_id, patient_id, plan_version_id, status, started_at, cycle, current_period_start,
         current_period_end, renews_at, next_payment_attempt_at, failed_attempts, cancel_at,
         cancel_reason, ended_at, bank_cents, customer_id, card_brand, card_last4, card_exp_month,
         card_exp_year, card_link_hash, consent_text_version, consent_accepted_by_name, consent_at,
         consent_taken_by, consent_method, idempotency_key, created_at)
      select ${practiceId}::int, b.patient_id, ${versionId}::int, b.kind, b.s, b.paid,
        b.s + (b.paid - 1) * interval '1 month', b.s + b.paid * interval '1 month',
        case when b.kind = 'cancelled' then null else b.s + b.paid * interval '1 month' end,
        case b.kind when 'cancelled' then null
          when 'past_due' then b.s + b.paid * interval '1 month' + interval '3 days'
          else b.s + b.paid * interval '1 month' end,
        case when b.kind = 'past_due' then 2 else 0 end,
        x.at, case when b.kind = 'cancelled' then 'patient' end, x.at,
        b.paid * ${BANK_CENTS}::int, c.id, c.card_brand, c.card_last4, c.card_exp_month,
        c.card_exp_year,
        case when b.kind = 'past_due' then md5('bench-card-link-' || ${practiceId}::int || '-' || b.n) end,
        ${MEMBERSHIP_AGREEMENT.version}, b.name, b.s, ${practice.admin.id}::int, 'desk',
        'bench-member-' || b.n, b.s
      from bench_member b
      join test_gateway_member_customers c on c.id = 'cus_bench_' || ${practiceId}::int || '_' || b.n
      cross join lateral (select case when b.kind = 'cancelled'
        then b.s + (b.paid - 1) * interval '1 month' + interval '12 days' end as at) x`)
    await tx.execute(sql`
      update bench_member b set membership_id = m.id from memberships m
      where m.practice_id = ${practiceId}::int and m.patient_id = b.patient_id`)
    // Every attempt of every cycle: the first charge at enrolment, each renewal on its day (the
    // second renewal of a recovered member declined, then paid a day later on the retry), the
    // past-due members' renewal declined twice.
    await tx.execute(sql`
      create temporary table bench_attempt on commit drop as
      select b.membership_id, b.n, g.c as cycle, a.attempt,
        case when g.c > b.paid or (a.attempt = 1 and g.c = 2 and b.n % 10 = 3 and b.paid >= 3)
          then 'failed' else 'succeeded' end as status,
        b.s + (g.c - 1) * interval '1 month' + (a.attempt - 1) * interval '1 day' as at
      from bench_member b
      cross join lateral generate_series(1, b.paid + case when b.kind = 'past_due' then 1 else 0 end) as g(c)
      cross join lateral generate_series(1,
        case when g.c > b.paid or (g.c = 2 and b.n % 10 = 3 and b.paid >= 3) then 2 else 1 end)
        as a(attempt)`)
    await tx.execute(sql`
      insert into membership_charges
        (practice_id, membership_id, cycle, purpose, attempt, amount_cents, status, idempotency_key,
         gateway_ref, failure_message, created_at, settled_at)
      select ${practiceId}::int, a.membership_id, a.cycle, 'cycle', a.attempt, ${PRICE_CENTS}::int,
        a.status,
        case when a.cycle = 1 then 'enrol_' || ${practiceId}::int || '_bench-member-' || a.n || '_first'
             else 'mbr_' || a.membership_id || '_c' || a.cycle || '_a' || a.attempt end,
        case when a.status = 'succeeded'
          then 'ch_bench_' || a.membership_id || '_' || a.cycle || '_' || a.attempt end,
        case when a.status = 'failed' then 'Your card was declined.' end,
        a.at, a.at
      from bench_attempt a order by a.membership_id, a.cycle, a.attempt`)
    await tx.execute(sql`
      insert into test_gateway_charges
        (id, idempotency_key, account_id, customer_id, kind, amount_cents, status, failure_code,
         failure_message, metadata, created_at)
      select coalesce(c.gateway_ref, 'ch_bench_failed_' || c.id), c.idempotency_key, ${account},
        m.customer_id, 'charge', c.amount_cents, c.status,
        case when c.status = 'failed' then 'card_declined' end, c.failure_message,
        jsonb_build_object('charge_key', c.idempotency_key, 'patient_id', m.patient_id::text,
          'membership_id', m.id::text, 'cycle', c.cycle::text),
        c.created_at
      from membership_charges c join memberships m on m.id = c.membership_id
      where c.practice_id = ${practiceId}::int`)
    // Each paid cycle's perks: its row, the bank's credit (a running balance), the events.
    await tx.execute(sql`
      insert into membership_cycles
        (membership_id, cycle, practice_id, plan_version_id, charge_id, period_start, period_end,
         bank_cents, created_at)
      select c.membership_id, c.cycle, ${practiceId}::int, ${versionId}::int, c.id,
        b.s + (c.cycle - 1) * interval '1 month', b.s + c.cycle * interval '1 month',
        ${BANK_CENTS}::int, c.settled_at
      from membership_charges c join bench_member b on b.membership_id = c.membership_id
      where c.practice_id = ${practiceId}::int and c.status = 'succeeded'
      order by c.membership_id, c.cycle`)
    await tx.execute(sql`
      insert into membership_bank_entries
        (practice_id, membership_id, kind, cycle, amount_cents, balance_after, created_at)
      select ${practiceId}::int, y.membership_id, 'credit', y.cycle, ${BANK_CENTS}::int,
        y.cycle * ${BANK_CENTS}::int, y.created_at
      from membership_cycles y where y.practice_id = ${practiceId}::int
      order by y.membership_id, y.cycle`)
    await tx.execute(sql`
      insert into membership_allowances (membership_id, catalogue_item_id, practice_id, remaining)
      select b.membership_id, ${hydraId}::int, ${practiceId}::int, 1 from bench_member b`)
    // In time order per membership, as they happened (the timeline reads them by id).
    await tx.execute(sql`
      insert into membership_events (practice_id, membership_id, kind, amount_cents, detail, user_id, at)
      select practice_id, membership_id, kind, amount_cents, detail, user_id, at from (
      select ${practiceId}::int as practice_id, b.membership_id, 'enrolled' as kind,
        null::int as amount_cents,
        'Joined Glow Monthly (version 1); the member accepted the agreement of '
          || ${MEMBERSHIP_AGREEMENT.version} || ', automatic renewal included.' as detail,
        ${practice.admin.id}::int as user_id, b.s as at, 0 as tie
      from bench_member b
      union all
      select ${practiceId}::int, a.membership_id,
        case when a.status = 'succeeded' then 'charged' else 'charge_failed' end,
        ${PRICE_CENTS}::int,
        case when a.status = 'succeeded'
          then 'Charged $99.00 for cycle ' || a.cycle || case when a.attempt > 1 then ' (it was past due).' else '.' end
          else 'The charge of $99.00 for cycle ' || a.cycle || ' was declined: Your card was declined.' end,
        null, a.at, 1
      from bench_attempt a
      union all
      select ${practiceId}::int, a.membership_id, 'perks_issued', ${BANK_CENTS}::int,
        'Cycle ' || a.cycle || '''s perks: $100.00 banked, 1 included treatment.', null, a.at, 2
      from bench_attempt a where a.status = 'succeeded'
      union all
      select ${practiceId}::int, a.membership_id, 'past_due', null, 'The membership is past due.',
        null, a.at, 2
      from bench_attempt a where a.status = 'failed' and a.attempt = 1
      union all
      select ${practiceId}::int, b.membership_id, 'cancelled', null,
        'Cancelled now: no refund; the bank stays the patient''s.', ${practice.admin.id}::int,
        b.s + (b.paid - 1) * interval '1 month' + interval '12 days', 0
      from bench_member b where b.kind = 'cancelled'
      ) e order by membership_id, at, tie`)
    const active = await rowsOf<{ patient_id: number }>(
      tx,
      sql`select patient_id from bench_member where kind = 'active' order by patient_id`,
    )
    return { hydraId, peelId: Number(peel.id), active: active.map((r) => Number(r.patient_id)) }
  })
  await db.execute(sql`analyze`)
  const members = await verifyMembers(db, practiceId)
  return {
    members,
    hydraFacialId: ids.hydraId,
    peelId: ids.peelId,
    activePatientIds: ids.active,
  }
}

/**
 * Throws unless the practice's memberships hold together: one per patient, each bank the sum of
 * its entries and its last `balance_after`, one paid charge and one cycle row per paid cycle.
 * Answers the memberships counted.
 */
export async function verifyMembers(db: Database, practiceId: number): Promise<number> {
  const [check] = await rowsOf<{
    members: number
    patients: number
    drift: number
    cycles: number
  }>(
    db,
    sql`select
      (select count(*)::int from memberships where practice_id = ${practiceId}::int) as members,
      (select count(*)::int from patients where practice_id = ${practiceId}::int) as patients,
      (select count(*)::int from memberships m
         left join lateral (select coalesce(sum(amount_cents), 0)::int as total,
                              (array_agg(balance_after order by id desc))[1] as last
                            from membership_bank_entries where membership_id = m.id) e on true
         where m.practice_id = ${practiceId}::int
           and (m.bank_cents <> e.total or m.bank_cents <> coalesce(e.last, 0))) as drift,
      (select count(*)::int from memberships m
         where m.practice_id = ${practiceId}::int
           and (m.cycle <> (select count(*) from membership_cycles y where y.membership_id = m.id)
             or m.cycle <> (select count(*) from membership_charges c where c.membership_id = m.id
                              and c.purpose = 'cycle' and c.status = 'succeeded'))) as cycles`,
  )
  if (!check || check.members !== check.patients || check.drift || check.cycles) {
    throw new Error(
      `The seeded memberships do not hold together: ${check?.members} memberships for ` +
        `${check?.patients} patients, ${check?.drift} banks drift, ${check?.cycles} cycle counts wrong`,
    )
  }
  return Number(check.members)
}

/**
 * Random sequences of enrolments, renewals, failing cards, card updates, retries racing the run,
 * lost answers, crashes before the call, pauses, cancels, plan changes, duplicated and reordered
 * webhooks and clock jumps, over 36 simulated months, on both databases; after every step the
 * invariants of money: at most one successful charge per membership and cycle (at the gateway and
 * here), perks exactly for paid cycles, the bank never negative and equal to its entries, one
 * status per membership and one membership that runs per patient.
 */
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { contextOf } from '#server/app.ts'
import type { AuthUser } from '#server/context.ts'
import { procedures } from '#server/db/schema.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import type { MemberPayments, TestMemberPayments } from '#server/payments/member-gateway.ts'
import { PaymentError } from '#server/payments/provider.ts'
import { CARDS, PLAN } from '#server/testing/memberships.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'
import { createBilling } from './billing.ts'
import { membershipsOf } from './routes.ts'

type Who = { who: number }
type Op =
  | ({ op: 'enrol'; card: 'ok' | 'fails' } & Who)
  | { op: 'clock'; days: number }
  | ({ op: 'card'; card: 'ok' | 'fails' } & Who)
  | ({ op: 'retry' } & Who)
  | ({ op: 'race' } & Who)
  | { op: 'lost' }
  | { op: 'crash' }
  | ({ op: 'pause'; cycles: number } & Who)
  | ({ op: 'resume' } & Who)
  | ({ op: 'cancel'; at: 'period_end' | 'now'; refund: boolean } & Who)
  | ({ op: 'undo' } & Who)
  | ({ op: 'change'; at: 'now' | 'period_end' } & Who)
  | { op: 'webhooks'; pick: number[]; reverse: boolean }

const who = fc.nat({ max: 2 })
const card = fc.constantFrom('ok' as const, 'ok' as const, 'fails' as const)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('enrol' as const), who, card }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('clock' as const),
      days: fc.integer({ min: 1, max: 45 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('card' as const),
      who,
      card: fc.constantFrom('ok' as const, 'fails' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retry' as const), who }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('race' as const), who }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('lost' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('crash' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('pause' as const),
      who,
      cycles: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resume' as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('cancel' as const),
      who,
      at: fc.constantFrom('period_end' as const, 'now' as const),
      refund: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('undo' as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('change' as const),
      who,
      at: fc.constantFrom('now' as const, 'period_end' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('webhooks' as const),
      pick: fc.array(fc.nat({ max: 200 }), { maxLength: 12 }),
      reverse: fc.boolean(),
    }),
  },
)

/** The gateway as a network loses it: the charge is made and its answer lost, or never sent. */
function faulty(inner: MemberPayments, mode: 'lost' | 'crash'): MemberPayments {
  return {
    ...inner,
    verifyEvent: inner.verifyEvent,
    async charge(input) {
      if (mode === 'lost') await inner.charge(input).catch(() => undefined)
      throw new PaymentError(502, 'provider_unavailable', 'The connection was reset.')
    },
  }
}

/** Sequences per database (PGlite, single-threaded, runs fewer; MEMBERSHIP_PROPERTY_RUNS sets both). */
const runsOn = (name: string) =>
  Number(process.env.MEMBERSHIP_PROPERTY_RUNS ?? (name === 'pglite' ? 2 : 5))
const MONTHS = 36

describe.each(testBackends())('membership billing, property-based, on $name', (backend) => {
  const t = useTestApp(backend)

  it(`charges each membership at most once a cycle and issues perks exactly for paid cycles over ${MONTHS} months`, async () => {
    const ctx = contextOf(t.app)
    const { service, billing } = membershipsOf(ctx)
    const gateway = ctx.memberPayments as TestMemberPayments
    const admin: AuthUser = {
      id: t.demo.admin.id,
      practice_id: t.demo.practiceId,
      access_rights: 'Admin',
      email: 'admin@example.com',
    }
    await service.connect(admin)
    const [item] = await t.db
      .insert(procedures)
      .values({ practice_id: t.demo.practiceId, name: 'Property HydraFacial', price: 19_900 })
      .returning()
    const perks = {
      ...PLAN.perks,
      allowances: [{ catalogue_item_id: item?.id as number, quantity: 1, rollover_cap: 2 }],
    }
    const plans = [
      await service.createPlan(admin, { ...PLAN, name: 'Property Monthly', perks }),
      await service.createPlan(admin, {
        ...PLAN,
        name: 'Property Plus',
        price_cents: 14_900,
        min_cycles: 1,
        notice_days: 10,
        perks: { ...perks, bank_cents: 8000 },
      }),
    ]
    const year = new Date().getUTCFullYear() + 49
    const token = (kind: 'ok' | 'fails') =>
      t.payments.tokeniser.createToken({
        number: kind === 'ok' ? CARDS.ok : CARDS.failsWhenCharged,
        exp_month: 12,
        exp_year: year,
        cvc: '123',
      }).id
    const stats = { sequences: 0, steps: 0, charges: 0, declines: 0, webhooks: 0, doubleCharges: 0 }
    let run = 0

    const live = async (patientId: number) =>
      (await service.patientMemberships(t.demo.practiceId, patientId)).find((m) =>
        ['active', 'past_due', 'paused', 'unpaid'].includes(m.status),
      )
    /** Runs a change; a refusal the product words (a status that does not allow it, a decline) is fine. */
    const tolerate = async (step: () => Promise<unknown>) => {
      try {
        await step()
      } catch (error) {
        if (error instanceof DomainError || error instanceof PaymentError) return
        throw error
      }
    }

    async function checkInvariants() {
      const rows = async (query: ReturnType<typeof sql>) =>
        ((await t.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows
      const doubled = await rows(sql`
        select metadata->>'membership_id' as m, metadata->>'cycle' as c, count(*)::int as n
        from test_gateway_charges
        where kind = 'charge' and status = 'succeeded' and metadata ? 'cycle'
        group by 1, 2 having count(*) > 1`)
      stats.doubleCharges += doubled.length
      expect(doubled, 'a cycle charged twice at the gateway').toEqual([])
      const ours = await rows(sql`
        select membership_id, cycle, count(*)::int as n from membership_charges
        where purpose = 'cycle' and status = 'succeeded' group by 1, 2 having count(*) > 1`)
      expect(ours, 'a cycle recorded as paid twice').toEqual([])
      const taken = await rows(sql`
        select g.idempotency_key from test_gateway_charges g
        join membership_charges c on c.idempotency_key = g.idempotency_key
        where g.kind = 'charge' and g.status = 'succeeded' and c.status = 'failed'`)
      expect(taken, 'money taken but recorded as declined').toEqual([])
      const perksWithoutPay = await rows(sql`
        select y.membership_id, y.cycle from membership_cycles y
        where not exists (select 1 from membership_charges c where c.membership_id = y.membership_id
          and c.cycle = y.cycle and c.purpose = 'cycle' and c.status = 'succeeded')`)
      expect(perksWithoutPay, 'perks for an unpaid cycle').toEqual([])
      const payWithoutPerks = await rows(sql`
        select c.membership_id, c.cycle from membership_charges c
        where c.purpose = 'cycle' and c.status = 'succeeded' and not exists
          (select 1 from membership_cycles y where y.membership_id = c.membership_id and y.cycle = c.cycle)`)
      expect(payWithoutPerks, 'a paid cycle without its perks').toEqual([])
      const credits = await rows(sql`
        select y.membership_id, y.cycle from membership_cycles y
        where y.bank_cents > 0 and (select count(*) from membership_bank_entries b
          where b.membership_id = y.membership_id and b.cycle = y.cycle and b.kind = 'credit') <> 1`)
      expect(credits, 'a paid cycle without exactly one bank credit').toEqual([])
      const bank = await rows(sql`
        select m.id, m.bank_cents, coalesce((select sum(b.amount_cents) from membership_bank_entries b
          where b.membership_id = m.id), 0)::int as entries
        from memberships m
        where m.bank_cents < 0 or m.bank_cents <> coalesce((select sum(b.amount_cents)
          from membership_bank_entries b where b.membership_id = m.id), 0)`)
      expect(bank, 'a bank that is negative or differs from its entries').toEqual([])
      const twoLive = await rows(sql`
        select patient_id from memberships where status in ('active', 'past_due', 'paused', 'unpaid')
        group by patient_id having count(*) > 1`)
      expect(twoLive, 'a patient with two memberships that run').toEqual([])
      const states = await rows(sql`
        select id, status from memberships
        where (status in ('active', 'past_due') and next_payment_attempt_at is null)
           or (status in ('unpaid', 'cancelled', 'ended') and next_payment_attempt_at is not null)
           or (status = 'paused' and renews_at is null)
           or cycle <> (select max(c.cycle) from membership_charges c where c.membership_id = memberships.id
                and c.purpose = 'cycle' and c.status = 'succeeded')`)
      expect(states, 'a membership whose fields contradict its status').toEqual([])
    }

    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 30 }), async (ops) => {
        run++
        stats.sequences++
        const patients = await Promise.all(
          [0, 1, 2].map((i) =>
            insertPatient(t.db, {
              practice_id: t.demo.practiceId,
              first_name: `Prop${run}`,
              last_name: `Patient${i}`,
              email: `prop.${run}.${i}.${Math.random().toString(36).slice(2)}@example.com`,
              phone: null,
            }),
          ),
        )
        const start = await billing.clock.now()
        const apply = async (op: Op) => {
          const patient = 'who' in op ? patients[op.who] : undefined
          const m = patient ? await live(patient.id) : undefined
          switch (op.op) {
            case 'enrol':
              return tolerate(() =>
                service.enrol(admin, patient?.id as number, {
                  plan_id: (plans[run % 2] ?? plans[0])?.id as number,
                  payment_method_token: token(op.card),
                  consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Prop' },
                  idempotencyKey: `prop-${run}-${op.who}-${Math.random().toString(36).slice(2)}`,
                }),
              )
            case 'clock': {
              await billing.clock.advance(op.days)
              const done = await billing.runDue()
              stats.charges += done.charged
              stats.declines += done.failed
              return
            }
            case 'card':
              return m && tolerate(() => service.cardByStaff(admin, m.id, token(op.card)))
            case 'retry':
              return m && tolerate(() => service.retryPayment(admin, m.id, false))
            case 'race':
              // The desk's "Charge now" racing the automatic run, with the cycle due now.
              return (
                m &&
                Promise.all([
                  tolerate(() => service.retryPayment(admin, m.id, false)),
                  billing.runDue(),
                  tolerate(() => billing.attempt(m.id, { wait: true })),
                ])
              )
            case 'lost':
            case 'crash': {
              const broken = createBilling({
                db: t.db,
                payments: faulty(ctx.memberPayments, op.op),
                outbound: ctx.outbound,
                publicUrl: ctx.config.publicUrl,
                now: ctx.now,
                log: ctx.log,
              })
              await broken.clock.advance(1)
              await broken.runDue()
              return
            }
            case 'pause':
              return m && tolerate(() => service.pause(admin, m.id, op.cycles, false))
            case 'resume':
              return m && tolerate(() => service.resume(admin, m.id, false))
            case 'cancel':
              return (
                m &&
                tolerate(() => service.cancel(admin, m.id, { at: op.at, refund: op.refund }, false))
              )
            case 'undo':
              return m && tolerate(() => service.undoCancel(admin, m.id))
            case 'change': {
              if (!m) return
              const other = plans.find((p) => p.id !== m.plan.id)
              return (
                other &&
                tolerate(() =>
                  service.changePlan(admin, m.id, { plan_id: other.id, at: op.at }, false),
                )
              )
            }
            case 'webhooks': {
              const events = await gateway.events()
              const chosen = op.pick
                .map((i) => events[i % Math.max(events.length, 1)])
                .filter((e) => e !== undefined)
              if (op.reverse) chosen.reverse()
              for (const event of [...chosen, ...chosen]) {
                const { payload, signature } = gateway.sign(event)
                await billing.applyEvent(gateway.verifyEvent(payload, signature))
                stats.webhooks++
              }
              return
            }
          }
        }
        // Two members from the start (the third patient joins when a step says so).
        for (const i of [0, 1]) await apply({ op: 'enrol', who: i, card: 'ok' })
        for (const op of ops) {
          await apply(op)
          stats.steps++
          await checkInvariants()
        }
        // The rest of the 36 months, a quarter at a time (each jump runs every renewal and retry
        // that fell due in it).
        const end = start.getTime() + MONTHS * 30 * 86_400_000
        while ((await billing.clock.now()).getTime() < end) {
          await billing.clock.advance(91)
          const done = await billing.runDue()
          stats.charges += done.charged
          stats.declines += done.failed
          stats.steps++
          await checkInvariants()
        }
        // This sequence's members end, so the next sequence's clock does not renew them too.
        for (const patient of patients) {
          const m = await live(patient.id)
          if (m) await service.cancel(admin, m.id, { at: 'now', refund: false }, false)
        }
        await checkInvariants()
      }),
      { numRuns: runsOn(backend.name), seed: 20261127, endOnFailure: true },
    )
    const [declined] = (
      (await t.db.execute(
        sql`select count(*)::int as n from membership_charges where status = 'failed'`,
      )) as unknown as { rows: { n: number }[] }
    ).rows
    stats.declines = declined?.n ?? 0
    console.log(
      `membership property run on ${backend.name}: ${stats.sequences} sequences, ${stats.steps} steps, ${stats.charges} renewals charged, ${stats.declines} declined, ${stats.webhooks} webhooks applied, double charges: ${stats.doubleCharges}`,
    )
    expect(stats.doubleCharges).toBe(0)
  }, 600_000)
})

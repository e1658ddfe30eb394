/**
 * Random sequences of enrolments, renewals, declines, recoveries, pauses, resumptions, cancels and
 * changes of plan over months, on both databases; then the memberships report from the first
 * month to today must agree with what the memberships were at every step: each month's MRR
 * movement sums to its change of MRR, a month's closing is the next one's opening and equals the
 * MRR the memberships had at that instant (worked out apart, in JS, from a snapshot taken after
 * every step), the bank rolls forward to the cent and closes at the sum of the members' banks;
 * and the changes the triggers kept (`membership_changes`) are those worked out again from their
 * sources.
 */
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { monthlyCents } from '#domain/membership-reports.ts'
import { MEMBERSHIP_AGREEMENT, type PlanInterval } from '#domain/memberships.ts'
import { addDays, dayOf, monthStart } from '#domain/report-period.ts'
import { contextOf } from '#server/app.ts'
import type { AuthUser } from '#server/context.ts'
import { procedures } from '#server/db/schema.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import { membershipsOf } from '#server/modules/memberships/index.ts'
import { PaymentError } from '#server/payments/provider.ts'
import {
  expectBalanced,
  expectChangesAsRebuilt,
  moneyKeys,
} from '#server/testing/membership-report.ts'
import { CARDS, PLAN } from '#server/testing/memberships.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { createPracticeFixture, insertPatient, testBackends } from '#server/testing/test-app.ts'
import { membershipReport } from './membership-report.ts'

type Who = { who: number }
type Op =
  | ({ op: 'enrol'; plan: number } & Who)
  | { op: 'clock'; days: number }
  | ({ op: 'card'; card: 'ok' | 'fails' } & Who)
  | ({ op: 'retry' } & Who)
  | ({ op: 'pause'; cycles: number } & Who)
  | ({ op: 'resume' } & Who)
  | ({ op: 'cancel'; at: 'period_end' | 'now'; refund: boolean } & Who)
  | ({ op: 'change'; plan: number; at: 'now' | 'period_end' } & Who)

const who = fc.nat({ max: 2 })
const plan = fc.nat({ max: 3 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('enrol' as const), who, plan }) },
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
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('pause' as const),
      who,
      cycles: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resume' as const), who }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('cancel' as const),
      who,
      at: fc.constantFrom('period_end' as const, 'now' as const),
      refund: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('change' as const),
      who,
      plan,
      at: fc.constantFrom('now' as const, 'period_end' as const),
    }),
  },
)

/** Sequences per database (MEMBERSHIP_REPORT_RUNS sets both). */
const runsOn = (name: string) =>
  Number(process.env.MEMBERSHIP_REPORT_RUNS ?? (name === 'pglite' ? 3 : 6))

describe.each(testBackends())('the memberships report, property-based, on $name', (backend) => {
  const t = useTestApp(backend)

  it('adds up month by month, to the cent, and agrees with every snapshot of the memberships', async () => {
    const ctx = contextOf(t.app)
    const { service, billing } = membershipsOf(ctx)
    const practice = await createPracticeFixture(t.db, { name: 'Property Report Practice' })
    const admin: AuthUser = {
      id: practice.admin.id,
      practice_id: practice.practiceId,
      access_rights: 'Admin',
      email: 'admin@example.com',
    }
    await service.connect(admin)
    const [item] = await t.db
      .insert(procedures)
      .values({ practice_id: practice.practiceId, name: 'Property Peel', price: 12_345 })
      .returning()
    const perks = {
      ...PLAN.perks,
      allowances: [{ catalogue_item_id: item?.id as number, quantity: 1, rollover_cap: 1 }],
    }
    // Prices a quarter or a year does not divide into whole cents a month.
    const plans = [
      await service.createPlan(admin, { ...PLAN, name: 'Monthly', min_cycles: 1, perks }),
      await service.createPlan(admin, {
        ...PLAN,
        name: 'Monthly Plus',
        price_cents: 14_950,
        min_cycles: 1,
        notice_days: 10,
        perks: { ...perks, bank_cents: 7_525 },
      }),
      await service.createPlan(admin, {
        ...PLAN,
        name: 'Quarterly',
        price_cents: 29_950,
        interval: 'quarter',
        min_cycles: 1,
        perks,
      }),
      await service.createPlan(admin, {
        ...PLAN,
        name: 'Yearly',
        price_cents: 100_001,
        interval: 'year',
        min_cycles: 1,
        perks: { ...perks, bank_cents: 1 },
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
    const tolerate = async (step: () => Promise<unknown>) => {
      try {
        await step()
      } catch (error) {
        if (error instanceof DomainError || error instanceof PaymentError) return
        throw error
      }
    }
    /** The practice's MRR now, from the memberships as they are, summed here. */
    const currentMrr = async () => {
      const found = (
        (await t.db.execute(sql`
          select v.price_cents, v.interval from memberships m
          join membership_plan_versions v on v.id = m.plan_version_id
          where m.practice_id = ${practice.practiceId} and m.status in ('active', 'past_due')`)) as unknown as {
          rows: { price_cents: number; interval: PlanInterval }[]
        }
      ).rows
      return found.reduce(
        (sum, row) => sum + monthlyCents(Number(row.price_cents), row.interval),
        0,
      )
    }
    const snapshots: { at: Date; mrr: number }[] = [
      { at: await billing.clock.now(), mrr: await currentMrr() },
    ]
    const firstDay = dayOf(snapshots[0]?.at as Date)
    let run = 0
    const stats = { steps: 0, months: 0, checked: 0, changes: 0 }

    const live = async (patientId: number) =>
      (await service.patientMemberships(practice.practiceId, patientId)).find((m) =>
        ['active', 'past_due', 'paused', 'unpaid'].includes(m.status),
      )

    /** The report from the first month to today, checked against every snapshot. */
    async function checkReport() {
      stats.changes = await expectChangesAsRebuilt(t.db, practice.practiceId)
      const today = dayOf(await billing.clock.now())
      const report = await membershipReport(t.db, {
        practiceId: practice.practiceId,
        from: monthStart(firstDay),
        to: today,
        today,
        money: true,
      })
      expectBalanced(report)
      // The stored closed months and windows (tables membership_report_months and
      // membership_report_windows) change nothing: the same report, every month worked out from
      // the changes alone (no month or day closed at the epoch).
      const unstored = await membershipReport(t.db, {
        practiceId: practice.practiceId,
        from: monthStart(firstDay),
        to: today,
        today,
        now: new Date(0),
        money: true,
      })
      expect(unstored, 'the report without its stored months').toEqual(report)
      // A period that starts within a month (a year back from today, as the bench asks).
      const within = addDays(today, -40) > firstDay ? addDays(today, -40) : firstDay
      for (const [from, to] of [
        [within, today],
        [firstDay, addDays(today, -20) > firstDay ? addDays(today, -20) : today],
      ] as const) {
        const part = { practiceId: practice.practiceId, from, to, today, money: true }
        const stored = await membershipReport(t.db, part)
        expectBalanced(stored)
        expect(
          await membershipReport(t.db, { ...part, now: new Date(0) }),
          `${from}..${to}`,
        ).toEqual(stored)
      }
      expect(report.mrr_cents, 'MRR now').toBe(await currentMrr())
      expect(report.bank?.closing_cents, 'the bank closes at the members’ banks').toBe(
        report.bank?.members_cents,
      )
      expect(report.mrr_movement?.[0]?.opening_mrr_cents).toBe(0)
      for (const month of report.mrr_movement ?? []) {
        const opens = new Date(`${month.month}-01T00:00:00.000Z`)
        if (month.month === firstDay.slice(0, 7)) continue
        // The memberships as they were when the month opened: the last snapshot before it.
        const before = snapshots.filter((s) => s.at < opens).at(-1)
        expect(month.opening_mrr_cents, `MRR when ${month.month} opened`).toBe(before?.mrr)
        stats.checked++
      }
      stats.months = report.mrr_movement?.length ?? 0
      const counts = await membershipReport(t.db, {
        practiceId: practice.practiceId,
        from: monthStart(firstDay),
        to: today,
        today,
        money: false,
      })
      expect(moneyKeys(counts)).toEqual([])
    }

    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 24 }), async (ops) => {
        run++
        const patients = await Promise.all(
          [0, 1, 2].map((i) =>
            insertPatient(t.db, {
              practice_id: practice.practiceId,
              first_name: `Report${run}`,
              last_name: `Patient${i}`,
              email: `report.${run}.${i}.${Math.random().toString(36).slice(2)}@example.com`,
              phone: null,
            }),
          ),
        )
        const apply = async (op: Op) => {
          const patient = 'who' in op ? patients[op.who] : undefined
          const m = patient ? await live(patient.id) : undefined
          switch (op.op) {
            case 'enrol':
              return tolerate(() =>
                service.enrol(admin, patient?.id as number, {
                  plan_id: plans[op.plan]?.id as number,
                  payment_method_token: token('ok'),
                  consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Prop' },
                  idempotencyKey: `report-${run}-${op.who}-${Math.random().toString(36).slice(2)}`,
                }),
              )
            case 'clock':
              await billing.clock.advance(op.days)
              await billing.runDue()
              return
            case 'card':
              return m && tolerate(() => service.cardByStaff(admin, m.id, token(op.card)))
            case 'retry':
              return m && tolerate(() => service.retryPayment(admin, m.id, false))
            case 'pause':
              return m && tolerate(() => service.pause(admin, m.id, op.cycles, false))
            case 'resume':
              return m && tolerate(() => service.resume(admin, m.id, false))
            case 'cancel':
              return (
                m &&
                tolerate(() => service.cancel(admin, m.id, { at: op.at, refund: op.refund }, false))
              )
            case 'change': {
              const target = plans[op.plan]
              return (
                m &&
                target &&
                tolerate(() =>
                  service.changePlan(admin, m.id, { plan_id: target.id, at: op.at }, false),
                )
              )
            }
          }
        }
        for (const i of [0, 1]) await apply({ op: 'enrol', who: i, plan: (run + i) % plans.length })
        snapshots.push({ at: await billing.clock.now(), mrr: await currentMrr() })
        for (const op of ops) {
          await apply(op)
          stats.steps++
          snapshots.push({ at: await billing.clock.now(), mrr: await currentMrr() })
        }
        await checkReport()
        // This sequence's members end, so the next sequence starts from their churn.
        for (const patient of patients) {
          const m = await live(patient.id)
          if (m) await service.cancel(admin, m.id, { at: 'now', refund: false }, false)
        }
        snapshots.push({ at: await billing.clock.now(), mrr: await currentMrr() })
        await checkReport()
      }),
      { numRuns: runsOn(backend.name), seed: 20261127, endOnFailure: true },
    )
    console.log(
      `memberships report property run on ${backend.name}: ${run} sequences, ${stats.steps} steps, ${stats.months} months, ${stats.checked} month openings checked against snapshots, ${stats.changes} changes kept`,
    )
    expect(stats.checked).toBeGreaterThan(0)
  }, 600_000)
})

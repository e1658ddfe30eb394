/**
 * Random sequences of a few members' lives, through the API on both databases: enrolments,
 * renewals and declined renewals as the billing clock moves, visits that use the month's allowance,
 * the member price and part of the bank, replays of a visit, two desks racing for the same bank,
 * undos, card changes, and cancellations now with a refund. After every step the invariants of
 * the bank: each bank equals the sum of its entries and is never below zero, each visit that paid
 * from it has exactly one `use` (and one `restore` once undone), allowances are never negative;
 * at the end, the Memberships report's bank roll-forward balances to the cent and closes on the
 * sum of the members' banks, and each month's MRR movement adds up to its change.
 */
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { bankClosing, MembershipReportSchema, mrrClosing } from '#domain/membership-reports.ts'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { addDays } from '#domain/report-period.ts'
import { REPORT_MAX_DAYS } from '#domain/reports.ts'
import { CARDS, cardToken, memberPlan } from '#server/testing/memberships.ts'
import { useMember, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'

type Who = { who: number }
type Op =
  | ({ op: 'enrol' } & Who)
  | { op: 'clock'; days: number }
  | ({ op: 'visit'; hydra: number; peel: number; bankPercent: number } & Who)
  | ({ op: 'replay' } & Who)
  | ({ op: 'race' } & Who)
  | ({ op: 'undo' } & Who)
  | ({ op: 'card'; card: 'ok' | 'fails' } & Who)
  | ({ op: 'refund' } & Who)

const who = fc.nat({ max: 2 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('enrol' as const), who }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('clock' as const),
      days: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('visit' as const),
      who,
      hydra: fc.integer({ min: 0, max: 2 }),
      peel: fc.integer({ min: 0, max: 2 }),
      bankPercent: fc.constantFrom(0, 25, 50, 100),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replay' as const), who }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('race' as const), who }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('undo' as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('card' as const),
      who,
      card: fc.constantFrom('ok' as const, 'fails' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('refund' as const), who }) },
)

/** Sequences per database (PGlite, single-threaded, runs fewer; MEMBER_CHECKOUT_RUNS sets both). */
const runsOn = (name: string) =>
  Number(process.env.MEMBER_CHECKOUT_RUNS ?? (name === 'pglite' ? 2 : 4))

describe.each(testBackends())('members at the desk, property-based, on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')
  const api = async (path: string, method = 'GET', json?: unknown, token = manager.token) => {
    const response = await t.request(`/api${path}`, {
      token,
      method,
      ...(json === undefined ? {} : { json }),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  async function checkBanks(): Promise<{ banks: number; visits: number }> {
    const rows = async <T>(query: ReturnType<typeof sql>) =>
      ((await t.db.execute(query)) as unknown as { rows: T[] }).rows
    const banks = await rows<{ id: number; bank: number; sum: number; low: number }>(sql`
      select m.id, m.bank_cents as bank,
        coalesce(sum(e.amount_cents), 0)::int as sum,
        coalesce(min(e.balance_after), 0)::int as low
      from memberships m left join membership_bank_entries e on e.membership_id = m.id
      where m.practice_id = ${t.demo.practiceId}
      group by m.id`)
    for (const row of banks) {
      expect(Number(row.sum)).toBe(Number(row.bank))
      expect(Number(row.bank)).toBeGreaterThanOrEqual(0)
      expect(Number(row.low)).toBeGreaterThanOrEqual(0)
    }
    // Each visit that paid from the bank: one use of exactly its amount, one restore once undone.
    const visits = await rows<{
      id: number
      bank: number
      undone: boolean
      uses: number
      used: number
      restores: number
      restored: number
    }>(sql`
      select v.id, v.bank_cents as bank, v.undone_at is not null as undone,
        count(e.id) filter (where e.kind = 'use')::int as uses,
        coalesce(sum(-e.amount_cents) filter (where e.kind = 'use'), 0)::int as used,
        count(e.id) filter (where e.kind = 'restore')::int as restores,
        coalesce(sum(e.amount_cents) filter (where e.kind = 'restore'), 0)::int as restored
      from visits v left join membership_bank_entries e on e.visit_id = v.id
      where v.practice_id = ${t.demo.practiceId} and v.bank_cents > 0
      group by v.id`)
    for (const row of visits) {
      expect(Number(row.uses)).toBe(1)
      expect(Number(row.used)).toBe(Number(row.bank))
      expect(Number(row.restores)).toBe(row.undone ? 1 : 0)
      expect(Number(row.restored)).toBe(row.undone ? Number(row.bank) : 0)
    }
    const negative = await rows<{ n: number }>(
      sql`select count(*)::int as n from membership_allowances where remaining < 0`,
    )
    expect(Number(negative[0]?.n)).toBe(0)
    return { banks: banks.length, visits: visits.length }
  }

  it('keeps every bank equal to its entries and the roll-forward balanced through visits, undos, renewals and refunds', async () => {
    const { planId, hydra, peel, suffix } = await memberPlan(t, manager.token, {
      bankCents: 5000,
      rolloverCap: 1,
      peel: { price: 7500, points: 50 },
    })
    let steps = 0
    let paidFromBank = 0
    let undone = 0
    let raced = 0
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 30 }), async (ops) => {
        const patients: number[] = []
        for (let i = 0; i < 3; i += 1) {
          const p = await insertPatient(t.db, {
            practice_id: t.demo.practiceId,
            first_name: `Member${i}`,
            last_name: suffix,
          })
          patients.push(p.id)
        }
        const membership = new Map<number, number>()
        const last = new Map<number, { id: number; body: unknown }>()
        let keys = 0
        const key = () => `prop-${suffix}-${Date.now()}-${keys++}`
        const visitBody = async (
          whom: number,
          hydraUnits: number,
          peelUnits: number,
          percent: number,
        ) => {
          const patientId = patients[whom] as number
          const items = [
            ...(hydraUnits ? [{ procedure_id: hydra, quantity: hydraUnits }] : []),
            ...(peelUnits || !hydraUnits ? [{ procedure_id: peel, quantity: peelUnits || 1 }] : []),
          ]
          const preview = await api('/visits/preview', 'POST', { patient_id: patientId, items })
          expect(preview.status).toBe(200)
          const bank = (preview.body.membership as { bank_cents: number } | null)?.bank_cents ?? 0
          const due = preview.body.total_cents as number
          const bankCents = Math.floor((Math.min(bank, due) * percent) / 100)
          return {
            patient_id: patientId,
            items,
            idempotencyKey: key(),
            ...(bankCents > 0
              ? { redemption: { bank_cents: bankCents, override: { reason: 'Property run' } } }
              : {}),
          }
        }
        const enrol = async (whom: number) => {
          const enrolled = await api(`/patients/${patients[whom]}/memberships`, 'POST', {
            plan_id: planId,
            payment_method_token: cardToken(t, CARDS.ok),
            consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Member' },
            idempotencyKey: key(),
          })
          // A second live membership is refused; a patient whose last one ended may join again.
          expect([201, 409], JSON.stringify(enrolled.body)).toContain(enrolled.status)
          if (enrolled.status === 201) membership.set(whom, enrolled.body.id as number)
        }
        // Two of the three start as members; the third joins when the sequence says so.
        await enrol(0)
        await enrol(1)
        expect(membership.size).toBe(2)
        for (const op of ops) {
          steps += 1
          const m = 'who' in op ? membership.get(op.who) : undefined
          switch (op.op) {
            case 'enrol':
              await enrol(op.who)
              break
            case 'clock':
              expect((await api('/dev/clock', 'POST', { days: op.days })).status).toBe(200)
              break
            case 'visit': {
              const body = await visitBody(op.who, op.hydra, op.peel, op.bankPercent)
              const recorded = await api('/visits', 'POST', body)
              expect(recorded.status).toBe(201)
              const visit = recorded.body.visit as { id: number; bank_cents: number }
              if (visit.bank_cents > 0) paidFromBank += 1
              last.set(op.who, { id: visit.id, body })
              break
            }
            case 'replay': {
              const previous = last.get(op.who)
              if (!previous) break
              const again = await api('/visits', 'POST', previous.body)
              expect(again.status).toBe(201)
              expect((again.body.visit as { id: number }).id).toBe(previous.id)
              break
            }
            case 'race': {
              const [a, b] = await Promise.all([
                visitBody(op.who, 0, 1, 100),
                visitBody(op.who, 0, 1, 100),
              ])
              const answers = await Promise.all([
                api('/visits', 'POST', a),
                api('/visits', 'POST', b),
              ])
              const paid = answers.filter((r) => r.status === 201)
              // Both may pass only when the bank held enough for both (or neither paid from it).
              for (const r of answers)
                expect([201, 409], JSON.stringify(r.body)).toContain(r.status)
              expect(paid.length).toBeGreaterThanOrEqual(1)
              if (paid.length === 1) raced += 1
              break
            }
            case 'undo': {
              const previous = last.get(op.who)
              if (!previous) break
              const answer = await api(`/visits/${previous.id}/undo`, 'POST', {})
              expect(answer.status).toBe(201)
              undone += 1
              last.delete(op.who)
              break
            }
            case 'card': {
              if (m === undefined) break
              const changed = await api(`/memberships/${m}/card`, 'PUT', {
                payment_method_token: cardToken(
                  t,
                  op.card === 'ok' ? CARDS.ok : CARDS.failsWhenCharged,
                ),
              })
              // A card may be refused for a membership that is over; never a server error.
              expect(changed.status).toBeLessThan(500)
              break
            }
            case 'refund': {
              if (m === undefined) break
              const cancelled = await api(`/memberships/${m}/cancel`, 'POST', {
                at: 'now',
                refund: true,
              })
              expect(cancelled.status).toBeLessThan(500)
              break
            }
          }
          await checkBanks()
        }
        // The report over all time: the roll-forward balances and closes on the members' banks.
        const clock = await api('/dev/clock', 'POST', { days: 0 })
        // The longest period a report takes, ending on the billing clock's today: it covers the
        // whole run (at most 30 steps of at most 40 days, from today's wall clock).
        const to = String(clock.body.now).slice(0, 10)
        const from = addDays(to, -(REPORT_MAX_DAYS - 1))
        const report = await api(`/reports/memberships?from=${from}&to=${to}`)
        expect(report.status, JSON.stringify(report.body)).toBe(200)
        const parsed = v.parse(MembershipReportSchema, report.body)
        const bank = parsed.bank
        if (!bank) throw new Error('a manager sees the bank')
        expect(bankClosing(bank)).toBe(bank.closing_cents)
        const sum = (
          (await t.db.execute(
            sql`select coalesce(sum(bank_cents), 0)::int as total from memberships where practice_id = ${t.demo.practiceId}`,
          )) as unknown as { rows: { total: number }[] }
        ).rows
        expect(bank.closing_cents).toBe(Number(sum[0]?.total))
        expect(bank.members_cents).toBe(bank.closing_cents)
        const months = parsed.mrr_movement ?? []
        for (const [i, month] of months.entries()) {
          expect(mrrClosing(month)).toBe(month.closing_mrr_cents)
          const next = months[i + 1]
          if (next) expect(next.opening_mrr_cents).toBe(month.closing_mrr_cents)
        }
      }),
      {
        numRuns: runsOn(backend.name),
        endOnFailure: true,
        // A failure prints its seed and path: MEMBER_CHECKOUT_SEED and _PATH replay it.
        ...(process.env.MEMBER_CHECKOUT_SEED
          ? {
              seed: Number(process.env.MEMBER_CHECKOUT_SEED),
              path: process.env.MEMBER_CHECKOUT_PATH ?? '0',
            }
          : {}),
      },
    )
    console.info(
      `member checkout property on ${backend.name}: ${runsOn(backend.name)} sequences, ${steps} steps, ${paidFromBank} visits paid from the bank, ${undone} undone, ${raced} races with one winner`,
    )
  })
})

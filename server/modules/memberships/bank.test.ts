import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import {
  MEMBERSHIP_AGREEMENT,
  MEMBERSHIP_MESSAGES,
  type Membership,
  type MembershipBank,
} from '#domain/memberships.ts'
import { membershipBankEntries, memberships, procedures, visits } from '#server/db/schema.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'
import { refundedShare } from './service.ts'

// The membership bank (../shared/MEMBERSHIPS.md sections 3 and 5): its entries with the running
// balance, and what a refunded cycle takes back. Locks and transactions: on both engines.
describe.each(testBackends())('the membership bank on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')
  const other = usePracticeFixture(t)
  const json = async <T = Record<string, unknown>>(
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, { token: manager.token, ...init })
    return { status: response.status, body: (await response.json()) as T }
  }
  const clock = (days: number) => json('/dev/clock', { method: 'POST', json: { days } })
  const bankOf = (id: number, token?: string) =>
    json<MembershipBank>(`/memberships/${id}/bank`, token ? { token } : {})

  /** A member of a monthly plan banking $50.00 a cycle, enrolled by the desk. */
  async function member(): Promise<Membership> {
    await json('/practice/payments/connect', { method: 'POST', token: t.demo.adminToken })
    const plan = await json<{ id: number }>('/membership-plans', {
      method: 'POST',
      json: { ...PLAN, name: `Bank ${Math.random().toString(36).slice(2, 8)}` },
    })
    expect(plan.status).toBe(201)
    const patient = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Ada',
      last_name: 'Byron',
    })
    const enrolled = await json<Membership>(`/patients/${patient.id}/memberships`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: {
        plan_id: plan.body.id,
        payment_method_token: cardToken(t, CARDS.ok),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Ada Byron' },
        idempotencyKey: `bank-${Math.random().toString(36).slice(2)}`,
      },
    })
    expect(enrolled.status).toBe(201)
    return enrolled.body
  }

  /**
   * A visit of `total` cents that the bank paid `cents` of, written as the checkout writes it: the
   * visit, a `use` entry and the membership's balance, in one transaction under the row lock.
   * `undo` puts it back with a `restore` entry.
   */
  async function spend(m: Membership, cents: number, total: number, at: Date) {
    return t.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(memberships)
        .where(eq(memberships.id, m.id))
        .for('update')
      const balance = (row?.bank_cents ?? 0) - cents
      const [visit] = await tx
        .insert(visits)
        .values({
          practice_id: t.demo.practiceId,
          patient_id: m.patient_id,
          total_cents: total,
          bank_cents: cents,
          membership_id: m.id,
          idempotency_key: `visit-${Math.random().toString(36).slice(2)}`,
          created_at: at,
        })
        .returning({ id: visits.id })
      await tx.insert(membershipBankEntries).values({
        practice_id: t.demo.practiceId,
        membership_id: m.id,
        kind: 'use',
        amount_cents: -cents,
        balance_after: balance,
        visit_id: visit?.id,
        created_at: at,
      })
      await tx.update(memberships).set({ bank_cents: balance }).where(eq(memberships.id, m.id))
      return visit?.id as number
    })
  }

  async function undo(m: Membership, visitId: number, cents: number, at: Date) {
    await t.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(memberships)
        .where(eq(memberships.id, m.id))
        .for('update')
      const balance = (row?.bank_cents ?? 0) + cents
      await tx.insert(membershipBankEntries).values({
        practice_id: t.demo.practiceId,
        membership_id: m.id,
        kind: 'restore',
        amount_cents: cents,
        balance_after: balance,
        visit_id: visitId,
        created_at: at,
      })
      await tx.update(memberships).set({ bank_cents: balance }).where(eq(memberships.id, m.id))
    })
  }

  /** Each entry's balance is the one before it plus its amount, and the newest is the bank's. */
  function expectRunningBalance(bank: MembershipBank) {
    const oldestFirst = [...bank.data].reverse()
    let balance = 0
    for (const entry of oldestFirst) {
      balance += entry.amount_cents
      expect(entry.balance_after_cents, `entry ${entry.id}`).toBe(balance)
      expect(entry.balance_after_cents).toBeGreaterThanOrEqual(0)
    }
    expect(bank.bank_cents).toBe(balance)
  }

  it('answers every entry newest first with its running balance and its sentence, to every staff role', async () => {
    const m = await member()
    await clock(31)
    const visitAt = new Date('2026-11-27T15:00:00.000Z')
    const visitId = await spend(m, 3000, 24_000, visitAt)
    await undo(m, visitId, 3000, new Date('2026-11-28T10:00:00.000Z'))
    const second = await spend(m, 2500, 2500, new Date('2026-11-29T10:00:00.000Z'))

    const bank = await bankOf(m.id, t.demo.staffToken)
    expect(bank.status).toBe(200)
    expect(bank.body.bank_cents).toBe(7500)
    expect(
      bank.body.data.map(
        ({ kind, amount_cents, balance_after_cents, cycle, visit_id, detail }) => ({
          kind,
          amount_cents,
          balance_after_cents,
          cycle,
          visit_id,
          detail,
        }),
      ),
    ).toEqual([
      {
        kind: 'use',
        amount_cents: -2500,
        balance_after_cents: 7500,
        cycle: null,
        visit_id: second,
        detail: 'Used at the visit of Nov 29, 2026, which came to $25.00',
      },
      {
        kind: 'restore',
        amount_cents: 3000,
        balance_after_cents: 10_000,
        cycle: null,
        visit_id: visitId,
        detail: 'Put back: the visit of Nov 27, 2026 was undone',
      },
      {
        kind: 'use',
        amount_cents: -3000,
        balance_after_cents: 7000,
        cycle: null,
        visit_id: visitId,
        detail: 'Used at the visit of Nov 27, 2026, which came to $240.00',
      },
      {
        kind: 'credit',
        amount_cents: 5000,
        balance_after_cents: 10_000,
        cycle: 2,
        visit_id: null,
        detail: 'Paid in with cycle 2',
      },
      {
        kind: 'credit',
        amount_cents: 5000,
        balance_after_cents: 5000,
        cycle: 1,
        visit_id: null,
        detail: 'Paid in with cycle 1',
      },
    ])
    expectRunningBalance(bank.body)
    expect(bank.body.data.every((entry) => !Number.isNaN(Date.parse(entry.at)))).toBe(true)
    // The membership's balance is the bank's.
    expect((await json<Membership>(`/memberships/${m.id}`)).body.bank_cents).toBe(7500)
  })

  it("answers 404 for another practice's membership, as the other membership routes do", async () => {
    const m = await member()
    const refused = await bankOf(m.id, other.token)
    expect(refused).toEqual({
      status: 404,
      body: {
        error: expect.objectContaining({ message: MEMBERSHIP_MESSAGES.membershipNotFound }),
      },
    })
    expect((await json(`/memberships/${m.id}`, { token: other.token })).status).toBe(404)
    expect((await bankOf(2_000_000_000)).status).toBe(404)
    const anonymous = await t.request(`/api/memberships/${m.id}/bank`)
    expect(anonymous.status).toBe(401)
  })

  it("takes the refunded cycle's banked value back from the bank, says so first, and keeps the rest the patient's", async () => {
    const m = await member()
    await clock(31)
    const preview = await json<{ preview: { summary: string; amount_cents: number } }>(
      `/memberships/${m.id}/cancel?preview=true`,
      { method: 'POST', json: { at: 'now', refund: true } },
    )
    const refunded = -preview.body.preview.amount_cents
    expect(refunded).toBeGreaterThan(0)
    const money = (cents: number) =>
      `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`
    const sentence = `Ends now, with ${money(refunded)} refunded for the unused part of the cycle; $50.00 of this cycle's banked value (the refunded part's share) is taken back; $50.00 stays the patient's.`
    expect(preview.body.preview.summary).toBe(sentence)
    // The preview changes nothing.
    expect((await bankOf(m.id)).body.data).toHaveLength(2)

    const ended = await json<Membership>(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    expect(ended.body).toMatchObject({ status: 'cancelled', bank_cents: 5000 })
    const bank = await bankOf(m.id)
    expect(bank.body.data[0]).toMatchObject({
      kind: 'refund',
      amount_cents: -5000,
      balance_after_cents: 5000,
      cycle: 2,
      visit_id: null,
      detail: 'Taken back with the refund of cycle 2',
    })
    expectRunningBalance(bank.body)
    const events = (
      await json<{ data: { kind: string; detail: string }[] }>(`/memberships/${m.id}/events`)
    ).body.data
    expect(events.find((e) => e.kind === 'cancelled')?.detail).toBe(sentence)
    expect(events.find((e) => e.kind === 'refunded')?.detail).toBe(
      `Refunded ${money(refunded)} for the unused part of cycle 2. $50.00 of its banked value was taken back from the bank.`,
    )
    // Cancelled twice? Refused: the bank moves once.
    const again = await json(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    expect(again.status).toBe(409)
    expect((await bankOf(m.id)).body.data.filter((e) => e.kind === 'refund')).toHaveLength(1)
  })

  it("takes back the refunded part's share of the cycle's banked value when part of the cycle was used", async () => {
    const m = await member()
    await clock(31)
    // Half-way through cycle 2: about half its fee is refunded, and the same share of its $50.00.
    await clock(15)
    const ended = await json<Membership>(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    expect(ended.status).toBe(200)
    const bank = await bankOf(m.id)
    const refund = bank.body.data.find((e) => e.kind === 'refund')
    const events = (
      await json<{ data: { kind: string; amount_cents: number | null }[] }>(
        `/memberships/${m.id}/events`,
      )
    ).body.data
    const refunded = -(events.find((e) => e.kind === 'refunded')?.amount_cents ?? 0)
    expect(refunded).toBeGreaterThan(0)
    expect(refunded).toBeLessThan(9900)
    expect(refund?.amount_cents).toBe(-refundedShare(5000, refunded, { price_cents: 9900 }))
    expect(-(refund?.amount_cents ?? 0)).toBeLessThan(5000)
    expect(ended.body.bank_cents).toBe(10_000 + (refund?.amount_cents ?? 0))
    expectRunningBalance(bank.body)
  })

  it('takes back only what is unspent of the cycle, and nothing when it was all spent', async () => {
    const partly = await member()
    const spentAll = await member()
    await clock(31)
    await spend(partly, 8000, 12_000, new Date('2026-11-27T15:00:00.000Z'))
    await spend(spentAll, 10_000, 10_000, new Date('2026-11-27T16:00:00.000Z'))

    const preview = await json<{ preview: { summary: string } }>(
      `/memberships/${partly.id}/cancel?preview=true`,
      { method: 'POST', json: { at: 'now', refund: true } },
    )
    expect(preview.body.preview.summary).toMatch(
      /; \$20\.00 of this cycle's banked value \(the refunded part's share\) is taken back \(the rest of that \$50\.00 was already spent\); \$0\.00 stays the patient's\.$/,
    )
    const ended = await json<Membership>(`/memberships/${partly.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    expect(ended.body).toMatchObject({ status: 'cancelled', bank_cents: 0 })
    const bank = await bankOf(partly.id)
    expect(bank.body.data.map((e) => [e.kind, e.amount_cents, e.balance_after_cents])).toEqual([
      ['refund', -2000, 0],
      ['use', -8000, 2000],
      ['credit', 5000, 10_000],
      ['credit', 5000, 5000],
    ])
    expectRunningBalance(bank.body)

    const none = await json<{ preview: { summary: string } }>(
      `/memberships/${spentAll.id}/cancel?preview=true`,
      { method: 'POST', json: { at: 'now', refund: true } },
    )
    expect(none.body.preview.summary).toMatch(
      /; the refunded part's share of this cycle's banked value \(\$50\.00\) was already spent, so nothing is taken back from the bank\.$/,
    )
    await json(`/memberships/${spentAll.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    const empty = await bankOf(spentAll.id)
    expect(empty.body.bank_cents).toBe(0)
    expect(empty.body.data.some((e) => e.kind === 'refund')).toBe(false)
  })

  it('shows a visit the checkout paid from the bank and its undo, then a refund takes back only what is left', async () => {
    const m = await member()
    await clock(31)
    const [peel] = await t.db
      .insert(procedures)
      .values({ practice_id: t.demo.practiceId, name: `Peel ${m.id}`, price: 15000 })
      .returning()
    const visit = (bank_cents: number, label: string) =>
      json<{ visit: { id: number; total_cents: number; created_at: string } }>('/visits', {
        method: 'POST',
        json: {
          patient_id: m.patient_id,
          items: [{ procedure_id: peel?.id, quantity: 1 }],
          idempotencyKey: `bank-visit-${m.id}-${label}`,
          redemption: { bank_cents, override: { reason: 'Patient at the desk, phone flat' } },
        },
      })
    const first = await visit(3000, 'first')
    expect(first.status).toBe(201)
    const undone = await json(`/visits/${first.body.visit.id}/undo`, { method: 'POST', json: {} })
    expect(undone.status).toBe(201)
    const second = await visit(8000, 'second')
    expect(second.status).toBe(201)

    const day = (iso: string) =>
      new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(
        new Date(iso),
      )
    const dollars = (cents: number) =>
      `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`
    const bank = await bankOf(m.id, t.demo.staffToken)
    expect(bank.body.bank_cents).toBe(2000)
    expect(
      bank.body.data.map((e) => [
        e.kind,
        e.amount_cents,
        e.balance_after_cents,
        e.visit_id,
        e.detail,
      ]),
    ).toEqual([
      [
        'use',
        -8000,
        2000,
        second.body.visit.id,
        `Used at the visit of ${day(second.body.visit.created_at)}, which came to ${dollars(second.body.visit.total_cents)}`,
      ],
      [
        'restore',
        3000,
        10_000,
        first.body.visit.id,
        `Put back: the visit of ${day(first.body.visit.created_at)} was undone`,
      ],
      [
        'use',
        -3000,
        7000,
        first.body.visit.id,
        `Used at the visit of ${day(first.body.visit.created_at)}, which came to ${dollars(first.body.visit.total_cents)}`,
      ],
      ['credit', 5000, 10_000, null, 'Paid in with cycle 2'],
      ['credit', 5000, 5000, null, 'Paid in with cycle 1'],
    ])
    expectRunningBalance(bank.body)

    const ended = await json<Membership>(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    expect(ended.body).toMatchObject({ status: 'cancelled', bank_cents: 0 })
    const after = await bankOf(m.id)
    expect(after.body.data[0]).toMatchObject({
      kind: 'refund',
      amount_cents: -2000,
      balance_after_cents: 0,
      cycle: 2,
    })
    expectRunningBalance(after.body)
    // The roll-forward: paid in − used + put back − taken back = the bank.
    const sum = (kind: string) =>
      after.body.data.filter((e) => e.kind === kind).reduce((n, e) => n + e.amount_cents, 0)
    expect(sum('credit') + sum('use') + sum('restore') + sum('refund')).toBe(after.body.bank_cents)
  })

  it("leaves the bank the patient's when the cycle is not refunded", async () => {
    const m = await member()
    await clock(31)
    const preview = await json<{ preview: { summary: string } }>(
      `/memberships/${m.id}/cancel?preview=true`,
      { method: 'POST', json: { at: 'now', refund: false } },
    )
    expect(preview.body.preview.summary).toBe("Ends now; the bank's $100.00 stays the patient's.")
    const ended = await json<Membership>(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: false },
    })
    expect(ended.body).toMatchObject({ status: 'cancelled', bank_cents: 10_000 })
    const bank = await bankOf(m.id)
    expect(bank.body.data.map((e) => e.kind)).toEqual(['credit', 'credit'])
    expectRunningBalance(bank.body)
  })
})

import { and, desc, eq, sql } from 'drizzle-orm'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT, type Membership } from '#domain/memberships.ts'
import {
  VISIT_MESSAGES,
  VisitAnswerSchema,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import {
  membershipAllowances,
  membershipBankEntries,
  memberships,
  outbox,
} from '#server/db/schema.ts'
import { CARDS, cardToken, memberPlan } from '#server/testing/memberships.ts'
import { useMember, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'

/**
 * A member at the desk, through the API: the allowance used first, the member price on what is
 * still charged, the points multiplied, the bank paying with the patient's code, a past-due
 * member flagged with no perks, and undo putting every part of it back. Concurrency and replays
 * on both engines: the bank is never spent twice nor below zero.
 */
describe.each(testBackends())('a member at checkout on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')
  let keys = 0
  const key = (label: string) => `member-${label}-${Date.now()}-${keys++}`
  const api = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, { token: manager.token, ...init })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const post = (path: string, json: unknown, token?: string) =>
    api(path, { method: 'POST', json, ...(token ? { token } : {}) })

  /** A practice with payments, HydraFacial ($199, 1 a month included) and a peel ($150, 100 points). */
  async function member() {
    const { planId, hydra, peel } = await memberPlan(t, manager.token, {
      bankCents: 10000,
      rolloverCap: 0,
      peel: { price: 15000, points: 100 },
    })
    const patient = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Maya',
      last_name: 'Lopez',
      phone: `555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
    })
    const enrolled = await post(`/patients/${patient.id}/memberships`, {
      plan_id: planId,
      payment_method_token: cardToken(t, CARDS.ok),
      consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Maya Lopez' },
      idempotencyKey: key('enrol'),
    })
    expect(enrolled.status).toBe(201)
    return {
      patientId: patient.id,
      hydra,
      peel,
      membership: enrolled.body as unknown as Membership,
    }
  }

  const lines = (m: { hydra: number; peel: number }) => [
    { procedure_id: m.hydra, quantity: 1 },
    { procedure_id: m.peel, quantity: 1 },
  ]

  /** Sends the patient a code for `amount` and reads it from the development outbox. */
  async function codeFor(patientId: number, amount: Record<string, number>) {
    const sent = await post(`/patients/${patientId}/redemption-code`, amount)
    expect(sent.status).toBe(201)
    await t.deliver()
    const [message] = await t.db
      .select({ code: outbox.code, text: outbox.text })
      .from(outbox)
      .where(eq(outbox.channel, 'sms'))
      .orderBy(desc(outbox.id))
      .limit(1)
    if (!message?.code) throw new Error('no code in the outbox')
    return { authyId: sent.body.authyId as string, code: message.code, text: message.text }
  }

  async function bankState(membershipId: number) {
    const [row] = await t.db
      .select({
        cached: memberships.bank_cents,
        sum: sql<number>`(select coalesce(sum(amount_cents), 0)::int from membership_bank_entries where membership_id = ${membershipId})`,
      })
      .from(memberships)
      .where(eq(memberships.id, membershipId))
    expect(Number(row?.sum)).toBe(row?.cached)
    return row?.cached ?? -1
  }

  async function allowanceLeft(membershipId: number, itemId: number) {
    const [row] = await t.db
      .select({ remaining: membershipAllowances.remaining })
      .from(membershipAllowances)
      .where(
        and(
          eq(membershipAllowances.membership_id, membershipId),
          eq(membershipAllowances.catalogue_item_id, itemId),
        ),
      )
    return row?.remaining
  }

  it('previews the allowance first, the member price on what is charged and the multiplied points', async () => {
    const m = await member()
    const response = await post('/visits/preview', { patient_id: m.patientId, items: lines(m) })
    expect(response.status).toBe(200)
    const preview = v.parse(VisitPreviewSchema, response.body)
    expect(preview.lines).toMatchObject([
      { item_id: m.hydra, allowance_units: 1, member_discount_cents: 0, points: 0 },
      // 15% of $150.00; 100 points on what is paid (85), doubled.
      { item_id: m.peel, allowance_units: 0, member_discount_cents: 2250, points: 170 },
    ])
    expect(preview).toMatchObject({
      subtotal_cents: 34900,
      total_cents: 12750,
      points: 170,
      membership: {
        membership_id: m.membership.id,
        status: 'active',
        interval: 'month',
        perks_apply: true,
        flag: null,
        bank_cents: 10000,
        points_multiplier: 2,
        allowance_cents: 19900,
        member_discount_cents: 2250,
        allowances: [{ catalogue_item_id: m.hydra, per_cycle: 1, remaining: 1, used: 1 }],
      },
    })
  })

  it('pays from the bank only with the code for that amount, and undo puts everything back once', async () => {
    const m = await member()
    const visitKey = key('visit')
    const body = (redemption: Record<string, unknown>) => ({
      patient_id: m.patientId,
      items: lines(m),
      idempotencyKey: visitKey,
      redemption,
    })

    const noCode = await post('/visits', body({ bank_cents: 10000 }))
    expect(noCode.status).toBe(403)
    expect(noCode.body).toMatchObject({
      error: { message: VISIT_MESSAGES.bankCodeNeeded(10000) },
    })

    // A code for less than the payment does not pay it.
    const small = await codeFor(m.patientId, { bank_cents: 5000 })
    expect(small.text).toContain('$50.00 from the membership bank')
    const tooMuch = await post(
      '/visits',
      body({ bank_cents: 10000, verification: { authyId: small.authyId, code: small.code } }),
    )
    expect(tooMuch.status).toBe(422)
    expect(tooMuch.body).toMatchObject({
      error: {
        message: expect.stringContaining('This code is for $50.00 from the membership bank'),
      },
    })

    await t.db.execute(
      sql`update redemption_codes set created_at = created_at - interval '1 minute'`,
    )
    const code = await codeFor(m.patientId, { bank_cents: 10000 })
    const recorded = await post(
      '/visits',
      body({ bank_cents: 10000, verification: { authyId: code.authyId, code: code.code } }),
    )
    expect(recorded.status).toBe(201)
    const answer = v.parse(VisitAnswerSchema, recorded.body)
    expect(answer.visit).toMatchObject({
      total_cents: 12750,
      allowance_cents: 19900,
      member_discount_cents: 2250,
      bank_cents: 10000,
    })
    expect(answer.membership_bank_cents).toBe(0)
    expect(answer.lines.map((l) => [l.allowance_units, l.member_discount_cents, l.points])).toEqual(
      [
        [1, 0, 0],
        [0, 2250, 170],
      ],
    )
    expect(await bankState(m.membership.id)).toBe(0)
    expect(await allowanceLeft(m.membership.id, m.hydra)).toBe(0)

    // A replay of the key answers the same visit and spends nothing again.
    const replay = await post(
      '/visits',
      body({ bank_cents: 10000, verification: { authyId: code.authyId, code: code.code } }),
    )
    expect(replay.status).toBe(201)
    expect((replay.body.visit as { id: number }).id).toBe(answer.visit.id)
    expect(await bankState(m.membership.id)).toBe(0)

    // The allowance is used: the next HydraFacial is charged at the member price.
    const next = await post('/visits/preview', { patient_id: m.patientId, items: lines(m) })
    expect(next.body).toMatchObject({
      lines: [{ allowance_units: 0, member_discount_cents: 2985 }, { member_discount_cents: 2250 }],
      membership: { bank_cents: 0, allowances: [{ remaining: 0, used: 0 }] },
    })

    const undone = await post(`/visits/${answer.visit.id}/undo`, {})
    expect(undone.status).toBe(201)
    expect(v.parse(VisitUndoAnswerSchema, undone.body).membership_bank_cents).toBe(10000)
    expect(await bankState(m.membership.id)).toBe(10000)
    expect(await allowanceLeft(m.membership.id, m.hydra)).toBe(1)
    const again = await post(`/visits/${answer.visit.id}/undo`, {})
    expect(again.body.membership_bank_cents).toBe(10000)
    expect(await bankState(m.membership.id)).toBe(10000)
    expect(await allowanceLeft(m.membership.id, m.hydra)).toBe(1)
    const kinds = await t.db
      .select({ kind: membershipBankEntries.kind, amount: membershipBankEntries.amount_cents })
      .from(membershipBankEntries)
      .where(eq(membershipBankEntries.membership_id, m.membership.id))
      .orderBy(membershipBankEntries.id)
    expect(kinds).toEqual([
      { kind: 'credit', amount: 10000 },
      { kind: 'use', amount: -10000 },
      { kind: 'restore', amount: 10000 },
    ])
    const events = await api(`/memberships/${m.membership.id}/events`)
    const timeline = (events.body.data as { kind: string; detail: string }[]).map((e) => e.kind)
    expect(timeline).toEqual(expect.arrayContaining(['perks_used', 'perks_restored']))
  })

  it('refuses a bank payment above the bank or above what is due, and a member without a bank', async () => {
    const m = await member()
    const override = { override: { reason: 'Patient at the desk, phone flat' } }
    // A peel at $50.00 is $42.50 at the member price: the bank cannot pay $50.00 of it.
    const above = await post('/visits', {
      patient_id: m.patientId,
      items: [{ procedure_id: m.peel, quantity: 1, price_cents: 5000 }],
      idempotencyKey: key('above-due'),
      redemption: { bank_cents: 5000, ...override },
    })
    expect(above).toMatchObject({
      status: 422,
      body: { error: { message: VISIT_MESSAGES.bankMoreThanDue(4250) } },
    })
    const twoPeels = await post('/visits', {
      patient_id: m.patientId,
      items: [{ procedure_id: m.peel, quantity: 2 }],
      idempotencyKey: key('above-bank'),
      redemption: { bank_cents: 10001, ...override },
    })
    expect(twoPeels).toMatchObject({
      status: 409,
      body: { error: { message: VISIT_MESSAGES.bankTooLittle(10000) } },
    })
    const stranger = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Noor',
      last_name: 'Haddad',
    })
    const none = await post('/visits', {
      patient_id: stranger.id,
      items: [{ procedure_id: m.peel, quantity: 1 }],
      idempotencyKey: key('no-bank'),
      redemption: { bank_cents: 100, ...override },
    })
    expect(none.body).toMatchObject({ error: { message: VISIT_MESSAGES.noBank } })
    // Staff cannot override the patient's consent for the bank.
    const staff = await post(
      '/visits',
      {
        patient_id: m.patientId,
        items: [{ procedure_id: m.peel, quantity: 1 }],
        idempotencyKey: key('staff'),
        redemption: { bank_cents: 100, ...override },
      },
      t.demo.staffToken,
    )
    expect(staff.status).toBe(403)
    expect(await bankState(m.membership.id)).toBe(10000)
  })

  it('spends the bank once when two visits race for it', async () => {
    const m = await member()
    const override = { override: { reason: 'Two desks at once' } }
    const visit = (label: string) =>
      post('/visits', {
        patient_id: m.patientId,
        items: [{ procedure_id: m.peel, quantity: 1 }],
        idempotencyKey: key(label),
        redemption: { bank_cents: 6000, ...override },
      })
    const results = await Promise.all([visit('a'), visit('b'), visit('c')])
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([201, 409, 409])
    expect(await bankState(m.membership.id)).toBe(4000)
  })

  it('flags a past-due member before any perk, with no perks, and the bank still usable', async () => {
    const m = await member()
    // The card now attaches but fails when charged: the renewal is declined.
    const card = await api(`/memberships/${m.membership.id}/card`, {
      method: 'PUT',
      json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
    })
    expect(card.status).toBe(200)
    const clock = await post('/dev/clock', { days: 32 })
    expect(clock.status).toBe(200)
    const [row] = await t.db
      .select({ status: memberships.status })
      .from(memberships)
      .where(eq(memberships.id, m.membership.id))
    expect(row?.status).toBe('past_due')
    const response = await post('/visits/preview', { patient_id: m.patientId, items: lines(m) })
    const preview = v.parse(VisitPreviewSchema, response.body)
    expect(preview.membership).toMatchObject({
      status: 'past_due',
      perks_apply: false,
      flag: VISIT_MESSAGES.memberPastDue(preview.membership?.plan_name ?? ''),
      bank_cents: 10000,
      allowance_cents: 0,
      member_discount_cents: 0,
    })
    expect(preview.total_cents).toBe(34900)
    expect(preview.lines.map((l) => l.allowance_units)).toEqual([0, 0])
    const paid = await post('/visits', {
      patient_id: m.patientId,
      items: lines(m),
      idempotencyKey: key('past-due'),
      redemption: { bank_cents: 2500, override: { reason: 'Card update pending' } },
    })
    expect(paid.status).toBe(201)
    expect(paid.body).toMatchObject({
      visit: { allowance_cents: 0, member_discount_cents: 0, bank_cents: 2500 },
      membership_bank_cents: 7500,
    })
    expect(await allowanceLeft(m.membership.id, m.hydra)).toBe(1)
  })
})

import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT, MEMBERSHIP_MESSAGES, type Membership } from '#domain/memberships.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { contextOf } from '#server/app.ts'
import { ledgerEntries, membershipCharges, memberships, procedures } from '#server/db/schema.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useMember, useTestApp } from '#server/testing/suite.ts'
import { httpBackends, insertPatient } from '#server/testing/test-app.ts'

describe.each(httpBackends())('memberships on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')
  const json = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, { token: manager.token, ...init })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const clock = (days: number) => json('/dev/clock', { method: 'POST', json: { days } })

  async function setUp() {
    const email = `maya.${Math.random().toString(36).slice(2)}@example.com`
    await json('/practice/payments/connect', { method: 'POST', token: t.demo.adminToken })
    const [item] = await t.db
      .insert(procedures)
      .values({
        practice_id: t.demo.practiceId,
        name: `HydraFacial ${Math.random()}`,
        price: 19900,
      })
      .returning()
    const plan = await json('/membership-plans', {
      method: 'POST',
      json: {
        ...PLAN,
        name: `Glow ${Math.random().toString(36).slice(2, 8)}`,
        perks: {
          ...PLAN.perks,
          allowances: [{ catalogue_item_id: item?.id, quantity: 1, rollover_cap: 1 }],
        },
      },
    })
    expect(plan.status).toBe(201)
    const patient = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Maya',
      last_name: 'Lopez',
      email,
    })
    return {
      planId: plan.body.id as number,
      patientId: patient.id,
      itemId: item?.id as number,
      email,
    }
  }
  const enrol = (
    patientId: number,
    planId: number,
    card: string,
    key = `key-${Math.random().toString(36).slice(2)}`,
  ) =>
    json(`/patients/${patientId}/memberships`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: {
        plan_id: planId,
        payment_method_token: cardToken(t, card),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Maya Lopez' },
        idempotencyKey: key,
      },
    })

  it('refuses staff building plans and enrolling before payments are connected, with the sentence', async () => {
    const refused = await json('/membership-plans', {
      method: 'POST',
      token: t.demo.staffToken,
      json: PLAN,
    })
    expect(refused).toMatchObject({
      status: 403,
      body: { error: { message: PERMISSION_REFUSALS['memberships.plans'] } },
    })
    const patient = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Noor',
      last_name: 'Haddad',
    })
    const built = await json('/membership-plans', {
      method: 'POST',
      json: { ...PLAN, name: 'Before payments' },
    })
    const early = await enrol(patient.id, built.body.id as number, CARDS.ok)
    expect(early).toMatchObject({
      status: 409,
      body: { error: { message: MEMBERSHIP_MESSAGES.notConnected } },
    })
  })

  it('enrols with consent and the first charge, issues the first perks once, and replays the key', async () => {
    const { planId, patientId } = await setUp()
    const key = 'enrol-once-0001'
    const first = await enrol(patientId, planId, CARDS.ok, key)
    expect(first.status).toBe(201)
    const m = first.body as unknown as Membership
    expect(m).toMatchObject({
      status: 'active',
      cycle: 1,
      bank_cents: 5000,
      card: { last4: '4242' },
      consent: {
        text_version: MEMBERSHIP_AGREEMENT.version,
        accepted_by_name: 'Maya Lopez',
        method: 'desk',
      },
    })
    expect(m.allowances).toEqual([expect.objectContaining({ remaining: 1 })])
    const again = await enrol(patientId, planId, CARDS.ok, key)
    expect(again).toMatchObject({ status: 200, body: { id: m.id } })
    const charges = await t.db
      .select()
      .from(membershipCharges)
      .where(eq(membershipCharges.membership_id, m.id))
    expect(charges).toEqual([
      expect.objectContaining({ amount_cents: 12400, status: 'succeeded', cycle: 1 }),
    ])
    const bonus = await t.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, patientId))
    expect(bonus).toEqual([
      expect.objectContaining({ kind: 'bonus', points: 100, source_type: 'membership' }),
    ])
    const second = await enrol(patientId, planId, CARDS.ok)
    expect(second).toMatchObject({
      status: 409,
      body: { error: { message: MEMBERSHIP_MESSAGES.alreadyMember } },
    })
  })

  it('says why a declined card is declined and creates nothing', async () => {
    const { planId, patientId } = await setUp()
    for (const card of [CARDS.declined, CARDS.failsWhenCharged]) {
      const refused = await enrol(patientId, planId, card)
      expect(refused).toMatchObject({
        status: 402,
        body: { error: { message: 'Your card was declined.' } },
      })
    }
    const rows = await t.db.select().from(memberships).where(eq(memberships.patient_id, patientId))
    expect(rows).toEqual([])
  })

  it('renews, goes past due on a failing card with one notice and a link, and the link charges the cycle once', async () => {
    const { planId, patientId, email: patientEmail } = await setUp()
    const m = (await enrol(patientId, planId, CARDS.ok)).body as unknown as Membership
    await clock(31)
    const renewed = (await json(`/memberships/${m.id}`)).body as unknown as Membership
    expect(renewed).toMatchObject({ status: 'active', cycle: 2, bank_cents: 10000 })
    expect(renewed.allowances).toEqual([expect.objectContaining({ remaining: 2 })])
    // The card now attaches but fails when charged.
    const changed = await json(`/memberships/${m.id}/card`, {
      method: 'PUT',
      json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
    })
    expect(changed.status).toBe(200)
    await clock(31)
    const pastDue = (await json(`/memberships/${m.id}`)).body as unknown as Membership
    expect(pastDue).toMatchObject({ status: 'past_due', cycle: 2 })
    // The renewal was declined, and so was each retry the clock's jump passed: one notice each.
    expect(pastDue.failed_attempts).toBeGreaterThanOrEqual(1)
    const outbox = await t.request('/api/dev/outbox')
    const messages = (
      (await outbox.json()) as {
        messages: { to: string; link: string | null; subject: string | null }[]
      }
    ).messages
    const notices = messages.filter(
      (x) => x.subject?.includes('payment was declined') && x.to === patientEmail,
    )
    expect(notices).toHaveLength(pastDue.failed_attempts)
    // The newest link is the one that works (each notice replaces the one before).
    const notice = notices[0]
    expect(notice?.link).toMatch(/\/membership-card\//)
    const token = (notice?.link ?? '').split('/membership-card/')[1] as string
    const page = await t.request(`/api/membership-card/${token}`)
    expect(await page.json()).toMatchObject({
      first_name: 'Maya',
      status: 'past_due',
      amount_due_cents: 9900,
    })
    const paid = await t.request(`/api/membership-card/${token}`, {
      method: 'PUT',
      json: { payment_method_token: cardToken(t, CARDS.ok) },
    })
    expect(await paid.json()).toMatchObject({ status: 'active', charged: true })
    const after = (await json(`/memberships/${m.id}`)).body as unknown as Membership
    expect(after).toMatchObject({ status: 'active', cycle: 3, bank_cents: 15000 })
    // Replaying the gateway's events applies nothing twice.
    const gateway = contextOf(t.app)
      .memberPayments as import('#server/payments/member-gateway.ts').TestMemberPayments
    for (const event of await gateway.events()) {
      const { payload, signature } = gateway.sign(event)
      for (let i = 0; i < 2; i++) {
        const answer = await t.request('/api/webhooks/payments', {
          method: 'POST',
          body: payload,
          headers: { 'stripe-signature': signature, 'content-type': 'application/json' },
        })
        expect(answer.status).toBe(200)
      }
    }
    const charges = await t.db
      .select()
      .from(membershipCharges)
      .where(eq(membershipCharges.membership_id, m.id))
    expect(charges.filter((c) => c.status === 'succeeded').map((c) => c.cycle)).toEqual([1, 2, 3])
    const events = (await json(`/memberships/${m.id}/events`)).body.data as { kind: string }[]
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['charge_failed', 'past_due', 'notice_sent', 'card_updated']),
    )
  })

  it('refuses to merge two patients who both hold a membership, and moves one that only the merged patient holds', async () => {
    const { planId, patientId } = await setUp()
    const other = await setUp()
    await enrol(patientId, planId, CARDS.ok)
    const m2 = (await enrol(other.patientId, planId, CARDS.ok)).body as unknown as Membership
    const refused = await json(`/patients/${patientId}/merge/${other.patientId}`, {
      method: 'POST',
      json: {},
    })
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { message: MERGE_MESSAGES.twoMemberships } },
    })
    const third = await setUp()
    const merged = await json(`/patients/${third.patientId}/merge/${other.patientId}`, {
      method: 'POST',
      json: {},
    })
    expect(merged.status).toBe(201)
    expect((await json(`/memberships/${m2.id}`)).body).toMatchObject({
      patient_id: third.patientId,
      status: 'active',
    })
  })

  it('previews every change before making it, keeps the minimum term, refuses Staff ending it now, and logs each change', async () => {
    const { planId, patientId } = await setUp()
    const plus = await json('/membership-plans', {
      method: 'POST',
      json: {
        ...PLAN,
        name: `Plus ${Math.random().toString(36).slice(2, 8)}`,
        price_cents: 19_900,
        min_cycles: 1,
      },
    })
    const m = (await enrol(patientId, planId, CARDS.ok)).body as unknown as Membership
    const preview = await json(`/memberships/${m.id}/change-plan?preview=true`, {
      method: 'POST',
      json: { plan_id: plus.body.id, at: 'now' },
    })
    // $100 more a month, for (almost) the whole cycle left.
    const amount = (preview.body.preview as { amount_cents: number }).amount_cents
    expect(amount).toBeGreaterThan(9_000)
    expect(amount).toBeLessThanOrEqual(10_000)
    expect((await json(`/memberships/${m.id}`)).body).toMatchObject({ plan: { id: planId } })
    const changed = await json(`/memberships/${m.id}/change-plan`, {
      method: 'POST',
      json: { plan_id: plus.body.id, at: 'now' },
    })
    expect(changed).toMatchObject({
      status: 200,
      body: { plan: { id: plus.body.id, price_cents: 19_900 } },
    })
    // Cancel at the end of the term: the old plan's 3-cycle minimum term was left with the plan;
    // the new plan has none, so it ends at this period's end.
    const end = await json(`/memberships/${m.id}/cancel?preview=true`, {
      method: 'POST',
      json: { at: 'period_end' },
    })
    expect((end.body.preview as { effective_at: string }).effective_at).toBe(m.current_period_end)
    const refused = await json(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: { at: 'now', refund: true },
    })
    expect(refused).toMatchObject({
      status: 403,
      body: { error: { message: MEMBERSHIP_MESSAGES.cancelNowNeedsManager } },
    })
    const paused = await json(`/memberships/${m.id}/pause`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: { cycles: 2 },
    })
    expect(paused).toMatchObject({ status: 200, body: { status: 'paused' } })
    const again = await json(`/memberships/${m.id}/pause`, { method: 'POST', json: { cycles: 1 } })
    expect(again).toMatchObject({
      status: 409,
      body: { error: { message: 'A membership that is paused cannot be paused.' } },
    })
    await json(`/memberships/${m.id}/resume`, { method: 'POST' })
    const refund = await json(`/memberships/${m.id}/cancel?preview=true`, {
      method: 'POST',
      json: { at: 'now', refund: true },
    })
    const back = -(refund.body.preview as { amount_cents: number }).amount_cents
    expect(back).toBeGreaterThan(0)
    // The practice ends it: the reason says so (the report's cancellations by staff).
    const ended = await json(`/memberships/${m.id}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: true, requested_by: 'staff' },
    })
    expect(ended).toMatchObject({
      status: 200,
      body: { status: 'cancelled', cancel_reason: 'staff' },
    })
    const events = (await json(`/memberships/${m.id}/events`)).body.data as {
      kind: string
      amount_cents: number | null
    }[]
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['plan_changed', 'paused', 'resumed', 'refunded', 'cancelled']),
    )
    expect(events.find((e) => e.kind === 'refunded')?.amount_cents).toBe(-back)
    const log = await json('/audit?action=membership.changed', { token: t.demo.adminToken })
    expect(JSON.stringify(log.body)).toContain('membership')
  })

  it('sends one notice 30 days before a renewal that the card on file expires before', async () => {
    const { planId, patientId } = await setUp()
    const clockNow = new Date(
      (await json('/dev/clock', { method: 'POST', json: { days: 0 } })).body.now as string,
    )
    const token = t.payments.tokeniser.createToken({
      number: CARDS.ok,
      exp_month: clockNow.getUTCMonth() + 1,
      exp_year: clockNow.getUTCFullYear(),
      cvc: '123',
    }).id
    const m = (
      await json(`/patients/${patientId}/memberships`, {
        method: 'POST',
        json: {
          plan_id: planId,
          payment_method_token: token,
          consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Maya Lopez' },
          idempotencyKey: `expiring-${patientId}`,
        },
      })
    ).body as unknown as Membership
    await clock(0)
    await clock(1)
    const events = (
      (await json(`/memberships/${m.id}/events`)).body.data as { kind: string }[]
    ).filter((e) => e.kind === 'card_expiry_notice')
    expect(events).toHaveLength(1)
    const outbox = (await (await t.request('/api/dev/outbox')).json()) as {
      messages: { subject: string | null; link: string | null }[]
    }
    expect(
      outbox.messages.find(
        (x) => x.subject === 'Your card on file expires before your next membership payment',
      )?.link,
    ).toMatch(/\/membership-card\//)
  })
})

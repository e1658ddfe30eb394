/**
 * Offers with value. A promotion may take an amount or a percentage off the
 * procedures it names; redeemed at checkout it lowers the matching lines, the visit's total is
 * what the patient pays, points are earned on that total, and the funnel's revenue is it too. A
 * visit may redeem points and an offer together. Before: "$50 off any HydraFacial" left a $199
 * visit at $199 and earned on $199. Both databases.
 */
import { and, desc, eq } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OFFER_VALUE_MESSAGES } from '#domain/offer-value.ts'
import type { PromotionDetail } from '#domain/promotions.ts'
import type { VisitAnswer, VisitPreview } from '#domain/visits.ts'
import { auditEvents, outbox, patientPromotions, practices, procedures } from '#server/db/schema.ts'
import { messageOf, patientWithPoints, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('offers with value on $name', (backend) => {
  const t = useTestApp(backend)
  let count = 0
  let hydra = 0
  let botox = 0
  const key = () => `offer-value-${Date.now()}-${count++}`
  const send = (
    path: string,
    method: 'POST' | 'PUT',
    json: unknown,
    token: string = t.demo.staffToken,
  ) => t.request(path, { method, token, json })

  const newPatient = (points = 0) =>
    patientWithPoints(t, points, { first_name: 'Harper', last_name: 'Offer' })

  /** A live offer the Admin created and published. */
  async function liveOffer(fields: Record<string, unknown>): Promise<PromotionDetail> {
    const created = await send(
      '/api/promotions',
      'POST',
      { title: '$50 off HydraFacial', ...fields },
      t.demo.adminToken,
    )
    expect(created.status, await created.clone().text()).toBe(201)
    const offer = (await created.json()) as PromotionDetail
    const published = await send(
      `/api/promotions/${offer.id}/publish`,
      'POST',
      {},
      t.demo.adminToken,
    )
    expect(published.status).toBe(200)
    return offer
  }

  async function claimed(offerId: number, patientId: number) {
    const response = await send(`/api/promotions/claimed/${offerId}`, 'PUT', {
      patient_id: patientId,
    })
    expect(response.status).toBeLessThan(300)
  }

  const hydraVisit = (patientId: number, redemption?: object, extra: object = {}) =>
    send('/api/visits', 'POST', {
      patient_id: patientId,
      items: [{ procedure_id: hydra, quantity: 1 }],
      idempotencyKey: key(),
      ...(redemption ? { redemption } : {}),
      ...extra,
    })

  beforeAll(async () => {
    const rows = await t.db
      .select({ id: procedures.id, name: procedures.name, price: procedures.price })
      .from(procedures)
      .where(eq(procedures.practice_id, t.demo.practiceId))
    const find = (name: string) => rows.find((row) => row.name === name)
    hydra = find('HydraFacial')?.id ?? 0
    botox = rows.find((row) => row.name !== 'HydraFacial')?.id ?? 0
    expect(find('HydraFacial')?.price).toBe(19_900)
  })
  beforeEach(async () => {
    // No code needed below 1,000 points: these tests are about the money.
    await t.db
      .update(practices)
      .set({ redemption_code_threshold: 1_000, points_per_dollar: 1, point_value_cents: 10 })
      .where(eq(practices.id, t.demo.practiceId))
  })

  it('refuses an offer without a valid value, naming the field', async () => {
    const both = await send(
      '/api/promotions',
      'POST',
      { title: 'Both', discount_cents: 5000, discount_percent: 10 },
      t.demo.adminToken,
    )
    expect(both.status).toBe(400)
    expect(await messageOf(both)).toBe(`discount_percent: ${OFFER_VALUE_MESSAGES.discountBoth}`)
    for (const [field, value, message] of [
      ['discount_percent', 101, OFFER_VALUE_MESSAGES.discountPercent],
      ['discount_percent', 0, OFFER_VALUE_MESSAGES.discountPercent],
      ['discount_cents', 0, OFFER_VALUE_MESSAGES.discountCents],
      ['discount_cents', 12.5, OFFER_VALUE_MESSAGES.discountCents],
      ['procedure_ids', ['x'], OFFER_VALUE_MESSAGES.procedureIds],
    ] as const) {
      const response = await send(
        '/api/promotions',
        'POST',
        { title: 'Bad', [field]: value },
        t.demo.adminToken,
      )
      expect(response.status, `${field} ${JSON.stringify(value)}`).toBe(400)
      const text = await messageOf(response)
      expect(text).toContain(message)
      expect(text).toContain(field)
    }
    const unknown = await send(
      '/api/promotions',
      'POST',
      { title: 'Elsewhere', discount_cents: 100, procedure_ids: [2_000_000_000] },
      t.demo.adminToken,
    )
    expect(unknown.status).toBe(400)
    expect(await messageOf(unknown)).toBe(OFFER_VALUE_MESSAGES.procedureUnknown(2_000_000_000))
  })

  it('makes a $199 HydraFacial cost $149 and earn on $149; the funnel reports $149', async () => {
    const offer = await liveOffer({ discount_cents: 5000, procedure_ids: [hydra] })
    expect(offer).toMatchObject({
      discount_cents: 5000,
      discount_percent: null,
      procedure_ids: [hydra],
    })
    const patient = await newPatient()
    await claimed(offer.id, patient.id)

    // The preview says, before Confirm, what the offer does to each line and the total.
    const preview = await send('/api/visits/preview', 'POST', {
      patient_id: patient.id,
      items: [{ procedure_id: hydra, quantity: 1 }],
    })
    expect(preview.status).toBe(200)
    const previewed = (await preview.json()) as VisitPreview
    expect(previewed.total_cents).toBe(19_900)
    expect(previewed.offer_values).toEqual([
      {
        promotion_id: offer.id,
        title: '$50 off HydraFacial',
        value: '$50.00 off HydraFacial',
        lines: [{ discount_cents: 5000, points: 149 }],
        discount_cents: 5000,
        total_cents: 14_900,
        points: 149,
        problem: null,
      },
    ])

    // A discount the client sends is not the server's: it is ignored.
    const recorded = await hydraVisit(
      patient.id,
      { promotion_id: offer.id, discount_cents: 19_900 },
      { discount_cents: 19_900 },
    )
    expect(recorded.status, await recorded.clone().text()).toBe(201)
    const answer = (await recorded.json()) as VisitAnswer
    expect(answer.visit.total_cents).toBe(14_900)
    expect(answer.visit.discount_cents).toBe(5000)
    expect(answer.lines).toMatchObject([
      { unit_price_cents: 19_900, discount_cents: 5000, points: 149 },
    ])
    expect(answer.entries.filter((e) => e.kind === 'earn').map((e) => e.points)).toEqual([149])
    expect(answer.balance).toBe(149)

    const [claim] = await t.db
      .select({ status: patientPromotions.status })
      .from(patientPromotions)
      .where(eq(patientPromotions.patient_id, patient.id))
    expect(claim?.status).toBe('redeemed')

    const funnel = await t.request(`/api/promotions/${offer.id}`, { token: t.demo.adminToken })
    expect(((await funnel.json()) as PromotionDetail).funnel.revenue_cents).toBe(14_900)

    // The activity log names the offer and what it took off.
    const [audited] = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(eq(auditEvents.action, 'visit.recorded'))
      .orderBy(desc(auditEvents.id))
      .limit(1)
    expect(audited?.details).toMatchObject({
      patient_id: patient.id,
      promotion_id: offer.id,
      discount_cents: 5000,
      earned: 149,
    })
    const log = await t.request('/api/audit?action=visit.recorded', { token: t.demo.adminToken })
    const page = (await log.json()) as { data: { summary: string; patient_id: number | null }[] }
    expect(page.data.find((e) => e.patient_id === patient.id)?.summary).toMatch(
      /recorded a visit for Harper Offer: 149 points earned, \$50\.00 off with the offer “\$50 off HydraFacial”\.$/,
    )
  })

  it('refuses an offer whose procedures match no line, and records nothing', async () => {
    const offer = await liveOffer({
      title: 'HydraFacial only',
      discount_cents: 5000,
      procedure_ids: [hydra],
    })
    const patient = await newPatient()
    await claimed(offer.id, patient.id)
    const refused = await send('/api/visits', 'POST', {
      patient_id: patient.id,
      items: [{ procedure_id: botox, quantity: 1 }],
      idempotencyKey: key(),
      redemption: { promotion_id: offer.id },
    })
    expect(refused.status).toBe(422)
    expect(await messageOf(refused)).toBe(
      OFFER_VALUE_MESSAGES.noMatchingLine('HydraFacial only', '$50.00 off HydraFacial'),
    )
    const [claim] = await t.db
      .select({ status: patientPromotions.status })
      .from(patientPromotions)
      .where(eq(patientPromotions.patient_id, patient.id))
    expect(claim?.status).toBe('claimed')
    // Away from a visit, an offer with value is refused: its value belongs to a visit's lines.
    const away = await send(`/api/patients/${patient.id}/redemptions`, 'POST', {
      promotion_id: offer.id,
      idempotencyKey: key(),
    })
    expect(away.status).toBe(409)
    expect(await messageOf(away)).toBe(OFFER_VALUE_MESSAGES.valueAtCheckout('HydraFacial only'))
    const spec = await send(`/api/promotions/redeemed/${offer.id}`, 'PUT', {
      patient_id: patient.id,
    })
    expect(spec.status).toBe(409)
    expect(await messageOf(spec)).toBe(OFFER_VALUE_MESSAGES.valueAtCheckout('HydraFacial only'))
  })

  it('takes a percentage off every procedure line, in whole cents', async () => {
    const offer = await liveOffer({ title: '15% off', discount_percent: 15 })
    const patient = await newPatient()
    await claimed(offer.id, patient.id)
    const response = await send('/api/visits', 'POST', {
      patient_id: patient.id,
      items: [
        { procedure_id: hydra, quantity: 1 },
        { procedure_id: hydra, quantity: 1, price_cents: 1999 },
      ],
      idempotencyKey: key(),
      redemption: { promotion_id: offer.id },
    })
    expect(response.status, await response.clone().text()).toBe(201)
    const answer = (await response.json()) as VisitAnswer
    // 15% of 19,900 = 2,985; of 1,999 = 299.85 → 300.
    expect(answer.lines.map((l) => l.discount_cents)).toEqual([2985, 300])
    expect(answer.visit.total_cents).toBe(19_900 + 1999 - 2985 - 300)
  })

  it('redeems points and an offer together, with one code for both, once', async () => {
    await t.db
      .update(practices)
      .set({ redemption_code_threshold: 0 })
      .where(eq(practices.id, t.demo.practiceId))
    const offer = await liveOffer({
      title: 'Glow $50',
      discount_cents: 5000,
      procedure_ids: [hydra],
    })
    const patient = await newPatient(500)
    await claimed(offer.id, patient.id)
    const code = await send(`/api/patients/${patient.id}/redemption-code`, 'POST', {
      points: 300,
      promotion_id: offer.id,
    })
    expect(code.status).toBe(201)
    const { authyId } = (await code.json()) as { authyId: string }
    await t.deliver()
    const [sms] = await t.db
      .select({ code: outbox.code, text: outbox.text })
      .from(outbox)
      .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+${patient.phone.replace(/\D/g, '')}`)))
      .orderBy(desc(outbox.id))
      .limit(1)
    expect(sms?.text).toContain('to redeem 300 points ($30.00) and the offer “Glow $50” is')
    const body = {
      patient_id: patient.id,
      items: [{ procedure_id: hydra, quantity: 1 }],
      idempotencyKey: key(),
      redemption: {
        points: 300,
        promotion_id: offer.id,
        verification: { authyId, code: sms?.code ?? '' },
      },
    }
    const first = await send('/api/visits', 'POST', body)
    expect(first.status, await first.clone().text()).toBe(201)
    const answer = (await first.json()) as VisitAnswer
    expect(answer.visit.total_cents).toBe(14_900)
    expect(answer.entries.map((e) => [e.kind, e.points])).toEqual([
      ['earn', 149],
      ['redeem', -300],
    ])
    expect(answer.balance).toBe(500 + 149 - 300)
    // The same key again answers the same visit and writes nothing.
    const again = await send('/api/visits', 'POST', body)
    expect(again.status).toBe(201)
    const replayed = (await again.json()) as VisitAnswer
    expect(replayed.visit.id).toBe(answer.visit.id)
    expect(replayed.balance).toBe(349)
  })
})

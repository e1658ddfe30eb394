import { and, eq } from 'drizzle-orm'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { PatientPromotionSchema } from '#domain/practice-data.ts'
import {
  OfferClaimsPageSchema,
  PROMOTION_MESSAGES,
  PromotionDetailSchema,
  PromotionPageSchema,
  PromotionRedemptionSchema,
} from '#domain/promotions.ts'
import {
  activities,
  auditEvents,
  ledgerEntries,
  patientPromotions,
  patients,
  procedures,
  promotionSends,
  promotions,
} from '#server/db/schema.ts'
import { messageOf, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { createMember, mintToken, testBackends } from '#server/testing/test-app.ts'

const DAY = 86_400_000

describe.each(testBackends())('promotions API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  let managerToken: string
  let staffToken: string
  let manager: { id: number; practice_id: number }
  let procedureId: number
  const start = new Date('2027-03-01T09:00:00.000Z')
  const patientIds: number[] = []

  beforeAll(async () => {
    manager = (await createMember(t.db, t.demo.practiceId, 'Manager')).user
    await setNow(new Date(start.getTime() - 30 * DAY))
    const rows = await t.db
      .insert(patients)
      .values(
        Array.from({ length: 23 }, (_, i) => ({
          practice_id: t.demo.practiceId,
          first_name: 'Offer',
          last_name: `Claimant ${i + 1}`,
          unsubscribe_id: `offer-${backend.name}-${i}-${Date.now()}`,
        })),
      )
      .returning({ id: patients.id })
    patientIds.push(...rows.map((r) => r.id))
    const [procedure] = await t.db
      .select({ id: procedures.id })
      .from(procedures)
      .where(eq(procedures.practice_id, t.demo.practiceId))
      .limit(1)
    procedureId = procedure?.id ?? 0
  })
  afterAll(() => t.setNow(undefined))

  /** Moves the app's clock, and signs the two sessions in at that time. */
  async function setNow(date: Date) {
    t.setNow(date)
    managerToken = await mintToken(manager, { now: date })
    staffToken = await mintToken(t.demo.staff, { now: date })
  }

  const send = (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ): Promise<Response> => t.request(path, { token: managerToken, ...init })
  const offer = async (response: Response) => v.parse(PromotionDetailSchema, await response.json())
  const patient = (i: number) => patientIds[i] ?? 0
  /** The details of the audit events of `action` about the offer `id`, oldest first. */
  const audited = async (action: string, id: number) =>
    (
      await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(eq(auditEvents.action, action))
        .orderBy(auditEvents.id)
    )
      .map((event) => event.details as Record<string, unknown>)
      .filter((details) => details.promotion_id === id)

  /** A published offer live from `start` for 30 days. */
  async function liveOffer(fields: Record<string, unknown> = {}) {
    await setNow(new Date(start.getTime() - DAY))
    const created = await offer(
      await send('/api/promotions', {
        method: 'POST',
        json: {
          title: 'Spring Glow',
          bonus_points: 200,
          starts_at: start.toISOString(),
          ends_at: new Date(start.getTime() + 30 * DAY).toISOString(),
          ...fields,
        },
      }),
    )
    await send(`/api/promotions/${created.id}/publish`, { method: 'POST' })
    await setNow(new Date(start.getTime() + DAY))
    return created
  }
  const claim = (promo: number, patientId: number, extra: Record<string, unknown> = {}) =>
    send(`/api/promotions/claimed/${promo}`, {
      method: 'PUT',
      token: staffToken,
      json: { patient_id: patientId, ...extra },
    })

  it('moves an offer Draft → Scheduled → Live → Ended on its dates (a fake clock)', async () => {
    await setNow(new Date('2027-02-01T12:00:00.000Z'))
    const response = await send('/api/promotions', {
      method: 'POST',
      json: {
        title: '  Laser Week  ',
        description: 'Bonus points on laser packages.',
        points_cost: 0,
        bonus_points: 300,
        starts_at: '2027-02-10T09:00:00.000Z',
        ends_at: '2027-02-17T09:00:00.000Z',
        max_redemptions: 50,
        per_patient_limit: 1,
        code: ' laser-27 ',
      },
    })
    expect(response.status).toBe(201)
    const draft = await offer(response)
    expect(draft).toMatchObject({
      title: 'Laser Week',
      status: 'draft',
      bonus_points: 300,
      points: 300,
      code: 'LASER-27',
      funnel: { sent: 0, claimed: 0, redeemed: 0, expired: 0, redemption_rate: 0 },
    })
    const published = await offer(
      await send(`/api/promotions/${draft.id}/publish`, { method: 'POST' }),
    )
    expect(published.status).toBe('scheduled')
    const read = async () => (await offer(await send(`/api/promotions/${draft.id}`))).status
    await setNow(new Date('2027-02-10T09:00:00.000Z'))
    expect(await read()).toBe('live')
    await setNow(new Date('2027-02-17T08:59:59.000Z'))
    expect(await read()).toBe('live')
    await setNow(new Date('2027-02-17T09:00:00.000Z'))
    expect(await read()).toBe('ended')
    const ended = await send('/api/promotions?status=ended&pageSize=100')
    const page = v.parse(PromotionPageSchema, await ended.json())
    expect(page.data.map((p) => p.id)).toContain(draft.id)
    const live = v.parse(
      PromotionPageSchema,
      await (await send('/api/promotions?status=live&pageSize=100')).json(),
    )
    expect(live.data.map((p) => p.id)).not.toContain(draft.id)
    const archived = await offer(
      await send(`/api/promotions/${draft.id}/archive`, { method: 'POST' }),
    )
    expect(archived.status).toBe('archived')
    expect(await audited('promotion.published', draft.id)).toEqual([
      { promotion_id: draft.id, title: 'Laser Week' },
    ])
  })

  it('refuses impossible moves with a clear 409', async () => {
    await setNow(new Date('2027-01-01T00:00:00.000Z'))
    const draft = await offer(
      await send('/api/promotions', { method: 'POST', json: { title: 'Moves' } }),
    )
    const end = await send(`/api/promotions/${draft.id}/end`, { method: 'POST' })
    expect(end.status).toBe(409)
    expect(await messageOf(end)).toBe(PROMOTION_MESSAGES.endNotRunning)
    await send(`/api/promotions/${draft.id}/publish`, { method: 'POST' })
    const again = await send(`/api/promotions/${draft.id}/publish`, { method: 'POST' })
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(PROMOTION_MESSAGES.publishNotDraft)
    const archive = await send(`/api/promotions/${draft.id}/archive`, { method: 'POST' })
    expect(archive.status).toBe(409)
    expect(await messageOf(archive)).toBe(PROMOTION_MESSAGES.archiveRunning)
    const ended = await offer(await send(`/api/promotions/${draft.id}/end`, { method: 'POST' }))
    expect(ended.status).toBe('ended')
    const edit = await send(`/api/promotions/${draft.id}`, {
      method: 'PUT',
      json: { title: 'Too late' },
    })
    expect(edit.status).toBe(409)
    expect(await messageOf(edit)).toBe(PROMOTION_MESSAGES.editEnded)
    const copy = await send(`/api/promotions/${draft.id}/duplicate`, { method: 'POST' })
    expect(copy.status).toBe(201)
    expect(await offer(copy)).toMatchObject({ title: 'Moves (copy)', status: 'draft' })
  })

  it('answers 400 with the reason for bad fields, and keeps nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          title: 'Backwards',
          starts_at: '2027-05-02T00:00:00.000Z',
          ends_at: '2027-05-01T00:00:00.000Z',
        },
        PROMOTION_MESSAGES.endAfterStart,
      ],
      [{ title: 'Negative', points_cost: -5 }, PROMOTION_MESSAGES.pointsCost],
      [{ title: 'Zero limit', max_redemptions: 0 }, PROMOTION_MESSAGES.maxRedemptions],
      [{ title: 'Half', per_patient_limit: 1.5 }, PROMOTION_MESSAGES.perPatientLimit],
      [{ title: 'Code', code: 'no spaces!' }, PROMOTION_MESSAGES.code],
      [{ title: '   ' }, PROMOTION_MESSAGES.title],
    ]
    for (const [json, expected] of cases) {
      const response = await send('/api/promotions', { method: 'POST', json })
      expect(response.status).toBe(400)
      expect(await messageOf(response)).toContain(expected)
    }
  })

  it('lets only a manager or an admin manage offers, and says so', async () => {
    const response = await send('/api/promotions', {
      method: 'POST',
      token: staffToken,
      json: { title: 'Staff offer' },
    })
    expect(response.status).toBe(403)
    expect(await messageOf(response)).toBe(PERMISSION_REFUSALS['promotions.manage'])
    const list = await send('/api/promotions', { token: staffToken })
    expect(list.status).toBe(200)
    const foreign = await send(`/api/promotions/${other.promotionId}`)
    expect(foreign.status).toBe(404)
  })

  it('edits a live offer without changing what patients already claimed', async () => {
    const live = await liveOffer({ title: 'Peel Week', points_cost: 0, bonus_points: 150 })
    const claimed = v.parse(PatientPromotionSchema, await (await claim(live.id, patient(0))).json())
    expect(claimed).toMatchObject({ status: 'claimed', title: 'Peel Week', bonus_points: 150 })
    const cost = await send(`/api/promotions/${live.id}`, {
      method: 'PUT',
      json: { bonus_points: 999 },
    })
    expect(cost.status).toBe(409)
    expect(await messageOf(cost)).toBe(PROMOTION_MESSAGES.editLive)
    const later = new Date(start.getTime() + 60 * DAY).toISOString()
    const edited = await offer(
      await send(`/api/promotions/${live.id}`, {
        method: 'PUT',
        json: { title: 'Peel Fortnight', ends_at: later },
      }),
    )
    expect(edited).toMatchObject({ title: 'Peel Fortnight', ends_at: later, status: 'live' })
    const [row] = await t.db
      .select()
      .from(patientPromotions)
      .where(eq(patientPromotions.promotion_id, live.id))
    expect(row).toMatchObject({ title: 'Peel Week', bonus_points: 150 })
    // Redeeming gives the bonus the patient claimed, through the ledger, exactly once.
    const redeem = () =>
      send(`/api/promotions/redeemed/${live.id}`, {
        method: 'PUT',
        json: { patient_id: patient(0), override: { reason: 'Front desk check' } },
      })
    const first = v.parse(PromotionRedemptionSchema, await (await redeem()).json())
    expect(first).toMatchObject({ status: 'redeemed', bonus: null, balance: 150 })
    expect(first.entry).toMatchObject({ kind: 'bonus', points: 150 })
    const second = await redeem()
    expect(second.status).toBe(200)
    expect(v.parse(PromotionRedemptionSchema, await second.json()).entry?.id).toBe(first.entry?.id)
    const entries = await t.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, patient(0)))
    expect(entries.map((e) => [e.kind, e.points])).toEqual([['bonus', 150]])
    // Each change is on record once, the refused edit and the repeated redemption not at all.
    expect(await audited('promotion.claimed', live.id)).toEqual([
      { promotion_id: live.id, patient_id: patient(0), claim_id: claimed.id, title: 'Peel Week' },
    ])
    expect(await audited('promotion.updated', live.id)).toEqual([
      { promotion_id: live.id, title: 'Peel Fortnight', fields: 'title,ends_at' },
    ])
    expect(await audited('promotion.redeemed', live.id)).toEqual([
      {
        promotion_id: live.id,
        patient_id: patient(0),
        claim_id: claimed.id,
        title: 'Peel Week',
        redeemed: 0,
        bonus: 150,
        override: true,
        entry_id: first.entry?.id,
      },
    ])
    const deleted = await send(`/api/promotions/${live.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(409)
    expect(await messageOf(deleted)).toBe(PROMOTION_MESSAGES.deleteClaimed)
  })

  it('redeems a claim once under 5 concurrent redemptions: one entry, one activity, one event', async () => {
    const live = await liveOffer({ title: 'Once Only', points_cost: 0, bonus_points: 120 })
    expect((await claim(live.id, patient(22))).status).toBe(200)
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        send(`/api/promotions/redeemed/${live.id}`, {
          method: 'PUT',
          json: { patient_id: patient(22), override: { reason: 'Front desk check' } },
        }),
      ),
    )
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    const redemptions = await Promise.all(
      answers.map(async (r) => v.parse(PromotionRedemptionSchema, await r.json())),
    )
    expect(new Set(redemptions.map((r) => r.entry?.id)).size).toBe(1)
    const entries = await t.db
      .select({ kind: ledgerEntries.kind, points: ledgerEntries.points })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, patient(22)))
    expect(entries).toEqual([{ kind: 'bonus', points: 120 }])
    const history = await t.db
      .select({ description: activities.description, points: activities.points })
      .from(activities)
      .where(and(eq(activities.patient_id, patient(22)), eq(activities.kind, 'promotion_redeemed')))
    expect(history).toEqual([{ description: 'Once Only', points: 120 }])
    expect(await audited('promotion.redeemed', live.id)).toHaveLength(1)
  })

  it('holds the total limit under 20 concurrent claims', async () => {
    const live = await liveOffer({ title: 'Five only', max_redemptions: 5 })
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claim(live.id, patient(i + 1))),
    )
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 409)).toHaveLength(15)
    const refused = answers.find((r) => r.status === 409)
    expect(refused && (await messageOf(refused))).toBe(PROMOTION_MESSAGES.soldOut)
    const rows = await t.db
      .select()
      .from(patientPromotions)
      .where(eq(patientPromotions.promotion_id, live.id))
    expect(rows).toHaveLength(5)
    expect((await offer(await send(`/api/promotions/${live.id}`))).funnel.claimed).toBe(5)
  })

  it('holds the per-patient limit under 20 concurrent claims of one patient', async () => {
    const live = await liveOffer({ title: 'Once each', per_patient_limit: 1 })
    const answers = await Promise.all(Array.from({ length: 20 }, () => claim(live.id, patient(21))))
    expect(answers.every((r) => r.status === 200)).toBe(true)
    const claims = await Promise.all(
      answers.map(async (r) => v.parse(PatientPromotionSchema, await r.json()).id),
    )
    expect(new Set(claims).size).toBe(1)
    const rows = await t.db
      .select()
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.promotion_id, live.id),
          eq(patientPromotions.patient_id, patient(21)),
        ),
      )
    expect(rows).toHaveLength(1)
    // Once redeemed, the limit per patient is reached.
    await send(`/api/promotions/redeemed/${live.id}`, {
      method: 'PUT',
      json: { patient_id: patient(21), override: { reason: 'Front desk check' } },
    })
    const again = await claim(live.id, patient(21))
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(PROMOTION_MESSAGES.perPatient(1))
  })

  it('lists who claimed an offer, by status, newest first, to anyone who reads patients', async () => {
    const live = await liveOffer({ title: 'Who Claimed' })
    for (const i of [3, 4, 5]) expect((await claim(live.id, patient(i))).status).toBe(200)
    await send(`/api/promotions/redeemed/${live.id}`, {
      method: 'PUT',
      json: { patient_id: patient(4), override: { reason: 'Front desk check' } },
    })
    const claims = async (query = '', token = staffToken) => {
      const response = await send(`/api/promotions/${live.id}/claims${query}`, { token })
      expect(response.status).toBe(200)
      return v.parse(OfferClaimsPageSchema, await response.json())
    }
    const all = await claims()
    expect(all.total).toBe(3)
    expect(all.data.map((c) => [c.patient_name, c.status])).toEqual([
      ['Offer Claimant 6', 'claimed'],
      ['Offer Claimant 5', 'redeemed'],
      ['Offer Claimant 4', 'claimed'],
    ])
    expect(all.data[1]?.redeemed_at).not.toBeNull()
    const redeemed = await claims('?status=redeemed')
    expect(redeemed.data.map((c) => c.patient_id)).toEqual([patient(4)])
    // After the offer's end, the open claims read as expired before the nightly job marks them.
    await setNow(new Date(start.getTime() + 31 * DAY))
    const expired = await claims('?status=expired&pageSize=1')
    expect(expired).toMatchObject({ total: 2, page: 1, pageSize: 1 })
    expect(expired.data.map((c) => c.patient_name)).toEqual(['Offer Claimant 6'])
    expect((await claims('?status=claimed')).total).toBe(0)
    const bad = await send(`/api/promotions/${live.id}/claims?status=lost`)
    expect(bad.status).toBe(400)
    expect(await messageOf(bad)).toBe('status: Choose claimed, redeemed or expired.')
    // Another practice's offer is not found, and is not told apart from no offer at all.
    const [theirs] = await t.db
      .insert(promotions)
      .values({ practice_id: other.practiceId, title: 'Theirs' })
      .returning({ id: promotions.id })
    const foreign = await send(`/api/promotions/${theirs?.id}/claims`)
    expect(foreign.status).toBe(404)
    expect(await messageOf(foreign)).toBe(PROMOTION_MESSAGES.notFound)
    expect((await t.request(`/api/promotions/${live.id}/claims`)).status).toBe(401)
  })

  it('claims a code-only offer only with its code, and nothing outside its dates', async () => {
    const live = await liveOffer({ title: 'Secret', code: 'GLOW' })
    const without = await claim(live.id, patient(2))
    expect(without.status).toBe(403)
    expect(await messageOf(without)).toBe(PROMOTION_MESSAGES.codeNeeded)
    const wrong = await claim(live.id, patient(2), { code: 'DULL' })
    expect(wrong.status).toBe(422)
    expect(await messageOf(wrong)).toBe(PROMOTION_MESSAGES.codeWrong)
    expect((await claim(live.id, patient(2), { code: 'glow' })).status).toBe(200)
    // The refused claims are not on record.
    expect(await audited('promotion.claimed', live.id)).toHaveLength(1)
    await setNow(new Date(start.getTime() + 31 * DAY))
    const late = await claim(live.id, patient(3), { code: 'GLOW' })
    expect(late.status).toBe(409)
    expect(await messageOf(late)).toBe(PROMOTION_MESSAGES.notLive.ended)
    // The claim left open is counted expired, and cannot be redeemed any more.
    const expired = await send(`/api/promotions/redeemed/${live.id}`, {
      method: 'PUT',
      json: { patient_id: patient(2) },
    })
    expect(expired.status).toBe(409)
    expect(await messageOf(expired)).toBe(PROMOTION_MESSAGES.expired)
    expect((await offer(await send(`/api/promotions/${live.id}`))).funnel).toMatchObject({
      claimed: 1,
      redeemed: 0,
      expired: 1,
    })
  })

  it('counts the funnel: sent, claimed, redeemed, rate and the revenue of its visits', async () => {
    const live = await liveOffer({ title: 'Funnel', points_cost: 0, bonus_points: 50 })
    await t.db.insert(promotionSends).values(
      [4, 5, 6, 7].map((i) => ({
        practice_id: t.demo.practiceId,
        promotion_id: live.id,
        patient_id: patient(i),
        token: `funnel-${backend.name}-${i}-${Date.now()}`,
        sent_at: i < 7 ? new Date() : null,
      })),
    )
    for (const i of [4, 5, 6]) expect((await claim(live.id, patient(i))).status).toBe(200)
    const visit = await send('/api/visits', {
      method: 'POST',
      json: {
        patient_id: patient(4),
        items: [{ procedure_id: procedureId, quantity: 1, price_cents: 12_345 }],
        idempotencyKey: `funnel-visit-${backend.name}-${Date.now()}`,
        redemption: { promotion_id: live.id, override: { reason: 'Front desk check' } },
      },
    })
    expect(visit.status).toBe(201)
    const redeemed = await send(`/api/promotions/redeemed/${live.id}`, {
      method: 'PUT',
      json: { patient_id: patient(5), override: { reason: 'Front desk check' } },
    })
    expect(redeemed.status).toBe(200)
    const { funnel } = await offer(await send(`/api/promotions/${live.id}`))
    expect(funnel).toEqual({
      sent: 3,
      claimed: 3,
      redeemed: 2,
      expired: 0,
      redemption_rate: 2 / 3,
      revenue_cents: 12_345,
    })
  })
})

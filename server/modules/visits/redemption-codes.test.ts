/**
 * A redemption code is for one amount (points or an offer), its SMS
 * names the practice, the amount and its worth, and the validity; it redeems at most that, for
 * that patient, once; and the checkout can check it as soon as it is typed. Both databases.
 */
import { and, desc, eq } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import { outbox, patientPromotions, practices, promotions } from '#server/db/schema.ts'
import { messageOf, patientWithPoints, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('a code for one amount on $name', (backend) => {
  const t = useTestApp(backend)
  let count = 0
  let practiceName = ''
  const key = () => `code-key-${Date.now()}-${count++}`
  const post = (path: string, json: unknown, token = t.demo.staffToken) =>
    t.request(path, { method: 'POST', token, json })

  const newPatient = (points: number) =>
    patientWithPoints(t, points, { first_name: 'Casey', last_name: 'Code' })

  /** Asks for a code and reads the SMS from the development outbox. */
  async function sendCode(patient: { id: number; phone: string }, amount: object) {
    const response = await post(`/api/patients/${patient.id}/redemption-code`, amount)
    expect(response.status).toBe(201)
    const { authyId } = (await response.json()) as { authyId: string }
    await t.deliver()
    const [sms] = await t.db
      .select({ code: outbox.code, text: outbox.text })
      .from(outbox)
      .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+${patient.phone.replace(/\D/g, '')}`)))
      .orderBy(desc(outbox.id))
      .limit(1)
    if (!sms?.code) throw new Error('no SMS')
    return { authyId, code: sms.code, text: sms.text }
  }

  beforeAll(async () => {
    const [practice] = await t.db
      .select({ name: practices.practice_name })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    practiceName = practice?.name ?? ''
  })
  beforeEach(async () => {
    await t.db
      .update(practices)
      .set({ redemption_code_threshold: 0, point_value_cents: 10 })
      .where(eq(practices.id, t.demo.practiceId))
  })

  it('names the practice, the points and their worth and the validity, and redeems at most that, once', async () => {
    const patient = await newPatient(2_500)
    const noAmount = await post(`/api/patients/${patient.id}/redemption-code`, {})
    expect(noAmount.status).toBe(400)

    const { authyId, code, text } = await sendCode(patient, { points: 100 })
    expect(text).toBe(
      `${practiceName}: your code to redeem 100 points ($10.00) is ${code}. It is valid for 10 minutes, for this redemption only. Give it only to the front desk.`,
    )
    // The patient agreed to 100 points: the whole balance is refused.
    const more = await post(`/api/patients/${patient.id}/redemptions`, {
      points: 2_500,
      idempotencyKey: key(),
      verification: { authyId, code },
    })
    expect(more.status).toBe(422)
    expect(await messageOf(more)).toBe(VISIT_MESSAGES.codeOtherAmount('100 points ($10.00)'))

    const agreed = await post(`/api/patients/${patient.id}/redemptions`, {
      points: 100,
      idempotencyKey: key(),
      verification: { authyId, code },
    })
    expect(agreed.status).toBe(201)
    expect(((await agreed.json()) as { balance: number }).balance).toBe(2_400)
    const twice = await post(`/api/patients/${patient.id}/redemptions`, {
      points: 100,
      idempotencyKey: key(),
      verification: { authyId, code },
    })
    expect(twice.status).toBe(422)
    expect(await messageOf(twice)).toBe(VISIT_MESSAGES.codeUsed)
  })

  it('names the offer, and redeems only that offer', async () => {
    const patient = await newPatient(500)
    const [offer] = await t.db
      .insert(promotions)
      .values({
        practice_id: t.demo.practiceId,
        title: 'Birthday Glow',
        points: 0,
        points_cost: 200,
      })
      .returning({ id: promotions.id })
    if (!offer) throw new Error('no offer')
    await t.db.insert(patientPromotions).values({
      practice_id: t.demo.practiceId,
      patient_id: patient.id,
      promotion_id: offer.id,
      claimed_at: new Date(),
    })
    const { authyId, code, text } = await sendCode(patient, { promotion_id: offer.id })
    expect(text).toContain('your code to redeem the offer “Birthday Glow” is')
    const asPoints = await post(`/api/patients/${patient.id}/redemptions`, {
      points: 200,
      idempotencyKey: key(),
      verification: { authyId, code },
    })
    expect(asPoints.status).toBe(422)
    expect(await messageOf(asPoints)).toBe(
      VISIT_MESSAGES.codeOtherAmount('the offer “Birthday Glow”'),
    )
  })

  it('checks a typed code before Confirm: a wrong one is said, the right one is not used up', async () => {
    const patient = await newPatient(1_000)
    const { authyId, code } = await sendCode(patient, { points: 300 })
    const check = (typed: string, points = 300) =>
      post(`/api/patients/${patient.id}/redemption-code/check`, { authyId, code: typed, points })
    const wrong = await check(code === '000000' ? '111111' : '000000')
    expect(wrong.status).toBe(422)
    expect(await messageOf(wrong)).toBe(VISIT_MESSAGES.codeIncorrect)
    const otherAmount = await check(code, 500)
    expect(otherAmount.status).toBe(422)
    expect(await messageOf(otherAmount)).toBe(VISIT_MESSAGES.codeOtherAmount('300 points ($30.00)'))
    const right = await check(code)
    expect(right.status).toBe(200)
    expect(await right.json()).toEqual({ valid: true })
    // Checked, not used: the visit then uses it.
    const visit = await post('/api/visits', {
      patient_id: patient.id,
      items: [],
      idempotencyKey: key(),
      redemption: { points: 300, verification: { authyId, code } },
    })
    expect(visit.status).toBe(201)
    const after = await check(code)
    expect(await messageOf(after)).toBe(VISIT_MESSAGES.codeUsed)
  })

  it('counts checks against the 5 attempts of the code', async () => {
    const patient = await newPatient(1_000)
    const { authyId, code } = await sendCode(patient, { points: 300 })
    const wrongCode = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 5; i++) {
      const wrong = await post(`/api/patients/${patient.id}/redemption-code/check`, {
        authyId,
        code: wrongCode,
        points: 300,
      })
      expect(wrong.status).toBe(422)
    }
    const locked = await post(`/api/patients/${patient.id}/redemption-code/check`, {
      authyId,
      code,
      points: 300,
    })
    expect(await messageOf(locked)).toBe(VISIT_MESSAGES.codeAttempts)
  })
})

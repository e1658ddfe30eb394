/**
 * Redemptions without the patient's code (at most the threshold each) add up,
 * per patient and day, under the patient's lock: at most the threshold in all, then the code is
 * needed. Both databases, with requests in parallel.
 */
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import { patients, practices } from '#server/db/schema.ts'
import { messageOf, patientWithPoints, useTestApp } from '#server/testing/suite.ts'
import { mintToken, testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('code-less redemptions a day on $name', (backend) => {
  const t = useTestApp(backend)
  let count = 0
  const key = () => `codeless-${Date.now()}-${count++}`
  const post = (path: string, json: unknown, token = t.demo.staffToken) =>
    t.request(path, { method: 'POST', token, json })

  const newPatient = async (points: number) =>
    (await patientWithPoints(t, points, { first_name: 'Dana', last_name: 'Limit', phone: null })).id

  const balance = async (patientId: number) =>
    (
      await t.db
        .select({ points: patients.points })
        .from(patients)
        .where(eq(patients.id, patientId))
    )[0]?.points

  beforeEach(async () => {
    t.setNow(undefined)
    await t.db
      .update(practices)
      .set({ redemption_code_threshold: 500 })
      .where(eq(practices.id, t.demo.practiceId))
  })

  it('lets one of 6 parallel 500-point redemptions through on a 2,500 balance', async () => {
    const patientId = await newPatient(2_500)
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(`/api/patients/${patientId}/redemptions`, { points: 500, idempotencyKey: key() }),
      ),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([201, 403, 403, 403, 403, 403])
    const refused = answers.find((a) => a.status === 403)
    if (!refused) throw new Error('none refused')
    expect(await messageOf(refused)).toBe(VISIT_MESSAGES.codelessDailyLimit(500, 500))
    expect(await balance(patientId)).toBe(2_000)
  })

  it('counts visits and redemptions together, not reversed ones, and starts again the next day', async () => {
    const patientId = await newPatient(2_500)
    const visit = await post('/api/visits', {
      patient_id: patientId,
      items: [],
      idempotencyKey: key(),
      redemption: { points: 300 },
    })
    expect(visit.status).toBe(201)
    const { visit: recorded } = (await visit.json()) as { visit: { id: number } }
    const over = await post(`/api/patients/${patientId}/redemptions`, {
      points: 300,
      idempotencyKey: key(),
    })
    expect(over.status).toBe(403)
    expect(await messageOf(over)).toBe(VISIT_MESSAGES.codelessDailyLimit(500, 300))
    const within = await post(`/api/patients/${patientId}/redemptions`, {
      points: 200,
      idempotencyKey: key(),
    })
    expect(within.status).toBe(201)

    // An undone visit's redemption no longer counts.
    expect((await post(`/api/visits/${recorded.id}/undo`, {})).status).toBe(201)
    const afterUndo = await post(`/api/patients/${patientId}/redemptions`, {
      points: 300,
      idempotencyKey: key(),
    })
    expect(afterUndo.status).toBe(201)

    // A manager's override is not a code-less redemption of the desk's.
    const override = await post(
      `/api/patients/${patientId}/redemptions`,
      { points: 400, idempotencyKey: key(), override: { reason: 'Owner agreed' } },
      t.demo.adminToken,
    )
    expect(override.status).toBe(201)

    const later = new Date(Date.now() + 24 * 60 * 60 * 1000)
    t.setNow(later)
    const tomorrow = await post(
      `/api/patients/${patientId}/redemptions`,
      { points: 500, idempotencyKey: key() },
      await mintToken(t.demo.staff, { now: later }),
    )
    expect(tomorrow.status).toBe(201)
  })
})

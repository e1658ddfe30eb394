import { eq } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { ActivityPageSchema } from '#domain/activity-log.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { auditEvents } from '#server/db/schema.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

let keys = 0
const key = () => `activity-${Date.now()}-${keys++}`

describe.each(testBackends())('the activity log on $name', (backend) => {
  const t = useTestApp(backend)
  // A practice of its own, so the log holds exactly what this suite did.
  const practice = usePracticeFixture(t, { name: 'Activity Practice' })
  const manager = useMember(t, 'Manager', practice)
  const staff = useMember(t, 'Staff', practice)

  beforeAll(async () => {
    const adjusted = await t.request(`/api/patients/${practice.patientId}/adjustments`, {
      method: 'POST',
      token: manager.token,
      json: { points: 500, reason: 'birthday', idempotencyKey: key() },
    })
    expect(adjusted.status).toBe(201)
    const refused = await t.request(`/api/patients/${practice.patientId}/adjustments`, {
      method: 'POST',
      token: staff.token,
      json: { points: 5, reason: 'try', idempotencyKey: key() },
    })
    expect(refused.status).toBe(403)
    expect(
      (await t.request(`/api/patients/${practice.patientId}`, { token: staff.token })).status,
    ).toBe(200)
  })

  const log = async (query = '', token = practice.token) => {
    const response = await t.request(`/api/audit${query}`, { token })
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    return v.parse(ActivityPageSchema, await response.json())
  }

  it('tells the Admin each event in words, newest first, its own opening of the log on top', async () => {
    const page = await log()
    const sentences = page.data.map((event) => event.summary)
    expect(sentences[0]).toBe('Olive Other opened the activity log.')
    expect(sentences).toContain("Morgan Manager adjusted Peter Private's points by +500: birthday.")
    expect(sentences).toContain(`Morgan Staff was refused: ${PERMISSION_REFUSALS['points.adjust']}`)
    expect(sentences).toContain("Morgan Staff opened Peter Private's profile.")
    const ids = page.data.map((event) => event.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    const adjustment = page.data.find((event) => event.action === 'ledger.posted')
    expect(adjustment).toMatchObject({
      actor: { id: manager.user.id, first_name: 'Morgan', last_name: 'Manager' },
      patient_id: practice.patientId,
    })
  })

  it('keeps ids in the trail and reads the names when the log is shown', async () => {
    const rows = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(eq(auditEvents.practice_id, practice.practiceId))
    expect(rows.length).toBeGreaterThan(3)
    expect(JSON.stringify(rows)).not.toMatch(/Peter|Private|birthday|peter-/)
  })

  it('filters by person, by action and by days, and pages', async () => {
    const byManager = await log(`?actor=${manager.user.id}`)
    expect(byManager.data.length).toBeGreaterThan(0)
    expect(byManager.data.every((event) => event.actor?.id === manager.user.id)).toBe(true)
    const refusals = await log('?action=permission.refused')
    expect(refusals.data.map((event) => event.action)).toEqual(
      refusals.data.map(() => 'permission.refused'),
    )
    expect(refusals.total).toBeGreaterThanOrEqual(1)
    const today = new Date().toISOString().slice(0, 10)
    expect((await log(`?from=${today}&to=${today}&action=ledger.posted`)).total).toBe(1)
    expect((await log('?to=2000-01-01')).total).toBe(0)
    const first = await log('?pageSize=2')
    const second = await log('?pageSize=2&page=2')
    expect(first.data).toHaveLength(2)
    expect(second.page).toBe(2)
    expect(second.data.map((event) => event.id).every((id) => id < (first.data[1]?.id ?? 0))).toBe(
      true,
    )
    const beyond = await log('?page=999')
    expect(beyond.data).toEqual([])
    expect(beyond.total).toBeGreaterThan(0)
  })

  it('refuses a bad filter with a sentence', async () => {
    const cases: [string, string][] = [
      ['?from=2026-02-01&to=2026-01-01', 'The start date is after the end date.'],
      ['?from=yesterday', 'from must be a date written YYYY-MM-DD.'],
      ['?action=patient.eaten', 'action must be one of the actions the log records.'],
      ['?pageSize=500', 'pageSize can be at most 100.'],
    ]
    for (const [query, message] of cases) {
      const response = await t.request(`/api/audit${query}`, { token: practice.token })
      expect(response.status, query).toBe(400)
      expect(JSON.stringify(await response.json()), query).toContain(message)
    }
  })

  it('shows a practice only its own events', async () => {
    const demo = await log('?pageSize=100', t.demo.adminToken)
    expect(demo.data.some((event) => event.summary.includes('Peter Private'))).toBe(false)
    expect(demo.data.some((event) => event.summary.includes('Morgan Manager'))).toBe(false)
  })

  it('refuses Managers and Staff with the sentence naming what is missing', async () => {
    for (const token of [manager.token, staff.token]) {
      for (const path of ['/api/audit', '/api/audit/export.csv']) {
        const response = await t.request(path, { token })
        expect(response.status).toBe(403)
        expect(await response.json()).toMatchObject({
          error: { message: 'Only an admin can see the activity log.' },
        })
      }
    }
  })

  it('exports the filtered log as CSV, and the export is on record', async () => {
    const response = await t.request('/api/audit/export.csv?action=ledger.posted', {
      token: practice.token,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(/^attachment; filename="activity-/)
    const lines = (await response.text()).trim().split('\r\n')
    expect(lines[0]).toBe('id,created_at,action,summary,actor_id,actor,patient_id,ip')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(
      ",Morgan Manager adjusted Peter Private's points by +500: birthday.,",
    )
    const exported = await log('?action=report.exported')
    expect(exported.data[0]?.summary).toBe('Olive Other exported the activity CSV.')
  })
})

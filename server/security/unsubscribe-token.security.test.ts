import { beforeAll, describe, expect, it } from 'vitest'
import { randomToken } from '#server/lib/random.ts'
import { apiRoutes, fillPath, PUBLIC_ROUTES } from '#server/testing/api-routes.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'

/** Walks a JSON value and answers the paths of every `unsubscribe_id` key in it. */
function unsubscribeKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, i) => unsubscribeKeys(item, `${path}[${i}]`))
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      ...(key === 'unsubscribe_id' ? [`${path}.${key}`] : []),
      ...unsubscribeKeys(item, `${path}.${key}`),
    ])
  }
  return []
}

/**
 * A patient's unsubscribe token is the patient's own (whoever holds it can unsubscribe
 * them), so no staff answer carries it: not the lists, the profile, the search, the merge, the
 * exports, nor any other route a signed-in member can call.
 */
describe.each(testBackends())('staff answers without unsubscribe tokens on $name', (backend) => {
  const t = useTestApp(backend)
  const own = usePracticeFixture(t)
  /** A second patient of the practice, with a token of its own, for the merge. */
  let twin: { id: number; token: string }

  beforeAll(async () => {
    const row = await insertPatient(t.db, {
      practice_id: own.practiceId,
      first_name: 'Peter',
      last_name: 'Private',
      email: `twin-${randomToken(6).toLowerCase()}@other.example`,
    })
    twin = { id: row.id, token: row.unsubscribe_id }
  })

  /** Checks one answer: no `unsubscribe_id` key, and neither patient's token anywhere in it. */
  async function expectNoToken(label: string, response: Response) {
    const text = await response.text()
    expect(text, label).not.toContain(own.unsubscribeId)
    expect(text, label).not.toContain(twin.token)
    expect(text, label).not.toContain('unsubscribe_id')
    if ((response.headers.get('Content-Type') ?? '').includes('json')) {
      expect(unsubscribeKeys(JSON.parse(text)), label).toEqual([])
    }
  }

  it('leaves the token out of every patient answer: lists, search, profile, edits, merge, exports', async () => {
    const token = own.token
    const id = own.patientId
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/patients/by-practice/${own.practiceId}`],
      ['GET', `/api/patients/all/by-practice/${own.practiceId}`],
      ['GET', `/api/patients/all/by-practice/converted/${own.practiceId}`],
      ['GET', '/api/patients?q=Private'],
      ['GET', '/api/patients'],
      ['GET', `/api/patients/${id}`],
      ['PUT', `/api/patients/${id}`, { first_name: 'Peter', last_name: 'Private' }],
      ['POST', `/api/patients/${id}/archive`],
      ['POST', `/api/patients/${id}/restore`],
      ['GET', '/api/patients/duplicates'],
      ['GET', `/api/patients/${id}/merge/${twin.id}`],
      ['GET', `/api/activities/patient/${id}`],
      ['GET', '/api/reports/patients.csv'],
      ['POST', '/api/patients', { first_name: 'Nina', last_name: 'New' }],
      ['POST', `/api/patients/${id}/merge/${twin.id}`, {}],
    ]
    for (const [method, path, json] of calls) {
      const response = await t.request(path, { method, token, ...(json ? { json } : {}) })
      expect(response.status, `${method} ${path}`).toBeLessThan(300)
      await expectNoToken(`${method} ${path}`, response)
    }
  })

  it('leaves it out of every other GET a signed-in Admin can call', async () => {
    // Each route's parameters filled with the fixture's rows, so most answer with real data.
    const idFor = (path: string) => {
      if (path.includes('by-practice')) return own.practiceId
      if (path.startsWith('/api/appointments/')) return own.appointmentId
      if (path.startsWith('/api/promotions/')) return own.promotionId
      if (path.startsWith('/api/users/')) return own.admin.id
      return own.patientId
    }
    const walked: string[] = []
    for (const route of apiRoutes(t.app)) {
      if (route.method !== 'GET' || PUBLIC_ROUTES.has(route.key)) continue
      const path = fillPath(route.path, (name) => {
        if (name === 'practiceId') return String(own.practiceId)
        if (name === 'date') return '2026-06-01'
        if (name === 'mergedId') return String(twin.id)
        return String(idFor(route.path))
      })
      const response = await t.app.request(path, {
        headers: { Authorization: `Bearer ${own.token}` },
      })
      expect(response.status, route.key).toBeLessThan(500)
      await expectNoToken(route.key, response)
      if (response.status === 200) walked.push(route.key)
    }
    // The walk reached the patient answers, not only refusals.
    expect(walked).toEqual(
      expect.arrayContaining([
        'GET /api/patients/:id',
        'GET /api/patients/by-practice/:id',
        'GET /api/patients',
      ]),
    )
  })
})

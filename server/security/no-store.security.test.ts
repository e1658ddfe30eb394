/**
 * Answers that carry personal data or tokens are never kept by a browser or
 * proxy cache (`Cache-Control: no-store`).
 */
import { describe, expect, it } from 'vitest'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

describe.each(httpBackends())('Cache-Control of API answers on $name', (backend) => {
  const t = useTestApp(backend)

  it('is no-store on a session, personal data, an error and the outbox', async () => {
    const answers = {
      session: await t.request('/api/auth/local', {
        method: 'POST',
        json: { identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password },
      }),
      patients: await t.request(`/api/patients/by-practice/${t.demo.practiceId}`, {
        token: t.demo.adminToken,
      }),
      user: await t.request(`/api/users/${t.demo.admin.id}`, { token: t.demo.adminToken }),
      unknown: await t.request('/api/patients/2147483647', { token: t.demo.adminToken }),
      outbox: await t.request('/api/dev/outbox'),
    }
    const seen = Object.fromEntries(
      Object.entries(answers).map(([name, response]) => [
        name,
        `${response.status} ${response.headers.get('Cache-Control')}`,
      ]),
    )
    expect(seen).toEqual({
      session: '200 no-store',
      patients: '200 no-store',
      user: '200 no-store',
      unknown: '404 no-store',
      outbox: '200 no-store',
    })
  })
})

import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { CATALOGUE_MESSAGES, CatalogueItemSchema } from '#domain/practice-data.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

describe.each(httpBackends())('the catalogue on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')

  const call = async (path: string, init: { method?: string; json?: unknown; token?: string }) => {
    const response = await t.request(`/api${path}`, {
      token: manager.token,
      ...init,
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const list = async (kind: 'procedures' | 'products', archived = false) => {
    const answer = await call(
      `/${kind}?practice=${t.demo.practiceId}${archived ? '&archived=true' : ''}`,
      { token: t.demo.staffToken },
    )
    return v.parse(v.array(CatalogueItemSchema), answer.body)
  }

  it.each(['procedures', 'products'] as const)(
    'lets a manager add, change, archive and restore %s, with points from the price when left empty',
    async (kind) => {
      const added = await call(`/${kind}`, {
        method: 'POST',
        json: { name: '  Glow Peel  ', price: 12_550, points: null, min_days_between: 28 },
      })
      expect(added).toMatchObject({
        status: 201,
        body: {
          name: 'Glow Peel',
          price: 12_550,
          // $125.50 × 1 point per dollar, rounded down.
          points: 125 * DEFAULT_PROGRAMME_RULES.points_per_dollar,
          own_points: null,
          min_days_between: 28,
          archived: false,
          practice_id: t.demo.practiceId,
        },
      })
      const id = added.body.id as number
      expect((await list(kind)).map((item) => item.id)).toContain(id)

      const changed = await call(`/${kind}/${id}`, {
        method: 'PUT',
        json: { name: 'Glow Peel Deluxe', price: 15_000, points: 300 },
      })
      expect(changed).toMatchObject({
        status: 200,
        body: { name: 'Glow Peel Deluxe', points: 300, own_points: 300, min_days_between: 0 },
      })

      expect(await call(`/${kind}/${id}/archive`, { method: 'POST' })).toMatchObject({
        status: 200,
        body: { archived: true },
      })
      expect((await list(kind)).map((item) => item.id)).not.toContain(id)
      expect((await list(kind, true)).map((item) => item.id)).toContain(id)
      expect(await call(`/${kind}/${id}/restore`, { method: 'POST' })).toMatchObject({
        status: 200,
        body: { archived: false },
      })
      expect((await list(kind)).map((item) => item.id)).toContain(id)
    },
  )

  it('leaves the catalogue read-only to staff, saying who may change it', async () => {
    const [item] = await list('procedures')
    if (!item) throw new Error('the demo has procedures')
    const refusal = { error: { message: PERMISSION_REFUSALS['catalogue.manage'] } }
    const body = { name: 'Staff Peel', price: 100 }
    for (const [path, method, json] of [
      ['/procedures', 'POST', body],
      [`/procedures/${item.id}`, 'PUT', body],
      [`/procedures/${item.id}/archive`, 'POST', undefined],
    ] as const) {
      expect(await call(path, { method, json, token: t.demo.staffToken })).toMatchObject({
        status: 403,
        body: refusal,
      })
    }
    expect((await list('procedures')).find((p) => p.id === item.id)).toEqual(item)
  })

  it('refuses bad values with a sentence per field', async () => {
    const answer = await call('/products', {
      method: 'POST',
      json: { name: ' ', price: 12.5, points: -1, min_days_between: 9999 },
    })
    expect(answer.status).toBe(400)
    const issues = (answer.body.error as { details: { issues: { message: string }[] } }).details
      .issues
    expect(issues.map((issue) => issue.message)).toEqual([
      CATALOGUE_MESSAGES.nameRequired,
      CATALOGUE_MESSAGES.price,
      CATALOGUE_MESSAGES.points,
      CATALOGUE_MESSAGES.minDays,
    ])
  })

  it("answers another practice's items as unknown and lists only the practice's own", async () => {
    for (const path of [
      `/procedures/${other.procedureId}/archive`,
      `/products/${other.productId}/archive`,
    ]) {
      expect(await call(path, { method: 'POST' })).toMatchObject({
        status: 404,
        body: { error: { message: CATALOGUE_MESSAGES.notFound } },
      })
    }
    expect((await list('products')).every((p) => p.practice_id === t.demo.practiceId)).toBe(true)
  })
})

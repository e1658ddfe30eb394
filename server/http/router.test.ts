import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { CachedRouter } from '#server/http/router.ts'

/** The same routes on Hono's default router and on CachedRouter. */
function apps() {
  const build = (app: Hono) =>
    app
      .use('*', async (c, next) => {
        await next()
        c.header('X-Seen', 'all')
      })
      .use('/api/*', async (c, next) => {
        await next()
        c.header('X-Api', 'yes')
      })
      .get('/api/patients/all/by-practice/:id', (c) => c.text(`all ${c.req.param('id')}`))
      .get('/api/patients/all/by-practice/converted/:id', (c) =>
        c.text(`converted ${c.req.param('id')}`),
      )
      .get('/api/patients/:id', (c) => c.text(`patient ${c.req.param('id')}`))
      .put('/api/patients/:id', (c) => c.text(`put ${c.req.param('id')}`))
      .get('/api/appointments/:practiceId/:date', (c) => c.text(JSON.stringify(c.req.param())))
      .get('/api/files/*', (c) => c.text(`file ${c.req.path}`))
      .get('/api/health', (c) => c.text('ok'))
      .notFound((c) => c.text(`none ${c.req.method} ${c.req.path}`, 404))
  return { plain: build(new Hono()), cached: build(new Hono({ router: new CachedRouter() })) }
}

const answer = async (response: Response | Promise<Response>) => {
  const r = await response
  return { status: r.status, body: await r.text(), headers: [...r.headers] }
}

describe('CachedRouter', () => {
  it('answers every request as the default router does, also when asked again', async () => {
    const { plain, cached } = apps()
    const requests: [string, string][] = [
      ['GET', '/api/health'],
      ['GET', '/api/patients/12'],
      ['GET', '/api/patients/13'],
      ['PUT', '/api/patients/12'],
      ['DELETE', '/api/patients/12'],
      ['GET', '/api/patients/all/by-practice/4'],
      ['GET', '/api/patients/all/by-practice/converted/4'],
      ['GET', '/api/patients/caf%C3%A9'],
      ['GET', '/api/appointments/4/2026-01-02'],
      ['GET', '/api/files/a/b/c.png'],
      ['GET', '/api/nothing'],
      ['GET', '/signin'],
      ['HEAD', '/api/health'],
    ]
    for (let round = 0; round < 3; round++) {
      for (const [method, path] of requests) {
        const expected = await answer(plain.request(path, { method }))
        expect(await answer(cached.request(path, { method })), `${method} ${path}`).toEqual(
          expected,
        )
      }
    }
  })

  it('gives the same answer object for the same method and path', () => {
    const router = new CachedRouter<string>()
    router.add('GET', '/a/:id', 'a')
    router.add('ALL', '*', 'all')
    const first = router.match('GET', '/a/1')
    expect(router.match('GET', '/a/1')).toBe(first)
    expect(router.match('POST', '/a/1')).not.toBe(first)
    expect(router.match('GET', '/a/2')).not.toBe(first)
  })

  it('stays right past its size limit and for long paths', () => {
    const router = new CachedRouter<string>()
    router.add('GET', '/p/:id', 'p')
    const params = (result: ReturnType<typeof router.match>) => {
      const [[handler, map]] = result[0] as [[string, Record<string, string | number>]]
      const stash = result[1]
      const id = map.id
      return [handler, stash && typeof id === 'number' ? stash[id] : id]
    }
    for (let i = 0; i < 2500; i++) {
      expect(params(router.match('GET', `/p/${i}`))).toEqual(['p', String(i)])
    }
    expect(params(router.match('GET', '/p/7'))).toEqual(['p', '7'])
    const long = 'x'.repeat(500)
    expect(params(router.match('GET', `/p/${long}`))).toEqual(['p', long])
    expect(router.match('GET', '/q')[0]).toEqual([])
  })
})

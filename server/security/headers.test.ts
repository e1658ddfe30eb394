import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono, type MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  securedResponse,
  securityHeaderList,
  securityHeaders,
  withSecurityHeaders,
} from '#server/security/headers.ts'
import { serveSpa } from '#server/static.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

const HCAPTCHA = ['https://hcaptcha.com', 'https://*.hcaptcha.com']
const STRIPE_SCRIPTS = ['https://js.stripe.com', 'https://*.js.stripe.com']

/** The hono/secure-headers setup the app used before server/security/headers.ts: the reference. */
function honoSecureHeaders(production: boolean): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", 'https://js.hcaptcha.com', ...HCAPTCHA, ...STRIPE_SCRIPTS],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", ...HCAPTCHA, 'https://api.stripe.com'],
      frameSrc: [...HCAPTCHA, ...STRIPE_SCRIPTS, 'https://hooks.stripe.com'],
      frameAncestors: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      objectSrc: ["'none'"],
    },
    referrerPolicy: 'strict-origin-when-cross-origin',
    strictTransportSecurity: production ? 'max-age=63072000; includeSubDomains' : false,
    xFrameOptions: 'DENY',
    crossOriginOpenerPolicy: 'same-origin-allow-popups',
  })
}

/** All headers of a response as `[name, value]` pairs (sorted, as the Headers API lists them). */
const headerPairs = (response: Response, without: string[] = []) =>
  [...response.headers].filter(([name]) => !without.includes(name))

const INDEX = `<!doctype html><html><head></head><body><div id="root"></div>${' '.repeat(2048)}</body></html>`
const SCRIPT = `console.log(${JSON.stringify('glow '.repeat(2000))})`

let dist: string
beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), 'glow-headers-'))
  mkdirSync(join(dist, 'assets'))
  writeFileSync(join(dist, 'index.html'), INDEX)
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), SCRIPT)
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
})
afterAll(() => rmSync(dist, { recursive: true, force: true }))

describe('the security header middleware', () => {
  for (const production of [false, true]) {
    it(`sends what hono/secure-headers sent (production: ${production}), replacing a handler's own`, async () => {
      const handler = (c: Parameters<MiddlewareHandler>[0]) =>
        c.json({ ok: true }, 200, {
          'X-Frame-Options': 'SAMEORIGIN',
          'X-Powered-By': 'Hono',
          'Cache-Control': 'no-store',
        })
      const before = new Hono().use(honoSecureHeaders(production)).get('/', handler)
      const after = new Hono().use(securityHeaders({ production })).get('/', handler)
      const expected = headerPairs(await before.request('/'))
      expect(headerPairs(await after.request('/'))).toEqual(expected)
      expect(expected).toContainEqual(['x-frame-options', 'DENY'])
      expect(expected.map(([name]) => name)).not.toContain('x-powered-by')
    })

    it(`leaves a secured response as it is, with the same headers (production: ${production})`, async () => {
      const body = new TextEncoder().encode('{"a":1}')
      const headers = withSecurityHeaders({ production }, { 'Content-Type': 'application/json' })
      const before = new Hono()
        .use(honoSecureHeaders(production))
        .get('/', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }))
      const after = new Hono()
        .use(securityHeaders({ production }))
        .get('/', () => securedResponse(body, 200, headers))
      const expected = await before.request('/')
      const actual = await after.request('/')
      expect(headerPairs(actual)).toEqual(headerPairs(expected))
      expect(await actual.text()).toBe(await expected.text())
      // Lower-case names in Headers order: the plain object is written exactly like the list.
      expect(Object.entries(headers)).toEqual(headerPairs(expected))
      expect(Object.isFrozen(headers)).toBe(true)
      expect(securityHeaderList({ production }).length).toBe(production ? 12 : 11)
    })
  }
})

describe.each(httpBackends())('security headers of the whole app on $name', (backend) => {
  const t = useTestApp(backend, () => ({ distDir: dist }))

  for (const production of [false, true]) {
    describe(`production: ${production}`, () => {
      it('answers GET and HEAD /api/practice/plans with the headers and bytes as before', async () => {
        const app = t.makeApp({ distDir: dist, production })
        const answer = await app.request('/api/practice/plans')
        const json = new Uint8Array(await answer.clone().arrayBuffer())
        const before = new Hono()
          .use(honoSecureHeaders(production))
          .on(['GET', 'HEAD'], '/api/practice/plans', (c) =>
            // Every API answer is no-store, this one included.
            c.body(json, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }),
          )
        for (const method of ['GET', 'HEAD']) {
          const expected = await before.request('/api/practice/plans', { method })
          const actual = await app.request('/api/practice/plans', { method })
          expect(actual.status, method).toBe(200)
          expect(headerPairs(actual), method).toEqual(headerPairs(expected))
          expect(await actual.text(), method).toBe(await expected.text())
        }
        expect(JSON.parse(new TextDecoder().decode(json))).toHaveProperty('plans.data')
      })

      it('sends the same headers as before on the HTML page and on assets', async () => {
        const app = t.makeApp({ distDir: dist, production })
        const before = new Hono().use(honoSecureHeaders(production)).use(serveSpa(dist))
        const requests: [string, Record<string, string>][] = [
          ['/signin', {}],
          ['/signin', { 'Accept-Encoding': 'br' }],
          ['/assets/index-abc123.js', { 'Accept-Encoding': 'gzip' }],
          ['/assets/index-abc123.js', {}],
          ['/favicon.svg', {}],
        ]
        for (const [path, headers] of requests) {
          const expected = await before.request(path, { headers })
          const actual = await app.request(path, { headers })
          expect(actual.status, path).toBe(200)
          // The page also hands out the XSRF cookie, which the reference app has no part in.
          expect(headerPairs(actual, ['set-cookie']), path).toEqual(headerPairs(expected))
        }
      })

      it('sends the security headers on API answers and errors', async () => {
        const app = t.makeApp({ distDir: dist, production })
        const expected = headerPairs(
          await new Hono()
            .use(honoSecureHeaders(production))
            .get('/', (c) => c.body(null, 200, { 'Cache-Control': 'no-store' }))
            .request('/'),
        )
        const answers = [
          await app.request('/api/health'),
          await app.request('/api/nothing-here'),
          await app.request('/api/practice/coupons/NOPE'),
          await app.request('/api/auth/check-email', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{bad',
          }),
          await app.request('/api/auth/check-email', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Cookie: 'XSRF-TOKEN=a' },
            body: '{}',
          }),
        ]
        expect(answers.map((answer) => answer.status)).toEqual([200, 404, 404, 400, 403])
        for (const answer of answers) {
          expect(headerPairs(answer, ['content-type'])).toEqual(expected)
        }
      })
    })
  }
})

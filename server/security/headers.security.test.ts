import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { XSRF_MESSAGE } from '#server/http/xsrf.ts'
import { clientIp } from '#server/security/client-ip.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

describe.each(httpBackends())('headers and the XSRF pair on $name', (backend) => {
  const t = useTestApp(backend)

  it('sends CSP without inline script, nosniff, referrer policy and frame-ancestors none', async () => {
    for (const path of ['/api/health', '/api/nothing-here', '/signin']) {
      const response = await t.request(path)
      const csp = response.headers.get('Content-Security-Policy') ?? ''
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? ''
      expect(scriptSrc).toContain("'self'")
      expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval|nonce-|sha256-/)
      expect(csp).toMatch(/default-src 'self'/)
      expect(csp).toMatch(/frame-ancestors 'none'/)
      expect(csp).toMatch(/object-src 'none'/)
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
      expect(response.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
      expect(response.headers.get('X-Frame-Options')).toBe('DENY')
      expect(response.headers.get('Strict-Transport-Security')).toBeNull()
    }
  })

  it('sends HSTS only in production, and a Secure cookie there', async () => {
    const production = t.makeApp({ production: true })
    const response = await production.request('/signin')
    expect(response.headers.get('Strict-Transport-Security')).toMatch(/max-age=\d{7,}/)
    expect(response.headers.get('Set-Cookie')).toMatch(/; Secure/)
  })

  describe('XSRF: an unsafe request that carries the cookie must echo it', () => {
    const body = JSON.stringify({ first_name: 'Xavier', last_name: 'Srf' })
    const send = (headers: Record<string, string>, method = 'POST') =>
      t.request('/api/patients', {
        method,
        token: t.demo.adminToken,
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      })

    it('refuses a missing or different header with 403 and the JSON error shape', async () => {
      const cases: Record<string, string>[] = [
        { Cookie: 'XSRF-TOKEN=abc123' },
        { Cookie: 'XSRF-TOKEN=abc123', 'X-XSRF-TOKEN': 'abc124' },
        { Cookie: 'XSRF-TOKEN=abc123', 'X-XSRF-TOKEN': '' },
        { Cookie: 'XSRF-TOKEN=abc123', 'X-XSRF-TOKEN': 'abc1234' },
      ]
      for (const headers of cases) {
        const response = await send(headers)
        expect(response.status).toBe(403)
        expect(await response.json()).toEqual({
          error: { status: 403, name: 'ForbiddenError', message: XSRF_MESSAGE, details: {} },
        })
      }
    })

    it('lets the matching pair through, and requests without the cookie (API clients)', async () => {
      expect((await send({ Cookie: 'XSRF-TOKEN=abc123', 'X-XSRF-TOKEN': 'abc123' })).status).toBe(
        201,
      )
      expect((await send({})).status).toBe(201)
    })

    it('checks public unsafe calls too, and never safe ones', async () => {
      const forgot = await t.request('/api/auth/forgot-password', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: 'XSRF-TOKEN=abc' },
        body: JSON.stringify({ email: 'a@example.com', url: 'http://localhost:3000/reset' }),
      })
      expect(forgot.status).toBe(403)
      const read = await t.request('/api/users', {
        token: t.demo.adminToken,
        headers: { Cookie: 'XSRF-TOKEN=abc' },
      })
      expect(read.status).toBe(200)
    })
  })
})

describe('the client address', () => {
  let server: Server
  let base: string
  const app = new Hono()
  app.get('/direct', (c) => c.text(clientIp(c)))
  app.get('/proxied', (c) => c.text(clientIp(c, { trustProxy: true })))

  beforeAll(async () => {
    server = createServer(getRequestListener(app.fetch))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('comes from the socket; X-Forwarded-For is ignored unless TRUST_PROXY', async () => {
    const spoof = { 'X-Forwarded-For': '203.0.113.9' }
    expect(await (await fetch(`${base}/direct`, { headers: spoof })).text()).toBe('127.0.0.1')
    expect(await (await fetch(`${base}/direct`)).text()).toBe('127.0.0.1')
  })

  it("with TRUST_PROXY, is the proxy's last entry, never what the client wrote before it", async () => {
    const through = { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' }
    expect(await (await fetch(`${base}/proxied`, { headers: through })).text()).toBe('203.0.113.9')
    const junk = { 'X-Forwarded-For': 'not an address' }
    expect(await (await fetch(`${base}/proxied`, { headers: junk })).text()).toBe('127.0.0.1')
    expect(await (await fetch(`${base}/proxied`)).text()).toBe('127.0.0.1')
  })
})

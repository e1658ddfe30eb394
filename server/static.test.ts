import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'
import { serveSpa } from './static.ts'

const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div>${' '.repeat(2048)}</body></html>`
const SCRIPT = `console.log(${JSON.stringify('glow '.repeat(2000))})`

let dist: string
beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), 'glow-dist-'))
  mkdirSync(join(dist, 'assets'))
  writeFileSync(join(dist, 'index.html'), INDEX)
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), SCRIPT)
  writeFileSync(join(dist, 'assets', 'logo-def456.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
})
afterAll(() => rmSync(dist, { recursive: true, force: true }))

describe('serveSpa', () => {
  const app = () => new Hono().use(serveSpa(dist)).all('*', (c) => c.text('next', 404))

  it('serves hashed assets as immutable for a year, with the right type', async () => {
    const response = await app().request('/assets/index-abc123.js')
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(response.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    expect(await response.text()).toBe(SCRIPT)
  })

  it('serves index.html with no-cache at / and as the history fallback for any other path', async () => {
    for (const path of ['/', '/index.html', '/dashboard', '/signup/personnel/abc', '/reset=XYZ']) {
      const response = await app().request(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('Cache-Control')).toBe('no-cache')
      expect(await response.text()).toBe(INDEX)
    }
  })

  it('leaves /api, other methods and missing hashed assets to the next handler', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['GET', '/api'],
      ['POST', '/dashboard'],
      ['GET', '/assets/index-missing.js'],
    ] as const) {
      const response = await app().request(path, { method })
      expect(await response.text(), `${method} ${path}`).toBe('next')
    }
  })

  it('never reads outside dist', async () => {
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
    ]) {
      const response = await app().request(path)
      const text = await response.text()
      expect(text).not.toContain('"name"')
    }
  })

  it('sends gzip when accepted, brotli when preferred, identity otherwise; always Vary', async () => {
    const gzip = await app().request('/assets/index-abc123.js', {
      headers: { 'Accept-Encoding': 'gzip, deflate' },
    })
    expect(gzip.headers.get('Content-Encoding')).toBe('gzip')
    expect(gzip.headers.get('Vary')).toBe('Accept-Encoding')
    const zipped = Buffer.from(await gzip.arrayBuffer())
    expect(zipped.length).toBeLessThan(SCRIPT.length)
    expect(gunzipSync(zipped).toString()).toBe(SCRIPT)

    const br = await app().request('/dashboard', { headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(br.headers.get('Content-Encoding')).toBe('br')
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(INDEX)

    const refused = await app().request('/assets/index-abc123.js', {
      headers: { 'Accept-Encoding': 'br;q=0, gzip;q=0' },
    })
    expect(refused.headers.get('Content-Encoding')).toBeNull()
    expect(refused.headers.get('Vary')).toBe('Accept-Encoding')
    const plain = await app().request('/assets/index-abc123.js')
    expect(plain.headers.get('Content-Encoding')).toBeNull()
    expect(await plain.text()).toBe(SCRIPT)
  })

  it('does not compress binary files', async () => {
    const response = await app().request('/assets/logo-def456.png', {
      headers: { 'Accept-Encoding': 'gzip' },
    })
    expect(response.headers.get('Content-Type')).toBe('image/png')
    expect(response.headers.get('Content-Encoding')).toBeNull()
  })

  it('answers a matching If-None-Match with 304 and HEAD without a body', async () => {
    const first = await app().request('/favicon.svg')
    const etag = first.headers.get('ETag')
    expect(etag).toMatch(/^W\/".+"$/)
    const cached = await app().request('/favicon.svg', { headers: { 'If-None-Match': etag ?? '' } })
    expect(cached.status).toBe(304)
    const head = await app().request('/assets/index-abc123.js', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('Content-Length')).toBe(String(SCRIPT.length))
    expect(await head.text()).toBe('')
  })

  it("links a page's own chunks and style sheets in the index.html it answers for that page", async () => {
    const withRoutes = mkdtempSync(join(tmpdir(), 'glow-dist-routes-'))
    try {
      writeFileSync(join(withRoutes, 'index.html'), INDEX)
      writeFileSync(
        join(withRoutes, 'route-preloads.json'),
        JSON.stringify({
          routes: [
            { pattern: '^/signin/?$', files: ['/assets/signin-1.js', '/assets/signin-2.css'] },
            { pattern: '^/unsubscribe/[^/]+/?$', files: ['/assets/unsubscribe-3.js'] },
            // Nothing but /assets/ file names ever reaches the HTML.
            { pattern: '^/evil/?$', files: ['"><script>alert(1)</script>', 'https://x.test/a.js'] },
          ],
        }),
      )
      const spa = new Hono().use(serveSpa(withRoutes)).all('*', (c) => c.text('next', 404))
      const signin = await (await spa.request('/signin')).text()
      const head = signin.slice(0, signin.indexOf('</head>'))
      expect(head).toContain('<link rel="modulepreload" crossorigin href="/assets/signin-1.js">')
      expect(head).toContain('<link rel="stylesheet" crossorigin href="/assets/signin-2.css">')
      expect(signin.replace(/\s*<link[^>]+>/g, '')).toBe(INDEX)
      const unsubscribe = await (await spa.request('/unsubscribe/abc')).text()
      expect(unsubscribe).toContain('href="/assets/unsubscribe-3.js"')
      expect(unsubscribe).not.toContain('signin-1')
      for (const path of ['/dashboard', '/signinx', '/unsubscribe/abc/more', '/evil', '/']) {
        expect(await (await spa.request(path)).text(), path).toBe(INDEX)
      }
      // The list itself is for the server, not for the browser.
      expect(await (await spa.request('/route-preloads.json')).text()).toBe(INDEX)
      const etags = new Set(
        await Promise.all(
          ['/signin', '/unsubscribe/abc', '/dashboard'].map(async (path) =>
            (await spa.request(path)).headers.get('ETag'),
          ),
        ),
      )
      expect(etags.size).toBe(3)
    } finally {
      rmSync(withRoutes, { recursive: true, force: true })
    }
  })

  it('answers a prerendered page with its markup in #root and its guard script, for its plain address only', async () => {
    const withPages = mkdtempSync(join(tmpdir(), 'glow-dist-prerendered-'))
    try {
      mkdirSync(join(withPages, 'assets'))
      writeFileSync(join(withPages, 'index.html'), INDEX)
      writeFileSync(join(withPages, 'assets', 'prerender-guard-abc.js'), '// guard')
      writeFileSync(
        join(withPages, 'route-preloads.json'),
        JSON.stringify({ routes: [{ pattern: '^/signin/?$', files: ['/assets/signin-1.js'] }] }),
      )
      writeFileSync(
        join(withPages, 'prerendered.json'),
        JSON.stringify({
          guard: '/assets/prerender-guard-abc.js',
          pages: [
            { path: '/signin', html: '<h1>Sign In</h1>' },
            // Only plain paths are pages; anything else is left out.
            { path: '/x"><script>', html: '<h1>Evil</h1>' },
          ],
        }),
      )
      const spa = new Hono().use(serveSpa(withPages)).all('*', (c) => c.text('next', 404))
      const signin = await (await spa.request('/signin')).text()
      expect(signin).toContain('<div id="root" data-prerendered="/signin"><h1>Sign In</h1></div>')
      const head = signin.slice(0, signin.indexOf('</head>'))
      expect(head).toContain('<script src="/assets/prerender-guard-abc.js"></script>')
      // The guard runs before the page's own files are even asked for.
      expect(head.indexOf('prerender-guard')).toBeLessThan(head.indexOf('signin-1.js'))
      // The page paints without its scripts: they wait in a template that the guard empties into
      // the head once the page has painted, so the paint waits for none of them.
      const later = head.slice(head.indexOf('<template id="glow-after-paint">'))
      expect(later).toContain('<link rel="modulepreload" crossorigin href="/assets/signin-1.js">')
      expect(later).toContain('<script type="module" src="/assets/index-abc123.js"></script>')
      expect(head.match(/<script type="module"/g)).toHaveLength(1)
      // With a query string (a reset code, say) the page is the browser's to render.
      const withCode = await (await spa.request('/signin?code=abc')).text()
      expect(withCode).toContain('<div id="root"></div>')
      expect(withCode).toContain('signin-1.js')
      expect(withCode).not.toContain('prerender-guard')
      expect(withCode).not.toContain('<template')
      expect(await (await spa.request('/dashboard')).text()).toBe(INDEX)
      expect(await (await spa.request('/prerendered.json')).text()).toBe(INDEX)
    } finally {
      rmSync(withPages, { recursive: true, force: true })
    }
  })

  it('announces the run-time hCaptcha site key in the head of every page it answers, escaped', async () => {
    const withPages = mkdtempSync(join(tmpdir(), 'glow-dist-settings-'))
    try {
      mkdirSync(join(withPages, 'assets'))
      writeFileSync(join(withPages, 'index.html'), INDEX)
      writeFileSync(join(withPages, 'assets', 'prerender-guard-abc.js'), '// guard')
      writeFileSync(
        join(withPages, 'prerendered.json'),
        JSON.stringify({
          guard: '/assets/prerender-guard-abc.js',
          pages: [{ path: '/signin', html: '<h1>Sign In</h1>' }],
        }),
      )
      const spa = (siteKey: string | undefined) =>
        new Hono()
          .use(serveSpa(withPages, { settings: { 'hcaptcha-sitekey': siteKey } }))
          .all('*', (c) => c.text('next', 404))
      const tag = '<meta name="glow:hcaptcha-sitekey" content="key-&quot;&lt;1">'
      for (const path of ['/', '/signin', '/dashboard', '/index.html']) {
        const page = await (await spa('key-"<1').request(path)).text()
        expect(page.slice(0, page.indexOf('</head>')), path).toContain(tag)
      }
      // Unset, the pages are the build's own.
      expect(await (await spa(undefined).request('/dashboard')).text()).toBe(INDEX)
    } finally {
      rmSync(withPages, { recursive: true, force: true })
    }
  })

  it('never answers prerendered markup whose guard script is missing', async () => {
    const noGuard = mkdtempSync(join(tmpdir(), 'glow-dist-no-guard-'))
    try {
      writeFileSync(join(noGuard, 'index.html'), INDEX)
      writeFileSync(
        join(noGuard, 'prerendered.json'),
        JSON.stringify({
          guard: '/assets/prerender-guard-gone.js',
          pages: [{ path: '/signin', html: '<h1>Sign In</h1>' }],
        }),
      )
      const spa = new Hono().use(serveSpa(noGuard)).all('*', (c) => c.text('next', 404))
      expect(await (await spa.request('/signin')).text()).toBe(INDEX)
    } finally {
      rmSync(noGuard, { recursive: true, force: true })
    }
  })

  it('refuses to start without an index.html', () => {
    const empty = mkdtempSync(join(tmpdir(), 'glow-empty-'))
    try {
      expect(() => serveSpa(empty)).toThrow(/no index\.html/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

describe.each(httpBackends())('the SPA inside the app on $name', (backend) => {
  const t = useTestApp(backend, () => ({ distDir: dist }))

  it('serves the SPA with the security headers and keeps /api answering JSON', async () => {
    const page = await t.request('/patients', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(page.status).toBe(200)
    expect(page.headers.get('Content-Encoding')).toBe('gzip')
    expect(page.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('Set-Cookie')).toMatch(/^XSRF-TOKEN=/)
    const asset = await t.request('/assets/index-abc123.js')
    expect(asset.headers.get('Set-Cookie')).toBeNull()
    const missing = await t.request('/api/unknown')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { status: 404 } })
    expect((await t.request('/api/health')).status).toBe(200)
  })
})

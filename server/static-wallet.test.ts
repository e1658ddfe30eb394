import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveSpa, type WalletPracticeLookup } from './static.ts'

const INDEX =
  '<!doctype html><html><head><title>Glow Rewards</title></head><body>staff</body></html>'
const WALLET =
  '<!doctype html><html><head><title>Your wallet</title><script type="module" src="/assets/wallet-abc.js"></script></head><body><div id="root" data-wallet-prerendered><p>Your points at %GLOW_PRACTICE_NAME%.</p></div></body></html>'

let dist: string
beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), 'glow-wallet-dist-'))
  mkdirSync(join(dist, 'assets'))
  mkdirSync(join(dist, 'wallet'))
  writeFileSync(join(dist, 'index.html'), INDEX)
  writeFileSync(join(dist, 'wallet.html'), WALLET)
  writeFileSync(join(dist, 'assets', 'wallet-abc.js'), 'console.log(1)')
  writeFileSync(join(dist, 'wallet', 'sw.js'), 'self.addEventListener("fetch", () => {})')
})
afterAll(() => rmSync(dist, { recursive: true, force: true }))

const lookup: WalletPracticeLookup = async (id) =>
  id === 3 ? { name: 'Radiance & "Glow" <Clinic>' } : null

const app = () =>
  new Hono().use(serveSpa(dist, { walletPractice: lookup })).all('*', (c) => c.text('next', 404))

describe('the patient wallet, served', () => {
  it("answers /wallet/{practiceId} and every path below it with the wallet's own page, named for the practice, revalidated", async () => {
    for (const path of ['/wallet/3', '/wallet/3/', '/wallet/3/offers']) {
      const response = await app().request(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('Cache-Control')).toBe('no-cache')
      const html = await response.text()
      expect(html).not.toContain('staff')
      expect(html).toContain('<script type="module" src="/assets/wallet-abc.js">')
      expect(html).toContain('<title>Radiance &amp; "Glow" &lt;Clinic&gt; · Your wallet</title>')
      expect(html).toContain(
        '<meta name="glow:practice-name" content="Radiance &amp; &quot;Glow&quot; &lt;Clinic>">',
      )
      expect(html).toContain('<link rel="manifest" href="/wallet/3/manifest.webmanifest">')
      // The prerendered sign-in names the practice.
      expect(html).toContain('<p>Your points at Radiance &amp; "Glow" &lt;Clinic&gt;.</p>')
    }
  })

  it('answers 404 with the page saying the link is not valid for a practice that does not exist', async () => {
    const response = await app().request('/wallet/99')
    expect(response.status).toBe(404)
    const html = await response.text()
    expect(html).toContain('<meta name="glow:practice" content="missing">')
    expect(html).not.toContain('rel="manifest"')
    expect(await (await app().request('/wallet/99/manifest.webmanifest')).text()).toBe('next')
  })

  it("answers an address that names no practice with the wallet's page saying so, not the staff app", async () => {
    for (const path of ['/wallet', '/wallet/', '/wallet/offers']) {
      const response = await app().request(path)
      expect(response.status, path).toBe(404)
      const html = await response.text()
      expect(html, path).not.toContain('staff')
      expect(html, path).toContain('<meta name="glow:practice" content="missing">')
      expect(html, path).toContain('<script type="module" src="/assets/wallet-abc.js">')
    }
  })

  it("answers the practice's manifest: its name, started at its wallet, standalone, with the icons", async () => {
    const response = await app().request('/wallet/3/manifest.webmanifest')
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/manifest+json; charset=utf-8')
    const manifest = (await response.json()) as Record<string, unknown>
    expect(manifest).toMatchObject({
      name: 'Radiance & "Glow" <Clinic> wallet',
      start_url: '/wallet/3',
      scope: '/wallet/',
      display: 'standalone',
    })
    expect(manifest.icons).toEqual([
      expect.objectContaining({ sizes: '192x192', purpose: 'any' }),
      expect.objectContaining({ sizes: '512x512', purpose: 'any' }),
      expect.objectContaining({ sizes: '512x512', purpose: 'maskable' }),
    ])
  })

  it('redirects the short link /w/{practiceId} to the wallet', async () => {
    for (const path of ['/w/3', '/w/3/']) {
      const response = await app().request(path)
      expect(response.status, path).toBe(302)
      expect(response.headers.get('Location')).toBe('/wallet/3')
    }
  })

  it("serves the wallet's own files as files (the service worker, revalidated), and never wallet.html by name", async () => {
    const worker = await app().request('/wallet/sw.js')
    expect(worker.status).toBe(200)
    expect(worker.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    expect(worker.headers.get('Cache-Control')).toBe('no-cache')
    expect(await (await app().request('/wallet.html')).text()).toBe(INDEX)
  })
})

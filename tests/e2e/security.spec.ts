import { readFileSync } from 'node:fs'
import type { APIRequestContext, Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import {
  type ApiSession,
  apiSignIn,
  expect,
  openAs,
  openSignedIn,
  test,
  waitForMessage,
} from './support/fixtures.ts'

/** Collects CSP violations the page reports, from the DOM event and from the console. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  const fromConsole: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(message.text())) {
      fromConsole.push(message.text())
    }
  })
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { __csp: string[] }).__csp = seen
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  return async () => [
    ...fromConsole,
    ...(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])),
  ]
}

/** A new staff member of the demo practice, registered by invitation through the API. */
async function newStaffMember(request: APIRequestContext): Promise<ApiSession> {
  const admin = await apiSignIn(request)
  const suffix = Date.now().toString().slice(-7)
  const email = `idle.${suffix}@example.com`
  const phone = nanpTestPhone(`557${suffix}`)
  const password = 'Idle-Tester-2026'
  const invited = await request.post('/api/personnel', {
    headers: { Authorization: `Bearer ${admin.jwt}` },
    data: { email, first_name: 'Ida', last_name: 'Idle', position: 'Staff' },
  })
  expect(invited.status(), await invited.text()).toBe(201)
  const { id } = (await invited.json()) as { id: string }
  const asked = new Date()
  const sent = await request.post('/api/auth/get-code', {
    data: { email, phone, countryCode: '+1' },
  })
  expect(sent.status()).toBe(200)
  const { authyId } = (await sent.json()) as { authyId: string }
  const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: asked })
  const verified = await request.post('/api/auth/verify-code', {
    data: { authyId, phone, code: sms.code },
  })
  expect(verified.status()).toBe(200)
  const registered = await request.post('/api/auth/personnel/register', {
    data: {
      id,
      title: '',
      first_name: 'Ida',
      last_name: 'Idle',
      cell_phone: phone,
      country_code: '+1',
      password,
      password_confirm: password,
      authyId,
    },
  })
  expect(registered.status(), await registered.text()).toBe(200)
  return apiSignIn(request, email, password)
}

test.describe('security in the browser', () => {
  test('the built index.html has no inline script and loads every script from its own origin', () => {
    const html = readFileSync('dist/index.html', 'utf8')
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes = '', body = ''] of scripts) {
      expect(body.trim(), 'inline script body').toBe('')
      expect(attributes).toMatch(/\bsrc="\/assets\/[\w.-]+\.js"/)
    }
    expect(html).not.toMatch(/\son[a-z]+=/i)
    expect(html).not.toMatch(/javascript:/i)
  })

  test('renders under the CSP in Chromium with no violations, Mantine styles applied', async ({
    page,
    request,
  }) => {
    const violations = await watchCsp(page)
    const response = await page.goto('/signin')
    const headers = response?.headers() ?? {}
    expect(headers['content-security-policy']).toMatch(/script-src 'self'/)
    expect(headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/)
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
    expect(headers['x-content-type-options']).toBe('nosniff')
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
    // NODE_ENV is not production here: no HSTS for a plain-HTTP test server.
    expect(headers['strict-transport-security']).toBeUndefined()

    const signIn = page.getByRole('button', { name: 'Sign In' })
    await expect(signIn).toBeVisible()
    // Mantine's run-time <style> tags work: the themed button is filled, not the browser default.
    const background = await signIn.evaluate((element) => getComputedStyle(element).backgroundColor)
    expect(background).not.toMatch(/^rgba\(0, 0, 0, 0\)$|^transparent$/)

    await page.goto('/signup')
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
    await openSignedIn(page, request, '/dashboard')
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    expect(await violations()).toEqual([])
  })

  test('the SPA echoes the XSRF cookie on unsafe calls; a browser call without it is refused', async ({
    page,
  }) => {
    await page.goto('/signin')
    const cookie = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN')
    expect(cookie?.value).toMatch(/^[\w-]{43}$/)
    expect(cookie?.httpOnly).toBe(false)
    expect(cookie?.sameSite).toBe('Strict')

    // The SPA's own call carries the pair (a forgot-password request sends no e-mail for this address).
    await page.getByRole('button', { name: 'Forgot Password' }).click()
    // Clicked before the app has taken the prerendered page over, it is clicked again once it has.
    await expect(page.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
    await page.getByLabel(/^Email/).fill('nobody.xsrf@example.com')
    const [sent] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/api/auth/forgot-password')),
      page.getByRole('button', { name: 'Reset' }).click(),
    ])
    expect(sent.headers()['x-xsrf-token']).toBe(cookie?.value)
    await expect(
      page.getByRole('heading', { level: 1, name: 'We have sent the link to your email' }),
    ).toBeVisible()

    // The same call made by other script in the page, without the header: 403.
    const forged = await page.evaluate(async () => {
      const response = await fetch('/api/auth/forgot-password', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'nobody.xsrf@example.com', url: `${location.origin}/reset` }),
      })
      return { status: response.status, body: await response.json() }
    })
    expect(forged.status).toBe(403)
    expect(forged.body.error.name).toBe('ForbiddenError')
  })

  test('signs out after 15 idle minutes with a one-minute warning; the token stops working', async ({
    page,
    request,
  }) => {
    const session = await newStaffMember(request)
    await page.clock.install()
    await openAs(page, session, '/settings')
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible()

    await page.clock.fastForward('13:00')
    await expect(page.getByRole('dialog')).toHaveCount(0)
    await page.clock.fastForward('01:00')
    const dialog = page.getByRole('dialog', { name: 'Are you still there?' })
    await expect(dialog).toBeVisible()
    await expect(dialog).toContainText('You will be signed out in 60 seconds')
    await page.getByRole('button', { name: 'Stay signed in' }).click()
    await expect(dialog).toBeHidden()

    await page.clock.fastForward('14:00')
    await expect(dialog).toBeVisible()
    const [logout] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/auth/logout')),
      page.clock.fastForward('01:01'),
    ])
    expect(logout.status()).toBe(200)
    await expect(page).toHaveURL(/\/signin$/)
    expect(
      await page.evaluate(() => [
        localStorage.getItem('currentUser'),
        sessionStorage.getItem('currentUser'),
      ]),
    ).toEqual([null, null])
    const after = await request.get('/api/users-permissions/init', {
      headers: { Authorization: `Bearer ${session.jwt}` },
    })
    expect(after.status()).toBe(401)
  })
})

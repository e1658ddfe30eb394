import type { APIRequestContext, Page } from '@playwright/test'
import {
  axeViolations,
  DEMO,
  expect,
  interactive,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import { shot } from './support/screens.ts'

// The seeded staff member changes its password here and gets it back at the end, so other
// journeys can keep using the seed's credentials.
const STAFF = { email: 'staff@example.com', password: 'StaffPass123', name: 'Sam Rivera' }
const NEW_PASSWORD = 'Reset-Pass-2026'
const VIEWPORTS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel(/^Email/).fill(email)
  await page.getByLabel(/^Password/).fill(password)
}

async function storedUser(page: Page) {
  return page.evaluate(() => ({
    local: window.localStorage.getItem('currentUser'),
    session: window.sessionStorage.getItem('currentUser'),
  }))
}

/** Gives the staff member its seed password back through the real reset flow of the API. */
async function restoreStaffPassword(request: APIRequestContext, baseURL: string) {
  const after = new Date()
  const asked = await request.post('/api/auth/forgot-password', {
    data: { email: STAFF.email, url: new URL('/reset', baseURL).href },
  })
  expect(asked.status()).toBe(200)
  const mail = await waitForMessage(request, 'email', STAFF.email, { after })
  const code = new URL(mail.link ?? '').searchParams.get('code')
  const reset = await request.post('/api/auth/reset-password', {
    data: { password: STAFF.password, passwordConfirmation: STAFF.password, code },
  })
  expect(reset.status()).toBe(200)
}

test.describe('sign-in screen', () => {
  test('demo sign-in with Remember me lands on the dashboard and keeps the user in localStorage', async ({
    page,
  }) => {
    await page.goto('/signin')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
    await fillSignIn(page, DEMO.email, DEMO.password)
    await page.getByRole('checkbox', { name: 'Remember me' }).check()
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(/\/dashboard$/)
    await expect(page.getByText('Hello, Demo Admin')).toBeVisible()
    const stored = await storedUser(page)
    expect(stored.session).toBeNull()
    expect(JSON.parse(stored.local ?? 'null')).toMatchObject({
      user: { email: DEMO.email, first_name: 'Demo', last_name: 'Admin' },
    })

    // Signed in, /signin goes straight back to the dashboard.
    await page.goto('/signin')
    await expect(page).toHaveURL(/\/dashboard$/)

    await page.goto('/logout')
    await expect(page).toHaveURL(/\/signin$/)
    expect(await storedUser(page)).toEqual({ local: null, session: null })
  })

  test('without Remember me the user is kept in sessionStorage only', async ({ page }) => {
    await page.goto('/signin')
    await fillSignIn(page, DEMO.email, DEMO.password)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByText('Hello, Demo Admin')).toBeVisible()
    const stored = await storedUser(page)
    expect(stored.local).toBeNull()
    expect(JSON.parse(stored.session ?? 'null')).toMatchObject({ user: { email: DEMO.email } })
  })

  test('a wrong password shows the message and stays on sign in', async ({ page }) => {
    await page.goto('/signin')
    await fillSignIn(page, DEMO.email, 'not-the-password')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByRole('alert')).toHaveText('Invalid Email or Password')
    await expect(page).toHaveURL(/\/signin$/)
    expect(await storedUser(page)).toEqual({ local: null, session: null })
    expect(await axeViolations(page)).toEqual([])
  })

  test('forgot password → e-mail in the outbox → link → reset → dashboard; the same link again is outdated', async ({
    page,
    request,
    baseURL,
  }) => {
    try {
      await page.goto('/signin')
      // A click on a plain button of the prerendered page before the app has taken it over does
      // nothing (only a sent form is kept for the app): wait for the app, as in openWizard.
      await interactive(page)
      await page.getByRole('button', { name: 'Forgot Password' }).click()
      await expect(page.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
      const asked = new Date()
      await page.getByLabel(/^Email/).fill(STAFF.email)
      await page.getByRole('button', { name: 'Reset' }).click()
      await expect(
        page.getByRole('heading', { level: 1, name: 'We have sent the link to your email' }),
      ).toBeVisible()
      await expect(
        page.getByText('Cool! Password recovery instruction has been sent to your email.'),
      ).toBeVisible()
      // example.com has no known webmail: no Check email (usability.spec.ts has the known ones).
      await expect(page.getByRole('link', { name: 'Check email' })).toHaveCount(0)

      const mail = await waitForMessage(request, 'email', STAFF.email, { after: asked })
      const link = new URL(mail.link ?? '')
      expect(link.pathname).toBe('/reset')
      expect(link.origin).toBe(new URL(page.url()).origin)

      await page.goto(link.href)
      await expect(
        page.getByRole('heading', { level: 1, name: 'Please enter a new password!' }),
      ).toBeVisible()
      await page.getByLabel(/^New password/).fill(NEW_PASSWORD)
      await page.getByLabel(/^Confirm password/).fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Show new password' }).click()
      await expect(page.getByLabel(/^New password/)).toHaveAttribute('type', 'text')
      await page.getByRole('button', { name: 'Reset and Sign In' }).click()
      await expect(page).toHaveURL(/\/dashboard$/)
      await expect(page.getByText(`Hello, ${STAFF.name}`)).toBeVisible()

      // The same link again: sign-in with the notice for 3 seconds.
      await page.goto(link.href)
      await expect(page).toHaveURL(/\/signin$/)
      await expect(page.getByRole('alert')).toHaveText('Password Reset link is outdated!')
      await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
      await expect(page.getByText('Password Reset link is outdated!')).toHaveCount(0)

      // A browser that never used it asks the server when the link opens: straight to sign-in
      // with the notice for 3 seconds, the form never shown.
      const fresh = await page.context().browser()?.newContext()
      if (!fresh) throw new Error('no browser')
      const other = await fresh.newPage()
      const statusAsked = other.waitForResponse('**/api/auth/reset-code-status')
      await other.goto(link.href)
      expect(await (await statusAsked).json()).toEqual({ valid: false })
      await expect(other).toHaveURL(/\/signin$/)
      await expect(other.getByRole('alert')).toHaveText('Password Reset link is outdated!')
      await expect(other.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
      await expect(other.getByLabel(/^New password/)).toHaveCount(0)
      await expect(other.getByText('Password Reset link is outdated!')).toHaveCount(0)
      await fresh.close()

      // The new password works, the old one does not.
      await page.goto('/logout')
      await expect(page).toHaveURL(/\/signin$/)
      await fillSignIn(page, STAFF.email, STAFF.password)
      await page.getByRole('button', { name: 'Sign In' }).click()
      await expect(page.getByRole('alert')).toHaveText('Invalid Email or Password')
      await fillSignIn(page, STAFF.email, NEW_PASSWORD)
      await page.getByRole('button', { name: 'Sign In' }).click()
      await expect(page.getByText(`Hello, ${STAFF.name}`)).toBeVisible()
      await page.goto('/logout')
      await expect(page).toHaveURL(/\/signin$/)
      expect(await storedUser(page)).toEqual({ local: null, session: null })
    } finally {
      await restoreStaffPassword(request, baseURL ?? '')
    }
  })

  test('the three views and the error state fit desktop and phone, axe clean (and their pictures for npm run screenshots)', async ({
    page,
    request,
    baseURL,
  }) => {
    // A reset link for the screenshots of the reset view; it is never submitted.
    const asked = new Date()
    const response = await request.post('/api/auth/forgot-password', {
      data: { email: DEMO.email, url: new URL('/reset', baseURL).href },
    })
    expect(response.status()).toBe(200)
    const mail = await waitForMessage(request, 'email', DEMO.email, { after: asked })
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height })
      await page.goto('/signin')
      await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
      await shot(page, 'sign-in', `sign-in-signin-${viewport.name}.png`)
      const noSideScroll = await page.evaluate(
        () => document.documentElement.scrollWidth <= window.innerWidth,
      )
      expect(noSideScroll, `no horizontal scrolling at ${viewport.width}px`).toBe(true)

      await page.getByRole('button', { name: 'Sign In' }).click()
      await fillSignIn(page, DEMO.email, 'wrong-password')
      await page.getByRole('button', { name: 'Sign In' }).click()
      await expect(page.getByRole('alert')).toHaveText('Invalid Email or Password')
      await expect(page.getByRole('button', { name: 'Sign In' })).toBeEnabled()
      await shot(page, 'sign-in', `sign-in-error-${viewport.name}.png`)

      await page.getByRole('button', { name: 'Forgot Password' }).click()
      await expect(page.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
      await shot(page, 'sign-in', `sign-in-forgot-${viewport.name}.png`)

      await page.goto(mail.link ?? '')
      await expect(
        page.getByRole('heading', { level: 1, name: 'Please enter a new password!' }),
      ).toBeVisible()
      await page.getByRole('button', { name: 'Reset and Sign In' }).click()
      await expect(page.getByText('Please fill password field')).toBeVisible()
      await shot(page, 'sign-in', `sign-in-reset-${viewport.name}.png`)
      expect(await axeViolations(page)).toEqual([])
    }
  })
})

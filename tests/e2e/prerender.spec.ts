/**
 * Prerendered pages (src/lib/prerender-contract.ts): the server answers /signin,
 * /signup and /thankyou with their markup, the browser paints it before any script has run, and
 * the app hydrates it without a mismatch. A browser whose storage changes the first render gets
 * the right page instead, and what a visitor types before the scripts arrive is kept.
 * The pages a patient opens from an e-mail are the server's own documents (server/routes/
 * patient-pages.ts): /unsubscribe/:id paints its text and a waiting status line from its HTML,
 * without the app, and its one small script shows the outcome.
 */
import type { Page } from '@playwright/test'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { apiSignIn, DEMO, expect, storeSession, test } from './support/fixtures.ts'

const PAGES = [
  { path: '/signin', heading: 'Sign In' },
  { path: '/signup', heading: 'Sign Up' },
  { path: '/thankyou', heading: 'Congratulations!' },
] as const

/** Everything the page logs as an error or warning (React reports hydration mismatches there). */
function collectConsoleProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text())
  })
  return problems
}

/**
 * Holds back the app's scripts, as a slow connection does, until the returned function is
 * called. The guard script is not held: it runs in the head, before the markup is parsed.
 */
async function holdScripts(page: Page): Promise<() => void> {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route(/\/assets\/(?!prerender-guard-).+\.js$/, async (route) => {
    await released
    await route.continue()
  })
  return release
}

// Each test here stands alone (its own data, its own session), so the two workers share them out
// one by one instead of one worker taking the whole file: the longest files of the suite would
// otherwise end it with one worker idle (decision record 013).
test.describe.configure({ mode: 'parallel' })

test.describe('prerendered pages', () => {
  for (const { path, heading } of PAGES) {
    test(`${path} arrives as markup and is hydrated without a mismatch`, async ({
      page,
      request,
    }) => {
      const html = await (await request.get(path)).text()
      expect(html).toContain(`<div id="root" data-prerendered="${path}">`)
      expect(html).toContain(`>${heading}</h1>`)
      expect(html).toMatch(/<script src="\/assets\/prerender-guard-[\w-]+\.js"><\/script>/)

      const problems = collectConsoleProblems(page)
      await page.goto(path)
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
      await page.waitForLoadState('networkidle')
      expect(problems).toEqual([])
    })
  }

  test('the page paints before its scripts arrive, and what was typed meanwhile is kept', async ({
    page,
  }) => {
    // Every script is held back until the visitor has typed.
    const release = await holdScripts(page)
    const problems = collectConsoleProblems(page)
    await page.goto('/signin', { waitUntil: 'commit' })
    const email = page.getByRole('textbox', { name: /^Email/ })
    await expect(email).toBeVisible()
    await email.fill(DEMO.email)
    release()
    await page.waitForLoadState('networkidle')

    // Hydrated: the form now answers, and the e-mail typed before is still there and is the
    // form's: with the password typed now, Sign In signs in.
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await expect(page.getByText(AUTH_MESSAGES.passwordRequired)).toBeVisible()
    await expect(email).toHaveValue(DEMO.email)
    await page.getByLabel(/^Password/).fill(DEMO.password)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await expect(page).toHaveURL(/\/dashboard$/)
    expect(problems).toEqual([])
  })

  test('Sign In clicked before the scripts arrive signs in once they have, and the browser never sends the form itself', async ({
    page,
  }) => {
    const release = await holdScripts(page)
    const addresses: string[] = []
    page.on('request', (request) => {
      if (request.isNavigationRequest()) addresses.push(request.url())
    })
    await page.goto('/signin', { waitUntil: 'commit' })
    await page.getByRole('textbox', { name: /^Email/ }).fill(DEMO.email)
    await page.getByLabel(/^Password/).fill(DEMO.password)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    release()
    await expect(page).toHaveURL(/\/dashboard$/)
    await expect(page.getByText('Hello, Demo Admin')).toBeVisible()
    expect(addresses.filter((url) => url.includes('?'))).toEqual([])
  })

  test('Forgot Password clicked before the scripts arrive opens its form once they have', async ({
    page,
  }) => {
    const release = await holdScripts(page)
    await page.goto('/signin', { waitUntil: 'commit' })
    await page.getByRole('button', { name: 'Forgot Password' }).click()
    release()
    await expect(page.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Reset', exact: true })).toBeEnabled()
  })

  test("the sign-in screen's machine and the signed-in routes are fetched when needed, not with the page", async ({
    page,
  }) => {
    const scripts: string[] = []
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname)
    })
    const later = /\/assets\/(sign-in-screen-actor|xstate|signed-in-area|routeTree)[.\w-]*\.js$/
    await page.goto('/signin')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
    await page.waitForLoadState('networkidle')
    expect(scripts.filter((path) => later.test(path))).toEqual([])

    // The first focus asks for the machine; what is typed meanwhile stays.
    const machine = page.waitForRequest(/\/assets\/sign-in-screen-actor-[\w-]+\.js$/)
    await page.getByRole('textbox', { name: /^Email/ }).fill(DEMO.email)
    await machine
    await page.getByLabel(/^Password/).fill(DEMO.password)
    await page.getByRole('button', { name: 'Sign In', exact: true }).click()
    await expect(page).toHaveURL(/\/dashboard$/)
    await expect(page.getByText('Hello, Demo Admin')).toBeVisible()
    expect(scripts.some((path) => /\/assets\/signed-in-area-[\w-]+\.js$/.test(path))).toBe(true)
  })

  test('a signed-in visitor on /signin goes to the dashboard, not through the sign-in markup', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    await storeSession(page, session)
    const problems = collectConsoleProblems(page)
    await page.goto('/signin')
    await expect(page).toHaveURL(/\/dashboard$/)
    await expect(
      page.getByText(`Hello, ${session.user.first_name} ${session.user.last_name}`),
    ).toBeVisible()
    expect(problems).toEqual([])
  })

  test('a finished personnel registration still shows its banner on the prerendered /signin', async ({
    page,
  }) => {
    await page.goto('/404')
    await page.evaluate(() => window.sessionStorage.setItem('personnelSignedUp', '1'))
    const problems = collectConsoleProblems(page)
    await page.goto('/signin')
    await expect(page.getByText(AUTH_MESSAGES.personnelSignedUp)).toBeVisible()
    await expect(page.getByRole('textbox', { name: /^Email/ })).toBeEditable()
    expect(problems).toEqual([])
  })

  test('/unsubscribe/:id paints its text before its script arrives, without the app, then the outcome', async ({
    page,
    request,
  }) => {
    const html = await (await request.get('/unsubscribe/not-a-link')).text()
    expect(html).not.toContain('id="root"')
    expect(html.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="\/assets\/unsubscribe-page-[\w-]+\.js" defer>$/),
    ])
    const scripts: string[] = []
    page.on('request', (sent) => {
      if (sent.resourceType() === 'script') scripts.push(new URL(sent.url()).pathname)
    })
    const release = await holdScripts(page)
    await page.goto('/unsubscribe/not-a-link', { waitUntil: 'commit' })
    await expect(page.getByRole('heading', { level: 1, name: 'Unsubscribe' })).toBeVisible()
    await expect(page.getByRole('status')).toHaveText('Please wait...')
    // The page's text is there before any script: the largest paint does not wait for the app.
    await expect(page.getByText(/^This link stops the marketing e-mails/)).toBeVisible()
    release()
    await expect(page.getByRole('alert')).toHaveText(
      'This unsubscribe link is not valid or has expired.',
    )
    await expect(page.getByText('Please wait...')).toBeHidden()
    // One script, its own: the app's bundle is never asked for.
    expect(scripts).toEqual([expect.stringMatching(/^\/assets\/unsubscribe-page-/)])
  })

  test('an address with a query string gets the page rendered in the browser', async ({
    request,
  }) => {
    const html = await (await request.get('/signin?code=abc')).text()
    expect(html).toContain('<div id="root"></div>')
    expect(html).not.toContain('prerender-guard')
  })
})

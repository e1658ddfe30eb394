import {
  AREAS,
  apiSignIn,
  axeViolations,
  expect,
  openSignedIn,
  storeSession,
  test,
} from './support/fixtures.ts'

// Each test here stands alone (its own data, its own session), so the two workers share them out
// one by one instead of one worker taking the whole file: the longest files of the suite would
// otherwise end it with one worker idle (decision record 013).
test.describe.configure({ mode: 'parallel' })

test.describe('routing', () => {
  test('an unknown path goes to the not-found page', async ({ page }) => {
    await page.goto('/no/such/page')
    await expect(page).toHaveURL(/\/404$/)
    await expect(page.getByRole('heading', { name: /page not found/i })).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('the empty path goes to the dashboard, which sends a signed-out visitor to sign in', async ({
    page,
  }) => {
    await page.goto('/')
    await expect(page).toHaveURL(/\/signin$/)
  })

  // One browser page for all of them: a page of its own for each only repeated the browser's start.
  test('a signed-out visitor never sees a shell area', async ({ page }) => {
    for (const area of [...AREAS, 'personnel/1']) {
      await test.step(`/${area}`, async () => {
        await page.goto(`/${area}`)
        await expect(page, `/${area} goes to sign in`).toHaveURL(/\/signin$/)
        await expect(page.getByText('Hello, ')).toHaveCount(0)
      })
    }
  })

  test('a signed-in user sees every shell area with the greeting, and logout ends the session', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    await storeSession(page, session, true)
    const name = `${session.user.first_name} ${session.user.last_name}`
    for (const area of AREAS) {
      await page.goto(`/${area}`)
      await expect(page).toHaveURL(new RegExp(`/${area}$`))
      await expect(page.getByText(`Hello, ${name}`)).toBeVisible()
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    }
    // The copyright years end at the current year, from the clock.
    await expect(page.getByText(`2018-${new Date().getFullYear()}`)).toBeVisible()

    await page.goto('/logout')
    await expect(page).toHaveURL(/\/signin$/)
    const stored = await page.evaluate(() => [
      window.localStorage.getItem('currentUser'),
      window.sessionStorage.getItem('currentUser'),
    ])
    expect(stored).toEqual([null, null])
    await page.goto('/dashboard')
    await expect(page).toHaveURL(/\/signin$/)
  })

  test('the avatar menu leads to My Profile and to Logout', async ({ page, request }) => {
    const session = await openSignedIn(page, request, '/dashboard')
    await page
      .getByRole('button', { name: /account menu|hello/i })
      .first()
      .click()
    await page.getByRole('menuitem', { name: 'My Profile' }).click()
    await expect(page).toHaveURL(new RegExp(`/personnel/${session.user.id}$`))
    await page
      .getByRole('button', { name: /account menu|hello/i })
      .first()
      .click()
    await page.getByRole('menuitem', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/signin$/)
  })
})

test.describe('public pages', () => {
  test('the thank-you page congratulates and leads back to sign in', async ({ page }) => {
    await page.goto('/thankyou')
    await expect(page.getByRole('heading', { name: 'Congratulations!' })).toBeVisible()
    await expect(page.getByRole('listitem')).toHaveCount(3)
    await expect(page.getByText(/check your email/i)).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Back to Sign In' }).click()
    await expect(page).toHaveURL(/\/signin$/)
  })

  test('unsubscribing by link stores the choice for that patient only', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    const headers = { Authorization: `Bearer ${session.jwt}` }
    const practiceId = session.practice.id
    const list = await request.get(`/api/patients/all/by-practice/${practiceId}`, { headers })
    expect(list.status()).toBe(200)
    const patients = (await list.json()) as { id: number; email_subscription: boolean }[]
    const subscribed = patients.filter((patient) => patient.email_subscription)
    expect(subscribed.length).toBeGreaterThan(1)
    const [target, ...others] = subscribed
    if (!target) throw new Error('no subscribed patient in the seed')

    // Staff answers never carry the token; the development route reads it.
    const link = await request.get(`/api/dev/patients/${target.id}/unsubscribe-id`)
    const { unsubscribe_id } = (await link.json()) as { unsubscribe_id: string }
    await page.goto(`/unsubscribe/${unsubscribe_id}`)
    await expect(page.getByText('You are successfully unsubscribed!')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])

    const after = await request.get(`/api/patients/${target.id}`, { headers })
    expect(((await after.json()) as { email_subscription: boolean }).email_subscription).toBe(false)
    for (const other of others) {
      const row = await request.get(`/api/patients/${other.id}`, { headers })
      expect(((await row.json()) as { email_subscription: boolean }).email_subscription).toBe(true)
    }
  })

  test('a malformed unsubscribe link shows a clear message, not a blank page', async ({ page }) => {
    await page.goto('/unsubscribe/not-a-real-link')
    await expect(page.getByRole('alert')).toBeVisible()
    await expect(page.getByText('You are successfully unsubscribed!')).toBeHidden()
  })
})

test.describe('API', () => {
  test('bad JSON gets a 400 with the JSON error shape', async ({ request }) => {
    const response = await request.put('/api/patients/unsubscribe/some-link', {
      headers: { 'Content-Type': 'application/json' },
      data: '{"email_subscription": fal',
    })
    expect(response.status()).toBe(400)
    const body = (await response.json()) as { error: { status: number; message: string } }
    expect(body.error.status).toBe(400)
    expect(body.error.message.length).toBeGreaterThan(0)
  })

  test('the SPA is served compressed with long-lived caching on hashed assets', async ({
    request,
  }) => {
    const index = await request.get('/dashboard', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(index.status()).toBe(200)
    const html = await index.text()
    const asset = html.match(/\/assets\/[^"]+\.js/)?.[0]
    expect(asset).toBeTruthy()
    const response = await request.get(asset as string, { headers: { 'Accept-Encoding': 'gzip' } })
    expect(response.headers()['cache-control']).toContain('immutable')
    expect(response.headers()['content-encoding']).toMatch(/gzip|br/)
    expect(index.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(index.headers()['x-content-type-options']).toBe('nosniff')
  })
})

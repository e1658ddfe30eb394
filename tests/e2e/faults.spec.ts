import { DEMO, expect, test } from './support/fixtures.ts'

test.describe('the API down or slow', () => {
  test('sign-in says the server cannot be reached and keeps what was typed', async ({ page }) => {
    await page.goto('/signin')
    await page.getByLabel(/^Email/).fill(DEMO.email)
    await page.getByLabel(/^Password/).fill('Typed-Before-Outage-1')
    await page.route('**/api/**', (route) => route.abort('connectionrefused'))
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByRole('alert')).toHaveText(
      'We could not reach the server. Check your connection and try again.',
    )
    await expect(page).toHaveURL(/\/signin$/)
    await expect(page.getByLabel(/^Email/)).toHaveValue(DEMO.email)
    await expect(page.getByLabel(/^Password/)).toHaveValue('Typed-Before-Outage-1')
    await expect(page.getByRole('button', { name: 'Sign In' })).toBeEnabled()
  })

  test('sign-in gives up on a server that does not answer, with a clear message', async ({
    page,
  }) => {
    await page.clock.install()
    await page.goto('/signin')
    await page.getByLabel(/^Email/).fill(DEMO.email)
    await page.getByLabel(/^Password/).fill('Typed-Before-Outage-1')
    let held = 0
    // The request hangs: never answered, until the page gives up.
    await page.route('**/api/auth/local', () => {
      held++
    })
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect.poll(() => held).toBe(1)
    await page.clock.fastForward('00:16')
    await expect(page.getByRole('alert')).toHaveText(
      'The server is taking too long to answer. Please try again.',
    )
    // An unsafe call is never retried: one sign-in attempt reached the network.
    expect(held).toBe(1)
    await expect(page.getByLabel(/^Email/)).toHaveValue(DEMO.email)
  })

  test('a server error reads as a sentence, never as a page of HTML', async ({ page }) => {
    await page.goto('/signin')
    await page.getByLabel(/^Email/).fill(DEMO.email)
    await page.getByLabel(/^Password/).fill('Typed-Before-Outage-1')
    await page.route('**/api/auth/local', (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html>Bad Gateway</html>' }),
    )
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByRole('alert')).toHaveText(
      'Something went wrong on our side. Please try again.',
    )
    await expect(page.getByLabel(/^Email/)).toHaveValue(DEMO.email)
  })
})

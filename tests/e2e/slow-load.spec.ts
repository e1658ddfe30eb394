import { apiSignIn, expect, storeSession, test } from './support/fixtures.ts'
import { scrollsSideways, shot } from './support/screens.ts'

// A full page load of a signed-in area on a slow server shows the shell (header and
// navigation) with skeletons where the data will be, never a white page until the data arrives.

test('a full page load on a slow server shows the shell with skeletons, then the data', async ({
  page,
  request,
}) => {
  const admin = await apiSignIn(request)
  await storeSession(page, admin)
  // The server holds the dashboard's numbers until the test lets them go.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route('**/api/reports/summary**', async (route) => {
    await held
    await route.continue()
  })

  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto('/dashboard')
  const loading = page.getByRole('status', { name: 'Loading the page' })
  await expect(loading).toBeVisible()
  await expect(page.getByRole('banner').getByRole('img', { name: 'Practice logo' })).toBeVisible()
  await expect(page.getByRole('navigation', { name: 'Main navigation' })).toBeVisible()
  await expect(
    page.getByText(`Hello, ${admin.user.first_name} ${admin.user.last_name}`),
  ).toBeVisible()
  // The data is not there yet: no page heading, no figures.
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toHaveCount(0)
  // Pictures only while the answer is held (the app gives up on an answer after a while).
  await shot(page, 'issue-29', 'slow-load-skeleton-1440.png')
  // At phone width the shell is there too: the header with its menu button.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(page.getByRole('button', { name: 'Open navigation' })).toBeVisible()
  await expect(loading).toBeVisible()
  expect(await scrollsSideways(page)).toBe(false)
  await shot(page, 'issue-29', 'slow-load-skeleton-390.png')

  release()
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
  await expect(loading).toHaveCount(0)
})

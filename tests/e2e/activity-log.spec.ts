import { readFile } from 'node:fs/promises'
import {
  adjustPoints,
  apiSignIn,
  createPatient,
  expect,
  MANAGER,
  openSignedIn,
  STAFF,
  test,
} from './support/fixtures.ts'
import { screens } from './support/screens.ts'

// The activity log in Settings, through the real server.

const shoot = screens('issue-19')

test.describe('the activity log', () => {
  test('an admin reads what a manager did in words, filters it, keeps a bad range as typed and exports it', async ({
    page,
    request,
  }) => {
    const stamp = Date.now().toString().slice(-7)
    const manager = await apiSignIn(request, MANAGER.email, MANAGER.password)
    const patient = await createPatient(request, manager, {
      first_name: 'Logan',
      last_name: `Logged${stamp}`,
    })
    await adjustPoints(request, manager, patient.id, {
      points: 500,
      reason: `birthday ${stamp}`,
      idempotencyKey: `log-${stamp}`,
    })
    const sentence = `Morgan Reyes adjusted Logan Logged${stamp}'s points by +500: birthday ${stamp}.`

    await openSignedIn(page, request, '/settings')
    await page.getByRole('link', { name: 'Open the activity log' }).click()
    await expect(page).toHaveURL(/\/settings\/activity$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Activity log' })).toBeVisible()
    const entry = page.getByRole('link', { name: sentence })
    await expect(entry).toBeVisible()
    await expect(
      page.getByRole('table').getByText(`Morgan Reyes added Logan Logged${stamp}.`),
    ).toBeVisible()

    // Filter by action: the choice goes into the address and survives a reload.
    await page.getByRole('combobox', { name: 'Action' }).click()
    await page.getByRole('option', { name: 'Posted points' }).click()
    await expect(page).toHaveURL(/action=ledger\.posted/)
    await expect(entry).toBeVisible()
    await expect(page.getByText(`Morgan Reyes added Logan Logged${stamp}.`)).toHaveCount(0)
    await page.reload()
    await expect(page.getByRole('combobox', { name: 'Action' })).toHaveValue('Posted points')
    await expect(page.getByRole('link', { name: sentence })).toBeVisible()

    // Filter by person.
    await page.getByRole('combobox', { name: 'Person' }).click()
    await page.getByRole('option', { name: 'Morgan Reyes' }).click()
    await expect(page).toHaveURL(/actor=\d+/)
    await expect(page.getByRole('link', { name: sentence })).toBeVisible()
    await shoot(page, 'activity-log')

    // A range that ends before it starts is said at once, and the dates stay as typed.
    await page.getByLabel('From').fill('2026-12-31')
    await page.getByLabel('To').fill('2026-01-01')
    await expect(page.getByText('The end date is before the start date.')).toBeVisible()
    await expect(page.getByLabel('From')).toHaveValue('2026-12-31')
    await expect(page.getByLabel('To')).toHaveValue('2026-01-01')
    await shoot(page, 'activity-log-bad-range')
    const today = new Date()
    const local = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`
    await page.getByLabel('From').fill(local)
    await page.getByLabel('To').fill(local)
    await expect(page.getByText('The end date is before the start date.')).toHaveCount(0)
    await expect(page).toHaveURL(
      new RegExp(`from=${local}.*to=${local}|to=${local}.*from=${local}`),
    )
    await expect(page.getByRole('link', { name: sentence })).toBeVisible()

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^activity-\d{4}-\d{2}-\d{2}\.csv$/)
    const csv = await readFile(await download.path(), 'utf8')
    expect(csv.split('\r\n')[0]).toBe('id,created_at,action,summary,actor_id,actor,patient_id,ip')
    expect(csv).toContain(sentence)

    // Clearing the filters shows everything again, the admin's own opening and export on top.
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await expect(page).toHaveURL(/\/settings\/activity$/)
    await expect(
      page.getByRole('cell', { name: 'Demo Admin exported the activity CSV.' }),
    ).toBeVisible()
  })

  test('a staff member has no activity log and is told who has one', async ({ page, request }) => {
    const staff = await openSignedIn(page, request, '/settings', STAFF)
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Open the activity log' })).toHaveCount(0)
    await page.goto('/settings/activity')
    await expect(page.getByText('Only an admin can see the activity log.')).toBeVisible()
    const refused = await request.get('/api/audit', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
    })
    expect(refused.status()).toBe(403)
  })
})

import type { Page } from '@playwright/test'
import {
  apiSignIn,
  axeViolations,
  createPatient,
  expect,
  openAs,
  openSignedIn,
  STAFF,
  test,
} from './support/fixtures.ts'
import { screens } from './support/screens.ts'

const shoot = screens('issue-29')

/** Nothing on the page is wider than the window (no sideways scrolling). */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)
}

test.describe('patients and their points', () => {
  const unique = Date.now().toString().slice(-7)
  const phone = `555${unique}`
  const first = 'Jamie'
  const last = `Lopez${unique}`

  test('an admin adds a patient, finds them by word starts and the phone, adjusts +500 and reverses it', async ({
    page,
    request,
  }) => {
    const session = await openSignedIn(page, request, '/patients')
    await expect(page.getByRole('heading', { level: 1, name: 'Patients' })).toBeVisible()

    await page.getByRole('button', { name: 'Add patient' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add patient' })
    await dialog.getByLabel('First name').fill(first)
    await dialog.getByLabel('Last name').fill(last)
    await dialog.getByRole('textbox', { name: 'E-mail' }).fill(`jamie.${unique}@example.com`)
    await dialog
      .getByRole('textbox', { name: 'Phone' })
      .fill(`(555) ${unique.slice(0, 3)}-${unique.slice(3)}`)
    await dialog.getByRole('button', { name: 'Add patient' }).click()
    await expect(page.getByRole('heading', { level: 1, name: `${first} ${last}` })).toBeVisible()
    // Stored in E.164, shown as people write it.
    const formatted = `(555) ${unique.slice(0, 3)}-${unique.slice(3)}`
    await expect(page.getByText(formatted)).toBeVisible()
    await shoot(page, 'patient-profile-phone')

    // Find them from the list by the starts of their words in any order, then by the start of
    // the phone number written another way than it was entered.
    await page.getByRole('link', { name: 'Patients' }).first().click()
    const search = page.getByRole('searchbox', { name: 'Search patients' })
    for (const typed of [
      `${last.toLowerCase()} Jam`,
      `${phone.slice(0, 3)}-${phone.slice(3, 6)}-${phone.slice(6, 9)}`,
    ]) {
      await search.fill(typed)
      await expect.poll(() => new URL(page.url()).searchParams.get('search')).toBe(typed)
      await expect(page.getByRole('status').filter({ hasText: 'match' })).toContainText('1 patient')
    }
    expect(await axeViolations(page), 'axe on the list').toEqual([])
    await expect(page.getByRole('row').filter({ hasText: last })).toContainText(formatted)
    await shoot(page, 'patient-list-phone')

    // The same number written the international way is the same patient: refused, linked.
    await page.getByRole('button', { name: 'Add patient' }).click()
    const twin = page.getByRole('dialog', { name: 'Add patient' })
    await twin.getByLabel('First name').fill(first)
    await twin.getByLabel('Last name').fill(last)
    await twin.getByRole('textbox', { name: 'Phone' }).fill(`+1 555 ${unique}`)
    await twin.getByRole('button', { name: 'Add patient' }).click()
    await expect(twin.getByText('A patient with this phone number already exists.')).toBeVisible()
    await expect(twin.getByRole('link', { name: 'Open the existing patient' })).toBeVisible()
    await shoot(page, 'patient-duplicate-phone', twin)
    await twin.getByRole('button', { name: 'Cancel' }).click()
    await expect(twin).toBeHidden()
    await page
      .getByRole('link', { name: `${first} ${last}` })
      .first()
      .click()

    await page.getByRole('button', { name: 'Adjust points' }).click()
    const adjust = page.getByRole('dialog', { name: 'Adjust points' })
    await adjust.getByRole('button', { name: 'Save adjustment' }).click()
    // Bad input says what is wrong and keeps the dialog.
    await expect(adjust.getByText('Please give a reason.')).toBeVisible()
    await adjust.getByLabel('Points').fill('500')
    await adjust.getByLabel('Reason').fill('Birthday gift')
    expect(await axeViolations(page), 'axe on Adjust points').toEqual([])
    await adjust.getByRole('button', { name: 'Save adjustment' }).click()
    await expect(adjust).toBeHidden()

    const history = page.getByRole('table')
    await expect(page.getByText('points, worth $50.00')).toBeVisible()
    const row = history
      .getByRole('row')
      .filter({ hasText: 'Points adjusted by +500: Birthday gift' })
    await expect(row).toContainText(`${session.user.first_name} ${session.user.last_name}`)
    await expect(row).toContainText('+500')

    await row.getByRole('button', { name: /Reverse/ }).click()
    const reverse = page.getByRole('dialog', { name: 'Reverse entry' })
    await reverse.getByLabel('Reason').fill('Entered by mistake')
    await reverse.getByRole('button', { name: 'Reverse entry' }).click()
    await expect(reverse).toBeHidden()
    await expect(page.getByText('points, worth $0.00')).toBeVisible()
    await expect(history.getByRole('row').filter({ hasText: 'Reversed entry' })).toContainText(
      '−500',
    )
    await expect(row).toContainText('Reversed')
  })

  test('a staff member sees no Adjust control and the API refuses them', async ({
    page,
    request,
  }) => {
    const admin = await apiSignIn(request)
    const patient = await createPatient(request, admin, {
      first_name: 'Sky',
      last_name: `Staffview${unique}`,
    })

    const staff = await openSignedIn(page, request, `/patients/${patient.id}`, STAFF)
    await expect(
      page.getByRole('heading', { level: 1, name: `Sky Staffview${unique}` }),
    ).toBeVisible()
    await expect(page.getByRole('button', { name: 'Adjust points' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Archive' })).toHaveCount(0)

    const refused = await request.post(`/api/patients/${patient.id}/adjustments`, {
      headers: { Authorization: `Bearer ${staff.jwt}` },
      data: { points: 500, reason: 'trying', idempotencyKey: `staff-try-${unique}` },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Only a manager or an admin can adjust or reverse points.',
    )
  })

  test('an admin archives a patient, finds them in the Archive area, and restores them', async ({
    page,
    request,
  }) => {
    const admin = await apiSignIn(request)
    const patient = await createPatient(request, admin, {
      first_name: 'Ari',
      last_name: `Archived${unique}`,
    })
    const name = `Ari Archived${unique}`
    await openAs(page, admin, `/patients/${patient.id}`)
    await page.getByRole('button', { name: 'Archive' }).click()
    await page
      .getByRole('dialog', { name: 'Archive patient' })
      .getByRole('button', { name: 'Archive patient' })
      .click()
    // Archived once the profile says so (the name itself has "Archived" in it).
    await expect(page.getByText(/^This patient is archived/)).toBeVisible()
    await expect(page.getByRole('button', { name: 'Restore' })).toBeVisible()

    // Gone from the patient list, listed in the Archive area.
    await page.goto(`/patients?search=Archived${unique}`)
    await expect(page.getByText('No patient matches this search.')).toBeVisible()
    await page.goto('/archive')
    const archived = page.getByRole('region', { name: 'Archived patients' })
    await archived.getByRole('searchbox', { name: 'Search patients' }).fill(`Archived${unique}`)
    await expect(archived.getByRole('status')).toContainText('1 archived patient')
    expect(await axeViolations(page), 'axe on the Archive area').toEqual([])
    await archived.getByRole('link', { name }).first().click()

    await page.getByRole('button', { name: 'Restore' }).click()
    await page
      .getByRole('dialog', { name: 'Restore patient' })
      .getByRole('button', { name: 'Restore patient' })
      .click()
    await expect(page.getByRole('button', { name: 'Archive' })).toBeVisible()
    await page.goto(`/patients?search=Archived${unique}`)
    await expect(page.getByRole('status').filter({ hasText: 'match' })).toContainText('1 patient')
  })

  test('the list and the profile fit a 390 px phone', async ({ page, request }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await openSignedIn(page, request, '/patients')
    await expect(page.getByRole('heading', { level: 1, name: 'Patients' })).toBeVisible()
    // Cards, not a table, on a phone.
    await expect(page.getByRole('table')).toBeHidden()
    await expect(page.getByRole('listitem').first()).toBeVisible()
    await expectNoSidewaysScroll(page)
    expect(await axeViolations(page), 'axe on the list at 390 px').toEqual([])
    await page.getByRole('listitem').first().getByRole('link').click()
    await expect(page.getByRole('heading', { name: 'History' })).toBeVisible()
    await expectNoSidewaysScroll(page)
    expect(await axeViolations(page), 'axe on the profile at 390 px').toEqual([])
  })
})

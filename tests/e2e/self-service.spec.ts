import type { Page } from '@playwright/test'
import {
  adjustPoints,
  apiSignIn,
  axeViolations,
  createPatient,
  expect,
  openAs,
  test,
} from './support/fixtures.ts'
import { type Colleague, registerColleague } from './support/practice.ts'
import { screens } from './support/screens.ts'

// Roles, deactivation and the own password, through the real server.
const stamp = `${Date.now()}`.slice(-7)

const shoot = screens('issue-19')

const rowOf = (page: Page, email: string) => page.getByRole('row').filter({ hasText: email })

test.describe('self-service', () => {
  test('an Admin promotes, deactivates and makes a new Admin, who changes their password', async ({
    page,
    request,
    browser,
  }) => {
    // A long journey: three registrations and seven sign-ins, each hashing a password; on a
    // loaded 2-core machine it ran past the default minute at its very last step.
    test.setTimeout(180_000)
    const admin = await apiSignIn(request)
    // Numbers 4 to 6: the practice admin journey registers its colleagues as 1 to 3.
    const jamie = await registerColleague(request, admin.jwt, 4, 'Jamie', 'Lopez')
    const riley = await registerColleague(request, admin.jwt, 5, 'Riley', 'Chen')
    const alex = await registerColleague(request, admin.jwt, 6, 'Alex', "O'Hara")
    const sessionOf = (c: Colleague) => apiSignIn(request, c.email, c.password, { fresh: true })
    const jamieSession = await sessionOf(jamie)
    const rileySession = await sessionOf(riley)

    // A Staff member gets none of the Admin controls, and the API refuses them.
    await openAs(page, jamieSession, '/personnel')
    await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
    await expect(page.getByRole('combobox', { name: /^Role of/ })).toHaveCount(0)
    await expect(page.getByRole('button', { name: /^Deactivate/ })).toHaveCount(0)
    const refused = await request.put(`/api/users/${riley.id}/role`, {
      headers: { Authorization: `Bearer ${jamieSession.jwt}` },
      data: { access_rights: 'Admin' },
    })
    expect(refused.status()).toBe(403)

    // The Admin promotes Jamie to Manager, who can then adjust points.
    await openAs(page, admin, '/personnel')
    const role = rowOf(page, jamie.email).getByRole('combobox', { name: 'Role of Jamie Lopez' })
    await role.click()
    await page.getByRole('option', { name: 'Manager', exact: true }).click()
    // Asked first: cancelling leaves the role as it was.
    const question = page.getByRole('dialog', { name: 'Make Jamie Lopez a Manager?' })
    await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await question.getByRole('button', { name: 'Cancel' }).click()
    await expect(role).toHaveValue('Staff')
    await role.click()
    await page.getByRole('option', { name: 'Manager', exact: true }).click()
    await question.getByRole('button', { name: 'Make Manager' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'Jamie Lopez is now Manager.' }),
    ).toBeVisible()
    await expect(role).toHaveValue('Manager')
    const patient = await createPatient(request, admin, {
      first_name: 'Pat',
      last_name: `Points${stamp}`,
    })
    await adjustPoints(request, jamieSession, patient.id, {
      points: 500,
      reason: 'birthday',
      idempotencyKey: `e2e-${stamp}`,
    })

    // Deactivating asks first; Riley's open session is refused at once.
    await rowOf(page, riley.email).getByRole('button', { name: 'Deactivate Riley Chen' }).click()
    const dialog = page.getByRole('dialog', { name: 'Deactivate member?' })
    await expect(dialog).toBeVisible()
    expect(await axeViolations(page), 'axe on the deactivate dialog').toEqual([])
    await dialog.getByRole('button', { name: 'Deactivate' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'Riley Chen was deactivated' }),
    ).toBeVisible()
    await expect(rowOf(page, riley.email).getByText('deactivated')).toBeVisible()
    const afterwards = await request.get('/api/users', {
      headers: { Authorization: `Bearer ${rileySession.jwt}` },
    })
    expect(afterwards.status()).toBe(401)
    const signIn = await request.post('/api/auth/local', {
      data: { identifier: riley.email, password: riley.password },
    })
    expect(signIn.status()).toBe(403)

    // Alex becomes Admin; the practice now has two.
    const alexRole = rowOf(page, alex.email).getByRole('combobox', { name: /^Role of Alex/ })
    await alexRole.click()
    await page.getByRole('option', { name: 'Admin', exact: true }).click()
    await page
      .getByRole('dialog', { name: /^Make Alex .* an Admin\?$/ })
      .getByRole('button', { name: 'Make Admin' })
      .click()
    await expect(alexRole).toHaveValue('Admin')
    await shoot(page, 'personnel-admin', page.getByRole('table'))

    // Alex, signed in on two browsers, changes the password on one: the other session ends.
    const alexElsewhere = await sessionOf(alex)
    const alexSession = await sessionOf(alex)
    await openAs(page, alexSession, `/personnel/${alex.id}`)
    await expect(page.getByRole('heading', { level: 1, name: 'My Profile' })).toBeVisible()
    // A typo made at registration is not permanent: the header follows the fixed name.
    const details = page.getByRole('form', { name: 'Your details' })
    await details.getByRole('textbox', { name: /^Last name/ }).fill("O'Hara-Reyes")
    await details.getByRole('button', { name: 'Save details' }).click()
    await expect(details.getByRole('status')).toHaveText('Profile saved.')
    await expect(page.getByText("Hello, Alex O'Hara-Reyes")).toBeVisible()
    const form = page.getByRole('form', { name: 'Change password' })
    await form.getByLabel(/^Current password/).fill('Not-My-Password-1')
    await form.getByLabel(/^New password/).fill('Copper-Meadow-77')
    await form.getByLabel(/^Confirm new password/).fill('Copper-Meadow-77')
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect(form.getByRole('alert')).toHaveText('The current password is not correct.')
    await shoot(page, 'my-profile-password-refused', form)
    await form.getByLabel(/^Current password/).fill(alex.password)
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect(form.getByRole('status')).toHaveText(
      'Password changed. You were signed out on every other device.',
    )
    await shoot(page, 'my-profile-password-changed', form)
    // This browser goes on with its fresh session.
    await page.goto('/personnel')
    await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
    await expect(page.getByRole('combobox', { name: /^Role of Jamie/ })).toBeVisible()
    // Another browser's session has ended.
    const other = await browser.newContext()
    const otherPage = await other.newPage()
    await openAs(otherPage, alexElsewhere, '/personnel')
    await expect(otherPage).toHaveURL(/\/signin/)
    await other.close()
    const oldPassword = await request.post('/api/auth/local', {
      data: { identifier: alex.email, password: alex.password },
    })
    expect(oldPassword.status()).toBe(400)

    // The last active Admin rule: the demo Admin cannot be the one who leaves a practice empty,
    // and Riley comes back.
    await rowOf(page, riley.email).getByRole('button', { name: 'Reactivate Riley Chen' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'Riley Chen can sign in again.' }),
    ).toBeVisible()
    await expect(rowOf(page, riley.email).getByText('active')).toBeVisible()
    // Alex steps down (another Admin remains); the practice keeps the demo Admin.
    const self = rowOf(page, alex.email).getByRole('combobox', { name: /^Role of Alex/ })
    await self.click()
    await page.getByRole('option', { name: 'Staff', exact: true }).click()
    await page
      .getByRole('dialog', { name: /^Make Alex .* a Staff member\?$/ })
      .getByRole('button', { name: 'Make Staff' })
      .click()
    await expect(self).toHaveValue('Staff')
  })
})

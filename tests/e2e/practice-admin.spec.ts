import type { APIRequestContext, Page } from '@playwright/test'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { type SubscriptionAnswer, subscriptionDate } from '#domain/subscription.ts'
import { UPLOAD_MESSAGES } from '#domain/uploads.ts'
import {
  adjustPoints,
  apiSignIn,
  createPatient,
  expect,
  FOOTER_PAGE_HEADINGS,
  openAs,
  test,
} from './support/fixtures.ts'
import { type Colleague, registerColleague, signUpPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'
import { decoded, drawnLogo, HTML_AS_PNG, pick } from './support/uploads.ts'

// Issue 19's done-when as one story of a NEW practice, end to end in Chromium against the real
// server: logo, practice name, own password, roles, deactivation, subscription, footer, Staff
// refused, and the activity log saying each of these in words.

const check = screens('issue-19')

/** A wide logo, as the file a person would pick. */
async function harborLightLogo(page: Page) {
  const buffer = await drawnLogo(page, {
    width: 360,
    height: 96,
    background: '#ffffff',
    mark: { colour: '#7c3aed' },
    name: { text: 'Harbor Light', colour: '#3b0764', font: 'bold 38px sans-serif', x: 96, y: 62 },
  })
  return { name: 'harbor-light.png', mimeType: 'image/png', buffer }
}

const bearer = (jwt: string) => ({ Authorization: `Bearer ${jwt}` })

/** The refusal a call got: its status and its sentence. */
async function refusal(answer: Awaited<ReturnType<APIRequestContext['get']>>) {
  const body = (await answer.json()) as { error?: { message?: string } }
  return { status: answer.status(), message: body.error?.message }
}

const rowOf = (page: Page, c: Colleague) => page.getByRole('row').filter({ hasText: c.email })

test.describe('a new practice administers itself', () => {
  test('an Admin sets the practice up, manages the team and the subscription; Staff gets none of it; the log says it all', async ({
    page,
    request,
    browser,
  }) => {
    test.setTimeout(420_000)
    // A typo at sign-up, fixed in Settings later.
    const admin = await signUpPractice(request, 'Harbr Light Aesthetics')
    const adminName = `${admin.user.first_name} ${admin.user.last_name}`
    const jamie = await registerColleague(request, admin.jwt, 1, 'Jamie', 'Lopez')
    const riley = await registerColleague(request, admin.jwt, 2, 'Riley', 'Chen')
    const sam = await registerColleague(request, admin.jwt, 3, 'Sam', 'Patel')
    const sessionOf = (c: Colleague) => apiSignIn(request, c.email, c.password, { fresh: true })
    const jamieSession = await sessionOf(jamie)
    const rileySession = await sessionOf(riley)
    const samSession = await sessionOf(sam)

    await test.step('a Staff member gets none of the Admin controls and 403 from the API', async () => {
      await openAs(page, samSession, '/settings')
      await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible()
      await expect(page.getByText('Harbr Light Aesthetics').first()).toBeVisible()
      await expect(page.getByRole('form', { name: 'Practice details' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: /logo/i })).toHaveCount(0)
      await expect(page.getByRole('heading', { name: 'Subscription' })).toHaveCount(0)
      await expect(page.getByRole('link', { name: 'Open the activity log' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: 'Save rules' })).toHaveCount(0)
      await check(page, 'settings-staff')
      await page.goto('/personnel')
      await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
      await expect(page.getByText(jamie.email)).toBeVisible()
      await expect(page.getByRole('combobox', { name: /^Role of/ })).toHaveCount(0)
      await expect(page.getByRole('button', { name: /^Deactivate/ })).toHaveCount(0)
      await expect(page.getByRole('form', { name: 'Invite' })).toHaveCount(0)

      const headers = bearer(samSession.jwt)
      const calls = [
        [
          request.put('/api/practice', { headers, data: { practice_name: 'Mine Now' } }),
          'practice.settings',
        ],
        [request.delete('/api/practice/logo', { headers }), 'practice.settings'],
        [request.get('/api/practice/subscription', { headers }), 'subscription.manage'],
        [request.post('/api/practice/subscription/cancel', { headers }), 'subscription.manage'],
        [
          request.put(`/api/users/${jamie.id}/role`, { headers, data: { access_rights: 'Admin' } }),
          'personnel.manage',
        ],
        [request.post(`/api/users/${riley.id}/deactivate`, { headers }), 'personnel.manage'],
        [request.get('/api/audit', { headers }), 'activity.read'],
      ] as const
      for (const [call, permission] of calls) {
        expect(await refusal(await call), permission).toEqual({
          status: 403,
          message: PERMISSION_REFUSALS[permission],
        })
      }
    })

    await openAs(page, admin, '/settings')
    const banner = page.getByRole('banner')
    const headerLogo = banner.getByRole('img', { name: 'Practice logo' })

    await test.step('an HTML file renamed .png is refused', async () => {
      const section = page.getByRole('region', { name: 'Practice logo' })
      await pick(page, section.getByRole('button', { name: 'Upload logo' }), HTML_AS_PNG)
      await expect(section.getByRole('alert')).toHaveText(UPLOAD_MESSAGES.wrongType)
      await expect(headerLogo).toHaveAttribute('src', '/logo.svg')
    })

    await test.step('the Admin uploads a logo and sees it in the header', async () => {
      const section = page.getByRole('region', { name: 'Practice logo' })
      await pick(
        page,
        section.getByRole('button', { name: 'Upload logo' }),
        await harborLightLogo(page),
      )
      await expect(section.getByRole('status')).toHaveText(UPLOAD_MESSAGES.logoSaved)
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\/\d+\/[\w-]{43}$/)
      await expect.poll(() => decoded(headerLogo)).toBe(true)
    })

    await test.step('the Admin fixes the practice name; logo and name both stay', async () => {
      const form = page.getByRole('form', { name: 'Practice details' })
      const name = form.getByRole('textbox', { name: 'Practice name' })
      await expect(name).toHaveValue('Harbr Light Aesthetics')
      await name.fill('Harbor Light Aesthetics')
      await form.getByRole('button', { name: 'Save practice details' }).click()
      await expect(form.getByRole('status')).toHaveText('Practice details saved.')
      // The name save must not undo the logo the session just learnt, nor the other way round.
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\//)
      await expect(page.getByText('Harbr Light Aesthetics')).toHaveCount(0)
      await page.reload()
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\//)
      await expect.poll(() => decoded(headerLogo)).toBe(true)
      await expect(
        page.getByRole('form', { name: 'Practice details' }).getByRole('textbox', {
          name: 'Practice name',
        }),
      ).toHaveValue('Harbor Light Aesthetics')
      await page.goto('/dashboard')
      await expect(page.getByText('Harbor Light Aesthetics').first()).toBeVisible()
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\//)
    })

    let termEnd = ''
    await test.step('the Admin sets the subscription to end at the end of the term and sees the date', async () => {
      const answer = (await (
        await request.get('/api/practice/subscription', { headers: bearer(admin.jwt) })
      ).json()) as SubscriptionAnswer
      termEnd = subscriptionDate(answer.current_period_end ?? '')
      await page.goto('/settings')
      const subscription = page.getByRole('region', { name: 'Subscription' })
      await subscription.getByRole('button', { name: 'Cancel at end of term' }).click()
      const confirm = page.getByRole('dialog', { name: 'Cancel at end of term' })
      await expect(confirm).toContainText(`The subscription will end on ${termEnd}`)
      await confirm.getByRole('button', { name: 'Cancel at end of term' }).click()
      await expect(confirm).toBeHidden()
      await expect(subscription.getByText(`Ends on ${termEnd}`, { exact: true })).toBeVisible()
      await check(page, 'settings-admin')
    })

    await test.step('every footer link opens something real', async () => {
      const footer = page.getByRole('navigation', { name: 'Footer' })
      await expect(footer.getByRole('link')).toHaveCount(5)
      for (const [label, heading] of Object.entries(FOOTER_PAGE_HEADINGS)) {
        const [opened] = await Promise.all([
          page.context().waitForEvent('page'),
          footer.getByRole('link', { name: label }).click(),
        ])
        await expect(opened.getByRole('heading', { level: 1, name: heading })).toBeVisible()
        await opened.close()
      }
      await expect(footer.getByRole('link', { name: 'Support Centre' })).toHaveAttribute(
        'href',
        /^mailto:[^@\s]+@[^@\s]+\.[a-z]+$/,
      )
    })

    await test.step('the Admin promotes a Staff member to Manager, who can then adjust points', async () => {
      await page.goto('/personnel')
      const role = rowOf(page, jamie).getByRole('combobox', { name: 'Role of Jamie Lopez' })
      await role.click()
      await page.getByRole('option', { name: 'Manager', exact: true }).click()
      // Asked first, with what changes.
      const question = page.getByRole('dialog', { name: 'Make Jamie Lopez a Manager?' })
      await expect(question).toContainText('A Manager can adjust points')
      await question.getByRole('button', { name: 'Make Manager' }).click()
      await expect(
        page.getByRole('status').filter({ hasText: 'Jamie Lopez is now Manager.' }),
      ).toBeVisible()
      const patient = await createPatient(request, admin, {
        first_name: 'Pat',
        last_name: 'Harbor',
      })
      await adjustPoints(request, jamieSession, patient.id, {
        points: 250,
        reason: 'welcome gift',
        idempotencyKey: `journey-${Date.now()}`,
      })
    })

    await test.step('the Admin deactivates another, whose open session is refused at once', async () => {
      await rowOf(page, riley).getByRole('button', { name: 'Deactivate Riley Chen' }).click()
      const dialog = page.getByRole('dialog', { name: 'Deactivate member?' })
      await dialog.getByRole('button', { name: 'Deactivate' }).click()
      await expect(
        page.getByRole('status').filter({ hasText: 'Riley Chen was deactivated' }),
      ).toBeVisible()
      const refused = await request.get('/api/users', { headers: bearer(rileySession.jwt) })
      expect(refused.status()).toBe(401)
      await check(page, 'journey-personnel')
    })

    await test.step('the Admin changes their own password: the old one fails, another browser is signed out', async () => {
      const elsewhere = await apiSignIn(request, admin.user.email, admin.password, { fresh: true })
      const other = await browser.newContext()
      const otherPage = await other.newPage()
      await openAs(otherPage, elsewhere, '/dashboard')
      await expect(otherPage.getByText(`Hello, ${adminName}`)).toBeVisible()

      await page.goto(`/personnel/${admin.user.id}`)
      await expect(page.getByRole('heading', { level: 1, name: 'My Profile' })).toBeVisible()
      const form = page.getByRole('form', { name: 'Change password' })
      await form.getByLabel(/^Current password/).fill(admin.password)
      await form.getByLabel(/^New password/).fill('Copper-Meadow-77')
      await form.getByLabel(/^Confirm new password/).fill('Copper-Meadow-77')
      await form.getByRole('button', { name: 'Change password' }).click()
      await expect(form.getByRole('status')).toHaveText(
        'Password changed. You were signed out on every other device.',
      )
      await check(page, 'journey-my-profile')

      const old = await request.post('/api/auth/local', {
        data: { identifier: admin.user.email, password: admin.password },
      })
      expect(old.status()).toBe(400)
      await otherPage.goto('/personnel')
      await expect(otherPage).toHaveURL(/\/signin/)
      await other.close()
      // This browser goes on, logo and all.
      await page.goto('/personnel')
      await expect(page.getByRole('combobox', { name: 'Role of Jamie Lopez' })).toHaveValue(
        'Manager',
      )
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\//)
    })

    await test.step('the activity log shows each of these actions in words', async () => {
      await page.goto('/settings/activity')
      await expect(page.getByRole('heading', { level: 1, name: 'Activity log' })).toBeVisible()
      const log = page.getByRole('table')
      for (const sentence of [
        `${adminName} uploaded a logo image.`,
        `${adminName} changed the practice logo.`,
        `${adminName} changed the practice details (practice name).`,
        `${adminName} set the subscription to end on ${termEnd}.`,
        `${adminName} changed Jamie Lopez's role from Staff to Manager.`,
        "Jamie Lopez adjusted Pat Harbor's points by +250: welcome gift.",
        `${adminName} deactivated Riley Chen.`,
        `${adminName} changed their password.`,
        `Sam Patel was refused: ${PERMISSION_REFUSALS['practice.settings']}`,
      ]) {
        await expect(log.getByText(sentence, { exact: true }).first(), sentence).toBeVisible()
      }
      await check(page, 'journey-activity-log')
    })
  })
})

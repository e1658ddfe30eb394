import type { Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import {
  apiSignIn,
  axeViolations,
  expect,
  openAs,
  openSignedIn,
  STAFF,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import { screens } from './support/screens.ts'

// Every run invites new people with new phones: the server keeps per-phone code limits.
const stamp = `${Date.now()}`.slice(-7)
const uniquePhone = (n: number) => nanpTestPhone(`55${n}${stamp}`.slice(0, 10).padEnd(10, '0'))

const shoot = screens('issue-16')

async function invite(
  page: Page,
  person: { email: string; first: string; last: string; title?: string; position: string },
) {
  const form = page.getByRole('form', { name: 'Invite' })
  await form.getByLabel(/^Email/).fill(person.email)
  await form.getByLabel(/^First name/).fill(person.first)
  await form.getByLabel(/^Last name/).fill(person.last)
  if (person.title) {
    await form.getByRole('combobox', { name: 'Title' }).click()
    await page.getByRole('option', { name: person.title }).click()
  }
  await form.getByRole('combobox', { name: /^Position/ }).click()
  await page.getByRole('option', { name: person.position }).click()
  await form.getByRole('button', { name: 'Invite' }).click()
  await expect(page.getByText(`Invitation sent to ${person.email}.`)).toBeVisible()
}

test.describe('personnel', () => {
  test('an Admin invites a colleague, who registers from the e-mailed link and signs in', async ({
    page,
    request,
    browser,
  }) => {
    const person = {
      email: `riley.${stamp}@example.com`,
      first: 'Riley',
      last: "O'Neil",
      title: 'Ms.',
      position: 'Staff',
    }
    const phone = uniquePhone(1)
    const password = 'Welcome2026'

    // The demo Admin invites from the Personnel area.
    await openSignedIn(page, request, '/personnel')
    await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
    const sentAt = new Date()
    await invite(page, person)
    const row = page.getByRole('row', { name: new RegExp(person.email) })
    await expect(row.getByText('invited')).toBeVisible()
    await shoot(page, 'area')
    expect(await axeViolations(page)).toEqual([])

    // The outbox e-mail carries the registration link.
    const mail = await waitForMessage(request, 'email', person.email, { after: sentAt })
    expect(mail.link).toMatch(/\/signup\/personnel\/[\w-]{43}$/)
    const link = mail.link ?? ''

    // The invited person opens it in a browser of their own.
    const context = await browser.newContext()
    const invitee = await context.newPage()
    await invitee.goto(link)
    await expect(invitee.getByRole('heading', { level: 1, name: 'Registration' })).toBeVisible()
    await expect(
      invitee.getByRole('heading', { level: 2, name: 'Registration Details' }),
    ).toBeVisible()
    await expect(invitee.getByLabel('Email')).toHaveValue(person.email)
    await expect(invitee.getByLabel('Email')).not.toBeEditable()
    await expect(invitee.getByLabel('Position')).toHaveValue(person.position)
    await expect(invitee.getByLabel('Position')).not.toBeEditable()
    await expect(invitee.getByLabel(/^First name/)).toHaveValue(person.first)
    await expect(invitee.getByLabel(/^Last name/)).toHaveValue(person.last)
    await expect(invitee.getByRole('button', { name: 'Get Code' })).toBeDisabled()
    await expect(invitee.getByRole('button', { name: 'Submit' })).toBeDisabled()
    await expect(invitee.getByText('Join Glow Demo Med Spa on Glow Rewards')).toBeVisible()
    expect(await axeViolations(invitee)).toEqual([])
    // The confirmation code and its Verify Code button share one row, top and bottom, at both widths.
    for (const width of [1440, 390]) {
      await invitee.setViewportSize({ width, height: 900 })
      const field = await invitee.getByLabel('Confirmation code').boundingBox()
      const verify = await invitee.getByRole('button', { name: 'Verify Code' }).boundingBox()
      if (!field || !verify) throw new Error('the code field or Verify Code is not shown')
      expect(Math.abs(field.y - verify.y), `top at ${width} px`).toBeLessThanOrEqual(1)
      expect(Math.abs(field.height - verify.height), `height at ${width} px`).toBeLessThanOrEqual(1)
      expect(verify.x + verify.width, `inside the window at ${width} px`).toBeLessThanOrEqual(width)
      await shoot(invitee, `registration-${width}`)
    }
    await invitee.setViewportSize({ width: 1440, height: 900 })

    await invitee.getByLabel(/^Phone number/).fill(phone)
    await invitee.getByLabel(/^Password/).fill(password)
    await invitee.getByLabel(/^Confirm password/).fill(password)
    const codeAskedAt = new Date()
    await invitee.getByRole('button', { name: 'Get Code' }).click()
    await expect(invitee.getByText('Confirmation Code is sent')).toBeVisible()
    const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: codeAskedAt })
    expect(sms.code).toMatch(/^\d{6}$/)
    await invitee.getByLabel('Confirmation code').fill(sms.code ?? '')
    await invitee.getByRole('button', { name: 'Verify Code' }).click()
    await expect(invitee.getByText('Phone number verified')).toBeVisible()
    await expect(invitee.getByLabel(/^Phone number/)).not.toBeEditable()
    await expect(invitee.getByRole('button', { name: 'Submit' })).toBeEnabled()
    await shoot(invitee, 'registration')
    expect(await axeViolations(invitee)).toEqual([])

    await invitee.getByRole('button', { name: 'Submit' }).click()
    await expect(invitee).toHaveURL(/\/signin$/)
    await expect(
      invitee.getByText(
        'You are successfully Signed Up! Use your new credentials to sign into the system.',
      ),
    ).toBeVisible()

    // The new person signs in with the new credentials.
    await invitee.getByLabel(/^Email/).fill(person.email)
    await invitee.getByLabel(/^Password/).fill(password)
    await invitee.getByRole('button', { name: 'Sign In' }).click()
    await expect(invitee).toHaveURL(/\/dashboard$/)
    await expect(invitee.getByText(`Hello, ${person.first} ${person.last}`)).toBeVisible()

    // The link is spent: it says so, names no 404, and leads to Sign In.
    await invitee.goto(link)
    await expect(invitee.getByText('This invitation has already been used')).toBeVisible()
    await expect(invitee.getByRole('heading', { name: 'Page not found' })).toHaveCount(0)
    await shoot(invitee, 'registration-used')
    expect(await axeViolations(invitee)).toEqual([])
    // (They are signed in already, so following it would go on to the dashboard.)
    await expect(invitee.getByRole('link', { name: 'Sign In', exact: true })).toHaveAttribute(
      'href',
      '/signin',
    )
    await context.close()

    // The Admin's list now shows the colleague as active.
    await page.reload()
    const member = page.getByRole('row', { name: new RegExp(person.email) })
    await expect(member).toHaveCount(1)
    await expect(member.getByText('active')).toBeVisible()
    await expect(member.getByText('Staff', { exact: true })).toBeVisible()
  })

  test('an Admin resends and revokes an invitation; a revoked link goes to /404', async ({
    page,
    request,
  }) => {
    const person = {
      email: `casey.${stamp}@example.com`,
      first: 'Casey',
      last: 'Morgan',
      position: 'Provider',
    }
    await openSignedIn(page, request, '/personnel')
    await invite(page, person)
    const mail = await waitForMessage(request, 'email', person.email)
    await page.getByRole('button', { name: `Resend invitation to ${person.email}` }).click()
    await expect(page.getByText(`Invitation sent again to ${person.email}.`)).toBeVisible()
    await page.getByRole('button', { name: `Revoke invitation to ${person.email}` }).click()
    await page
      .getByRole('dialog', { name: 'Revoke invitation?' })
      .getByRole('button', { name: 'Revoke invitation' })
      .click()
    await expect(page.getByText(`Invitation to ${person.email} revoked.`)).toBeVisible()
    const row = page.getByRole('row', { name: new RegExp(person.email) })
    await expect(row.getByText('revoked')).toBeVisible()
    await expect(row.getByRole('button')).toHaveCount(0)

    await page.goto(mail.link ?? '')
    await expect(page).toHaveURL(/\/404$/)
  })

  test('staff who are not Admin see the list without invite controls and get 403 from the API', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request, STAFF.email, STAFF.password)
    const response = await request.post('/api/personnel', {
      headers: { Authorization: `Bearer ${session.jwt}` },
      data: {
        email: `nope.${stamp}@example.com`,
        first_name: 'No',
        last_name: 'Pe',
        position: 'Staff',
      },
    })
    expect(response.status()).toBe(403)
    expect(await response.json()).toMatchObject({
      error: { status: 403, message: 'Only an admin can manage personnel.' },
    })

    await openAs(page, session, '/personnel')
    await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
    await expect(page.getByText('demo@example.com')).toBeVisible()
    await expect(page.getByRole('form', { name: 'Invite' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: /Resend|Revoke/ })).toHaveCount(0)
    expect(await axeViolations(page)).toEqual([])
  })
})

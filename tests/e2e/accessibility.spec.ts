/**
 * Axe (WCAG 2 A and AA, 2.1 AA) on every screen of the portal, in the states a person meets:
 * the sign-in views with and without errors, each sign-up step and the two agreement views, the
 * thank-you, unsubscribe and not-found pages, the personnel registration, and each area of the
 * signed-in shell at desktop and phone width (menus open). A screen passes with no violation.
 */
import type { APIRequestContext, Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import {
  AREAS,
  apiSignIn,
  axeViolations,
  DEMO,
  expect,
  interactive,
  storeSession,
  test,
  waitForMessage,
} from './support/fixtures.ts'

// Every run signs up and invites new people: phones and e-mails are unique per run.
const stamp = `${Date.now()}`.slice(-6)

/** Axe on the page as it is now, named so that a failure says which screen. */
async function expectNoViolations(page: Page, screen: string) {
  expect(await axeViolations(page), `axe violations on ${screen}`).toEqual([])
}

const heading = (page: Page, level: 1 | 2, name: string) =>
  page.getByRole('heading', { level, name, exact: true })
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })
const field = (page: Page, name: RegExp) => page.getByRole('textbox', { name })

async function choose(page: Page, label: RegExp, option: string) {
  await interactive(page)
  await page.getByRole('combobox', { name: label }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
}

/** A fresh reset link for the demo Admin, from the outbox. */
async function resetLink(request: APIRequestContext, baseURL: string): Promise<string> {
  const asked = new Date(Date.now() - 1000)
  const response = await request.post('/api/auth/forgot-password', {
    data: { email: DEMO.email, url: new URL('/reset', baseURL).href },
  })
  expect(response.status()).toBe(200)
  const mail = await waitForMessage(request, 'email', DEMO.email, { after: asked })
  if (!mail.link) throw new Error('the reset e-mail has no link')
  return mail.link
}

// Each test here stands alone (its own data, its own session), so the two workers share them out
// one by one instead of one worker taking the whole file: the longest files of the suite would
// otherwise end it with one worker idle (decision record 013).
test.describe.configure({ mode: 'parallel' })

test.describe('accessibility (axe, WCAG 2.1 AA)', () => {
  test('sign-in views: sign in, its error, forgot password, reset password and its errors', async ({
    page,
    request,
    baseURL,
  }) => {
    await page.goto('/signin')
    await expect(heading(page, 1, 'Sign In')).toBeVisible()
    await expectNoViolations(page, 'sign in')

    await button(page, 'Sign In').click()
    await expect(page.getByText('Please fill email field')).toBeVisible()
    await expectNoViolations(page, 'sign in with field errors')

    await page.getByLabel(/^Email/).fill(DEMO.email)
    await page.getByLabel(/^Password/).fill('not-the-password')
    await button(page, 'Sign In').click()
    await expect(page.getByRole('alert')).toHaveText('Invalid Email or Password')
    await expectNoViolations(page, 'sign in refused')

    await button(page, 'Forgot Password').click()
    await expect(heading(page, 1, 'Forgot Password')).toBeVisible()
    await expectNoViolations(page, 'forgot password')

    await page.goto(await resetLink(request, baseURL ?? ''))
    await expect(heading(page, 1, 'Please enter a new password!')).toBeVisible()
    await expectNoViolations(page, 'reset password')
    await button(page, 'Reset and Sign In').click()
    await expect(page.getByText('Please fill password field')).toBeVisible()
    await expectNoViolations(page, 'reset password with field errors')
  })

  test('sign-up: each step, its errors, the two agreement views, and the thank-you page', async ({
    page,
    request,
  }) => {
    const phone = nanpTestPhone(`556${stamp}1`)
    const email = `a11y.${stamp}@example.com`
    await page.goto('/signup')
    await page.evaluate(() => window.sessionStorage.clear())
    await page.reload()
    await expect(heading(page, 2, 'Client Information')).toBeVisible()
    // Prerendered: a field left before React takes the page over is not checked.
    await interactive(page)
    await expectNoViolations(page, 'sign-up step 1')

    // Errors show when a required field is left.
    await field(page, /^First name/).focus()
    await page.keyboard.press('Tab')
    await expect(page.getByText('Please fill first name field')).toBeVisible()
    await expectNoViolations(page, 'sign-up step 1 with an error')

    await choose(page, /^Title/, 'Dr.')
    await field(page, /^First name/).fill('Ada')
    await field(page, /^Last name/).fill('Access')
    await field(page, /^Phone number/).fill(phone)
    await field(page, /^Email/).fill(email)
    await page.getByLabel(/^Password/).fill('Glow!Pass123')
    await page.getByLabel(/^Confirm password/).fill('Glow!Pass123')
    await choose(page, /^Position/, 'Provider')
    const asked = new Date(Date.now() - 1000)
    await button(page, 'Get Code').click()
    await expect(page.getByText('Confirmation Code is sent')).toBeVisible()
    await expectNoViolations(page, 'sign-up step 1, code sent')
    const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: asked })
    await field(page, /^Confirmation code/).fill(sms.code ?? '')
    await button(page, 'Verify Code').click()
    await expect(page.getByText('Phone number verified')).toBeVisible()
    await expectNoViolations(page, 'sign-up step 1, phone verified')
    await button(page, 'Continue').click()

    await expect(heading(page, 2, 'Account Setup')).toBeVisible()
    await expectNoViolations(page, 'sign-up step 2')
    const practiceName = field(page, /^Practice name/)
    await practiceName.fill('')
    await button(page, 'Continue').click()
    await expect(practiceName).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'sign-up step 2 with an error')
    await practiceName.fill('Accessible Aesthetics')
    await page.getByRole('radio', { name: 'Nextech' }).check()
    await expect(field(page, /^Client ID/)).toBeVisible()
    await expectNoViolations(page, 'sign-up step 2 with Nextech')
    await page.getByRole('radio', { name: 'No integration' }).check()
    await button(page, 'Continue').click()

    await expect(heading(page, 2, 'Billing Information')).toBeVisible()
    await expect(page.getByRole('region', { name: 'Price summary' })).toBeVisible()
    await expectNoViolations(page, 'sign-up step 3')
    await page.getByLabel(/^Card number/).fill('')
    await button(page, 'Continue').click()
    await expect(page.locator('.mantine-InputWrapper-error').first()).toBeVisible()
    await expectNoViolations(page, 'sign-up step 3 with errors')

    await button(page, 'Terms and Conditions').click()
    await expect(heading(page, 2, 'Terms and Conditions')).toBeVisible()
    await expectNoViolations(page, 'Terms and Conditions')
    await button(page, 'Back to Billing Information').click()

    await button(page, 'Business Associates Agreement').click()
    await expect(heading(page, 2, 'Business Associates Agreement')).toBeVisible()
    await expectNoViolations(page, 'Business Associates Agreement')
    await field(page, /^Signature/).fill('Ada Access')
    await field(page, /^Signer's name/).fill('Ada Access')
    await button(page, 'Sign').click()
    await expect(page.getByText(/^Signed by Ada Access on /)).toBeVisible()
    await expectNoViolations(page, 'Business Associates Agreement, signed')
    await button(page, 'Back to Billing Information').click()

    await page.getByLabel(/^Card number/).fill('4242 4242 4242 4242')
    await choose(page, /^Expiration month/, '12')
    await choose(page, /^Expiration year/, '2030')
    await page.getByLabel(/^CVV/).fill('123')
    await field(page, /^Cardholder name/).fill('Ada Access')
    const terms = page.getByRole('checkbox', { name: /Terms and Conditions/ })
    if (!(await terms.isChecked())) await terms.check()
    await button(page, 'Continue').click()

    await expect(heading(page, 2, 'Confirmation')).toBeVisible()
    await expectNoViolations(page, 'sign-up step 4')
    await button(page, 'Submit').click()
    await expect(page).toHaveURL(/\/thankyou$/)
    await expect(page.getByRole('heading', { name: 'Congratulations!' })).toBeVisible()
    await expectNoViolations(page, 'thank-you')
  })

  test('thank-you, unsubscribe (done and refused) and not-found pages', async ({
    page,
    request,
  }) => {
    await page.goto('/thankyou')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expectNoViolations(page, 'thank-you')

    const session = await apiSignIn(request)
    const patients = await request.get(`/api/patients/by-practice/${session.practice.id}`, {
      headers: { Authorization: `Bearer ${session.jwt}` },
    })
    const [first] = (await patients.json()) as { id: number }[]
    expect(first, 'a seeded patient').toBeTruthy()
    // Staff answers never carry the token; the development route reads it.
    const link = await request.get(`/api/dev/patients/${first?.id}/unsubscribe-id`)
    const token = ((await link.json()) as { unsubscribe_id: string }).unsubscribe_id
    expect(token, 'a seeded patient with an unsubscribe link').toBeTruthy()
    await page.goto(`/unsubscribe/${token}`)
    await expect(page.getByText('You are successfully unsubscribed!')).toBeVisible()
    await expectNoViolations(page, 'unsubscribe done')

    await page.goto('/unsubscribe/not-a-link')
    await expect(page.getByRole('alert')).toBeVisible()
    await expectNoViolations(page, 'unsubscribe refused')

    await page.goto('/no/such/page')
    await expect(page).toHaveURL(/\/404$/)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expectNoViolations(page, 'not found')
  })

  test('personnel registration from an invitation, with its errors', async ({ page, request }) => {
    const session = await apiSignIn(request)
    const email = `a11y.invitee.${stamp}@example.com`
    const asked = new Date(Date.now() - 1000)
    const invited = await request.post('/api/personnel', {
      headers: { Authorization: `Bearer ${session.jwt}` },
      data: { email, first_name: 'Ines', last_name: 'Invited', position: 'Staff', title: null },
    })
    expect(invited.status(), await invited.text()).toBeLessThan(300)
    const mail = await waitForMessage(request, 'email', email, { after: asked })
    await page.goto(mail.link ?? '')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(page.getByLabel(/^Phone number/)).toBeVisible()
    await expectNoViolations(page, 'personnel registration')

    // Submit waits for the verified phone; leaving the empty phone field shows its error.
    await page.getByLabel(/^Phone number/).focus()
    await page.keyboard.press('Tab')
    await expect(page.getByText('Please fill phone number field')).toBeVisible()
    await expectNoViolations(page, 'personnel registration with an error')
  })

  for (const viewport of [
    { name: 'desktop', width: 1440, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`every shell area, the profile and the open menus (${viewport.name})`, async ({
      page,
      request,
    }) => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height })
      const session = await apiSignIn(request)
      await storeSession(page, session)
      for (const area of AREAS) {
        await page.goto(`/${area}`)
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
        await expect(page.getByText('Please wait...')).toHaveCount(0)
        await expectNoViolations(page, `/${area} (${viewport.name})`)
      }
      await page.goto(`/personnel/${session.user.id}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      await expectNoViolations(page, `profile (${viewport.name})`)

      if (viewport.name === 'phone') {
        await page.getByRole('button', { name: /navigation/i }).click()
        await expect(page.getByRole('link', { name: 'Patients' })).toBeVisible()
        await expectNoViolations(page, 'navigation open (phone)')
        await page.keyboard.press('Escape')
      }
      await page
        .getByRole('button', { name: /account menu|hello/i })
        .first()
        .click()
      await expect(page.getByRole('menuitem', { name: 'Logout' })).toBeVisible()
      // Axe reads colours as painted: wait for the menu's fade-in to end.
      await expect(page.getByRole('menu')).toHaveCSS('opacity', '1')
      await expectNoViolations(page, `account menu open (${viewport.name})`)
    })
  }
})

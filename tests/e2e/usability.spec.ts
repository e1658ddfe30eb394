/**
 * The usability pass in Chromium against the real server, each journey done the way a
 * new practice or its staff did it: the phone menu, tables on a phone, the Business Associates
 * Agreement's signature, locked values that stay readable, the sticky wizard footer that never
 * hides the focused field, a title for every page, a word on every sign-out, and the small ones
 * (promo codes in any case, the promo note after a term change, Check email, Amex grouping, one
 * confirm-password text, the pre-filled sign-in, billing same as practice, a reload on step 4).
 */
import type { APIRequestContext, Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import {
  apiSignIn,
  axeViolations,
  DEMO,
  expect,
  interactive,
  storeSession,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import {
  button,
  field,
  fillCard,
  fillClientDetails,
  newPerson,
  openWizard,
  passClientDetails,
  reachBilling,
  signAgreement,
  stepHeading,
  textContrast,
  verifyPhone,
} from './support/wizard.ts'

const PHONE = { width: 390, height: 844 }
const stamp = `${Date.now()}`.slice(-7)

async function expectAccessible(page: Page, screen: string) {
  expect(await axeViolations(page), `axe violations on ${screen}`).toEqual([])
}

/** Signs in fresh through the API (a session this test may end) and stores it in the page. */
async function signedIn(page: Page, request: APIRequestContext, fresh = false) {
  const session = await apiSignIn(request, DEMO.email, DEMO.password, { fresh })
  await storeSession(page, session)
  return session
}

/** Invites a colleague through the API as the demo Admin; returns the registration link. */
async function inviteColleague(request: APIRequestContext, email: string, position = 'Staff') {
  const session = await apiSignIn(request)
  const sentAt = new Date(Date.now() - 1000)
  const response = await request.post('/api/personnel', {
    headers: { Authorization: `Bearer ${session.jwt}` },
    data: { email, first_name: 'Robin', last_name: 'Usable', position },
  })
  expect(response.status(), await response.text()).toBe(201)
  const mail = await waitForMessage(request, 'email', email, { after: sentAt })
  return mail.link ?? ''
}

// Each test here stands alone (its own data, its own session), so the two workers share them out
// one by one instead of one worker taking the whole file: the longest files of the suite would
// otherwise end it with one worker idle (decision record 013).
test.describe.configure({ mode: 'parallel' })

test.describe('usability', () => {
  test('1. after the phone is verified the e-mail stays editable: a taken e-mail is marked and changed, and the sign-up goes on', async ({
    page,
    request,
  }) => {
    const person = { ...newPerson('Tak', 'En', '543'), email: DEMO.email }
    await openWizard(page)
    await fillClientDetails(page, person)
    await verifyPhone(page, request, person.phone)
    await button(page, 'Continue').click()
    await expect(
      page.getByRole('alert').filter({ hasText: 'Phone or email is already taken' }),
    ).toBeVisible()
    const email = field(page, /^Email/)
    await expect(email).toBeEditable()
    await expect(email).toHaveAccessibleDescription(/Email is already taken\./)
    await expect(field(page, /^Phone number/)).not.toBeEditable()
    await expectAccessible(page, 'step 1 with a taken e-mail')

    await email.fill(`tak.${stamp}@example.com`)
    await expect(page.getByText('Email is already taken.')).toHaveCount(0)
    await expect(page.getByText('Phone number verified')).toBeVisible()
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Account Setup')).toBeVisible()
  })

  test('1. a taken phone is marked, and Use another number ends its verification so another can be verified', async ({
    page,
    request,
  }) => {
    // The demo Admin's phone already has an account.
    const person = { ...newPerson('Tel', 'Taken', '542'), phone: '5552100101' }
    await openWizard(page)
    await fillClientDetails(page, person)
    await verifyPhone(page, request, person.phone)
    await button(page, 'Continue').click()
    await expect(
      page.getByRole('alert').filter({ hasText: 'Phone or email is already taken' }),
    ).toBeVisible()
    const phone = field(page, /^Phone number/)
    await expect(phone).toHaveAccessibleDescription(/Phone number is already taken\./)
    await expectAccessible(page, 'step 1 with a taken phone')

    await button(page, 'Use another number').click()
    await expect(phone).toBeEditable()
    await expect(page.getByText('Phone number verified')).toHaveCount(0)
    await expect(button(page, 'Continue')).toBeDisabled()
    const other = newPerson('Tel', 'Other', '541').phone
    await phone.fill(other)
    await verifyPhone(page, request, other)
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Account Setup')).toBeVisible()
  })

  test('2. the phone menu has a backdrop and closes on Escape and on a tap outside, focus back on the burger', async ({
    page,
    request,
  }) => {
    await page.setViewportSize(PHONE)
    await signedIn(page, request)
    await page.goto('/dashboard')
    const burger = page.getByRole('button', { name: 'Open navigation' })
    const menu = page.getByRole('navigation', { name: 'Main navigation' })

    await burger.click()
    await expect(page.getByRole('button', { name: 'Close navigation' })).toHaveAttribute(
      'aria-expanded',
      'true',
    )
    await expect(menu.getByRole('link', { name: 'Patients' })).toBeInViewport()
    await expectAccessible(page, 'the phone menu, open')
    await page.keyboard.press('Escape')
    await expect(burger).toHaveAttribute('aria-expanded', 'false')
    await expect(burger).toBeFocused()
    await expect(menu.getByRole('link', { name: 'Patients' })).not.toBeInViewport()

    await burger.click()
    // A backdrop covers the page beside the menu.
    const covered = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x ?? 0, y ?? 0)?.closest('main') === null,
      [PHONE.width - 20, PHONE.height / 2],
    )
    expect(covered, 'the page beside the open menu is covered').toBe(true)
    // A tap on the page beside the menu closes it and does nothing else.
    await page.mouse.click(PHONE.width - 20, PHONE.height / 2)
    await expect(burger).toHaveAttribute('aria-expanded', 'false')
    await expect(burger).toBeFocused()
    await expect(page).toHaveURL(/\/dashboard$/)
  })

  test('3. on a phone the Personnel list shows stacked cards with every action in view, and Revoke asks first', async ({
    page,
    request,
  }) => {
    const email = `card.${stamp}@example.com`
    await inviteColleague(request, email)
    await page.setViewportSize(PHONE)
    await signedIn(page, request)
    await page.goto('/personnel')
    await expect(page.getByRole('heading', { level: 1, name: 'Personnel' })).toBeVisible()
    const list = page.getByRole('region', { name: 'Personnel' })
    const noSideScroll = await list.evaluate((node) => node.scrollWidth <= node.clientWidth)
    expect(noSideScroll, 'the list scrolls sideways on a phone').toBe(true)
    const revoke = page.getByRole('button', { name: `Revoke invitation to ${email}` })
    await revoke.scrollIntoViewIfNeeded()
    const box = await revoke.boundingBox()
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width, 'Revoke fits the screen').toBe(
      true,
    )
    // Each person reads as a card: the column names label the values.
    const card = page.getByRole('row', { name: new RegExp(email) })
    const labels = await card
      .getByRole('cell')
      .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell, '::before').content))
    expect(labels).toEqual([
      '"Name"',
      '"Status"',
      '"Role"',
      '"Position"',
      '"Last sign-in"',
      '"Actions"',
    ])
    await expectAccessible(page, 'the Personnel list on a phone')

    await revoke.click()
    const dialog = page.getByRole('dialog', { name: 'Revoke invitation?' })
    await expect(dialog).toContainText(email)
    // Colour contrast is judged once the dialog has faded in, not halfway through its transition.
    await expect
      .poll(() => dialog.evaluate((element) => getComputedStyle(element).opacity))
      .toBe('1')
    await expectAccessible(page, 'the revoke confirmation')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).toBeHidden()
    await expect(card.getByText('invited')).toBeVisible()

    await revoke.click()
    await page
      .getByRole('dialog', { name: 'Revoke invitation?' })
      .getByRole('button', { name: 'Revoke invitation' })
      .click()
    await expect(page.getByText(`Invitation to ${email} revoked.`)).toBeVisible()
    await expect(card.getByText('revoked')).toBeVisible()
  })

  test('4. accepting the Business Associates Agreement needs its signature, and signing accepts it', async ({
    page,
    request,
  }) => {
    await reachBilling(page, request, newPerson('Baa', 'Signer', '553'))
    const accept = page.getByRole('checkbox', {
      name: 'I agree to the Business Associates Agreement',
    })
    await expect(accept).not.toBeChecked()
    // Ticking without a signature opens the agreement to sign instead.
    await accept.click()
    await expect(stepHeading(page, 'Business Associates Agreement')).toBeVisible()
    await button(page, 'Back to Billing Information').click()
    await expect(accept).not.toBeChecked()

    await signAgreement(page, 'Baa Signer')
    await expect(accept).toBeChecked()
    await expect(
      page.getByText(/^Agreement signed by Baa Signer on \d{4}-\d{2}-\d{2}$/),
    ).toBeVisible()
    await fillCard(page, '4242 4242 4242 4242')
    await page.getByRole('checkbox', { name: 'I agree to the Terms and Conditions' }).check()
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Confirmation')).toBeVisible()
    await expect(page.getByRole('region', { name: 'Billing Information' })).toContainText(
      /Signed by Baa Signer on \d{4}-\d{2}-\d{2}/,
    )
  })

  test('5. locked values are read-only with normal contrast and a lock cue', async ({
    page,
    request,
    browser,
  }) => {
    const person = newPerson('Lok', 'Readable', '552')
    await openWizard(page)
    await fillClientDetails(page, person)
    await verifyPhone(page, request, person.phone)
    const phone = field(page, /^Phone number/)
    await expect(phone).toHaveAttribute('readonly', '')
    await expect(phone).not.toBeEditable()
    expect(await textContrast(phone)).toBeGreaterThanOrEqual(4.5)
    await expect(page.getByRole('img', { name: 'Locked' }).first()).toBeVisible()
    await expectAccessible(page, 'step 1 with the phone verified')

    // The invited person's e-mail and position.
    const email = `locked.${stamp}@example.com`
    const link = await inviteColleague(request, email, 'Provider')
    const context = await browser.newContext()
    const invitee = await context.newPage()
    await invitee.goto(link)
    const mail = invitee.getByLabel('Email')
    await expect(mail).toHaveValue(email)
    await expect(mail).not.toBeEditable()
    expect(await textContrast(mail)).toBeGreaterThanOrEqual(4.5)
    const position = invitee.getByLabel('Position')
    await expect(position).toHaveValue('Provider')
    expect(await textContrast(position)).toBeGreaterThanOrEqual(4.5)
    await expectAccessible(invitee, 'the registration with its locked fields')
    await context.close()

    // The paid card and billing fields.
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Account Setup')).toBeVisible()
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Billing Information')).toBeVisible()
    await fillCard(page, '4242 4242 4242 4242')
    await signAgreement(page)
    await page.getByRole('checkbox', { name: 'I agree to the Terms and Conditions' }).check()
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Confirmation')).toBeVisible()
    await button(page, 'Back').click()
    const holder = field(page, /^Cardholder name/)
    await expect(holder).toHaveValue('Ann Smith')
    await expect(holder).not.toBeEditable()
    expect(await textContrast(holder)).toBeGreaterThanOrEqual(4.5)
    expect(await textContrast(field(page, /^Billing city/))).toBeGreaterThanOrEqual(4.5)
    await expectAccessible(page, 'step 3 after payment')
  })

  test('6. tabbing through the billing address on a phone, the focused field is never under the sticky footer', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 700 })
    await reachBilling(page, request, newPerson('Tab', 'Footer', '551'))
    const footer = page.getByRole('button', { name: 'Continue', exact: true }).locator('..')
    await field(page, /^Billing address( \*)?$/).focus()
    for (let step = 0; step < 4; step += 1) {
      await page.keyboard.press('Tab')
      // The browser has scrolled the focused field into view by its next frame.
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      )
      const [focused, bar] = await Promise.all([
        page.evaluate(() => {
          const rect = document.activeElement?.getBoundingClientRect()
          return {
            name: document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id,
            top: rect?.top ?? 0,
            bottom: rect?.bottom ?? 0,
          }
        }),
        footer.boundingBox(),
      ])
      expect(bar).not.toBeNull()
      expect(
        focused.bottom,
        `the focused field ${focused.name} is hidden by the footer`,
      ).toBeLessThanOrEqual(bar?.y ?? 0)
      expect(focused.top).toBeGreaterThanOrEqual(0)
    }
  })

  test('7. every page has its own title, announced on navigation, and the shell has a skip link', async ({
    page,
    request,
    baseURL,
  }) => {
    // The prerendered sign-in page carries its title before any script runs. Fetched outside the
    // request context, so its XSRF cookie does not ride along on the API sign-in below.
    const html = await (await fetch(new URL('/signin', baseURL))).text()
    expect(html).toContain('<title>Sign In – Glow Rewards</title>')
    const signUpHtml = await (await fetch(new URL('/signup', baseURL))).text()
    expect(signUpHtml).toContain('<title>Sign Up – Glow Rewards</title>')

    await page.goto('/signin')
    await expect(page).toHaveTitle('Sign In – Glow Rewards')
    // The announcement is the app's, for a move inside it. A click before the app has taken the
    // prerendered page over (its scripts come after the first paint) is the browser's own
    // navigation to /signup, which screen readers announce as a new page.
    await interactive(page)
    await page.getByRole('link', { name: 'Sign Up' }).click()
    await expect(page).toHaveURL(/\/signup$/)
    await expect(page).toHaveTitle('Sign Up – Glow Rewards')
    await expect(
      page.getByRole('status').filter({ hasText: 'Sign Up – Glow Rewards' }),
    ).toHaveCount(1)

    await signedIn(page, request)
    await page.goto('/dashboard')
    await expect(page).toHaveTitle('Dashboard – Glow Rewards')
    await page.keyboard.press('Tab')
    const skip = page.getByRole('link', { name: 'Skip to content' })
    await expect(skip).toBeFocused()
    await expect(skip).toBeInViewport()
    await expectAccessible(page, 'the shell with the skip link in view')
    await page.keyboard.press('Enter')
    await expect(page.locator('#main-content')).toBeFocused()

    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Patients' })
      .click()
    await expect(page).toHaveTitle('Patients – Glow Rewards')
    await expect(
      page.getByRole('status').filter({ hasText: 'Patients – Glow Rewards' }),
    ).toHaveCount(1)
    await page.goto('/nowhere-at-all')
    await expect(page).toHaveTitle('Page not found – Glow Rewards')
  })

  test('8. the idle logoff says why on the sign-in page', async ({ page, request }) => {
    await page.clock.install()
    await signedIn(page, request, true)
    await page.goto('/dashboard')
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await page.clock.runFor(15 * 60_000 + 2_000)
    await expect(page).toHaveURL(/\/signin$/)
    await expect(
      page.getByRole('alert').filter({
        hasText: 'You were signed out after 15 minutes without activity.',
      }),
    ).toBeVisible()
    await expectAccessible(page, 'sign in after the idle logoff')
  })

  test('8. an ended session says so on the sign-in page', async ({ page, request }) => {
    const session = await signedIn(page, request, true)
    // The session ends elsewhere (signed out on another device).
    const ended = await request.post('/api/auth/logout', {
      headers: { Authorization: `Bearer ${session.jwt}` },
    })
    expect(ended.ok()).toBe(true)
    await page.goto('/dashboard')
    await expect(page).toHaveURL(/\/signin$/)
    await expect(
      page.getByRole('alert').filter({ hasText: 'Your session has ended. Please sign in again.' }),
    ).toBeVisible()
  })

  test('9. promo codes in any case, and a note when a term change drops the code', async ({
    page,
    request,
  }) => {
    await reachBilling(page, request, newPerson('Pro', 'Mo', '549'))
    const summary = page.getByRole('region', { name: 'Price summary' })
    await field(page, /^Promo code/).fill('welcome10')
    await button(page, 'Apply').click()
    await expect(page.getByText('Promo code WELCOME10 applied')).toBeVisible()
    await expect(summary).toContainText('Promo deduction (WELCOME10)')

    await page
      .locator('label')
      .filter({ hasText: /^Yearly$/ })
      .click()
    await expect(page.getByText('Promo code WELCOME10 applied')).toHaveCount(0)
    await expect(
      page.getByText('WELCOME10 no longer applies after the term change: press Apply again.'),
    ).toBeVisible()
    await expectAccessible(page, 'the promo note after a term change')

    // A private code, looked up on the server, in lower case too.
    await field(page, /^Promo code/).fill('save50off')
    await button(page, 'Apply').click()
    await expect(page.getByText('Promo code SAVE50OFF applied')).toBeVisible()
  })

  test('9. Check email opens the webmail of a known domain, and is not offered for others', async ({
    page,
  }) => {
    for (const [email, webmail] of [
      ['someone.new@gmail.com', 'https://mail.google.com/'],
      ['someone.new@outlook.com', 'https://outlook.live.com/mail/'],
      ['someone.new@example.com', null],
    ] as const) {
      await page.goto('/signin')
      // A plain button's click before the app has taken the prerendered page over does nothing.
      await interactive(page)
      await button(page, 'Forgot Password').click()
      // The sign-in form's Email field is there until the view has changed: wait for the form.
      await expect(button(page, 'Reset')).toBeVisible()
      await page.getByLabel(/^Email/).fill(email)
      await button(page, 'Reset').click()
      await expect(page.getByText('We have sent the link to your email')).toBeVisible()
      const check = page.getByRole('link', { name: /^Check email/ })
      if (webmail) {
        await expect(check).toHaveAttribute('href', webmail)
        await expect(check).toHaveAttribute('target', '_blank')
      } else {
        await expect(check).toHaveCount(0)
        await expect(page.locator('a[href^="mailto:"]')).toHaveCount(0)
      }
    }
  })

  test('9. an Amex number groups 4-6-5', async ({ page, request }) => {
    await reachBilling(page, request, newPerson('Am', 'Ex', '548'))
    const number = page.getByLabel(/^Card number/)
    await number.fill('378282246310005')
    await expect(number).toHaveValue('3782 822463 10005')
    await number.fill('4242424242424242')
    await expect(number).toHaveValue('4242 4242 4242 4242')
  })

  test('9. a confirm password that does not match reads the same on every form', async ({
    page,
    request,
    baseURL,
  }) => {
    const MISMATCH = 'Passwords should match'
    await openWizard(page)
    await page.getByLabel(/^Password/).fill('Glow!Pass123')
    await page.getByLabel(/^Confirm password/).fill('Glow!Pass124')
    await page.getByLabel(/^Confirm password/).blur()
    await expect(page.getByText(MISMATCH)).toBeVisible()

    const asked = new Date(Date.now() - 1000)
    const email = `reset.${stamp}@example.com`
    // A person of the practice who forgot the password: the reset form.
    const link = await inviteColleague(request, email)
    const registered = await registerColleague(
      page,
      request,
      link,
      nanpTestPhone(`547${stamp}`.slice(0, 10)),
    )
    expect(registered).toBe(email)
    const sent = await request.post('/api/auth/forgot-password', {
      data: { email, url: new URL('/reset', baseURL).href },
    })
    expect(sent.status()).toBe(200)
    const mail = await waitForMessage(request, 'email', email, { after: asked })
    await page.goto(mail.link ?? '')
    await expect(page.getByRole('heading', { name: 'Please enter a new password!' })).toBeVisible()
    await page.getByLabel(/^New password/).fill('Another!Pass1')
    await page.getByLabel(/^Confirm password/).fill('Another!Pass2')
    await button(page, 'Reset and Sign In').click()
    await expect(page.getByText(MISMATCH)).toBeVisible()
  })

  test('9. after registering, the sign-in e-mail is filled in', async ({ page, request }) => {
    const email = `prefill.${stamp}@example.com`
    const link = await inviteColleague(request, email)
    await registerColleague(page, request, link, nanpTestPhone(`546${stamp}`.slice(0, 10)))
    await expect(page.getByLabel(/^Email/)).toHaveValue(email)
    await expect(page.getByLabel(/^Password/)).toBeFocused()
  })

  test('9. step 3 copies the practice address as the billing address', async ({
    page,
    request,
  }) => {
    await openWizard(page)
    await passClientDetails(page, request, newPerson('Bil', 'Same', '545'))
    await expect(stepHeading(page, 'Account Setup')).toBeVisible()
    await field(page, /^Address( \*)?$/).fill('42 Practice Road')
    await field(page, /^City/).fill('Springfield')
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Billing Information')).toBeVisible()
    await field(page, /^Billing address( \*)?$/).fill('1 Elsewhere Lane')
    const same = page.getByRole('checkbox', { name: 'Billing address same as practice address' })
    await same.check()
    await expect(field(page, /^Billing address( \*)?$/)).toHaveValue('42 Practice Road')
    await expect(field(page, /^Billing city/)).toHaveValue('Springfield')
    await expectAccessible(page, 'billing same as practice')
  })

  test('9. after a reload, step 4 says the password must be typed again on step 1', async ({
    page,
    request,
  }) => {
    await reachBilling(page, request, newPerson('Rel', 'Oad', '544'))
    await fillCard(page, '4242 4242 4242 4242')
    await signAgreement(page)
    await page.getByRole('checkbox', { name: 'I agree to the Terms and Conditions' }).check()
    await button(page, 'Continue').click()
    await expect(stepHeading(page, 'Confirmation')).toBeVisible()
    const client = page.getByRole('region', { name: 'Client Information' })
    await expect(client).toContainText('••••••••')
    await page.reload()
    await expect(stepHeading(page, 'Confirmation')).toBeVisible()
    await expect(client).toContainText('Must be typed again on step 1')
    await expect(client).not.toContainText('••••••••')
  })
})

/**
 * Registers an invited colleague from the link (phone code from the outbox) and returns the
 * e-mail the form showed; the browser ends on /signin.
 */
async function registerColleague(
  page: Page,
  request: APIRequestContext,
  link: string,
  phone: string,
): Promise<string> {
  await page.goto(link)
  await expect(page.getByRole('heading', { level: 1, name: 'Registration' })).toBeVisible()
  const email = await page.getByLabel('Email').inputValue()
  await page.getByLabel(/^Phone number/).fill(phone)
  await page.getByLabel(/^Password/).fill('Welcome2026')
  await page.getByLabel(/^Confirm password/).fill('Welcome2026')
  const asked = new Date(Date.now() - 1000)
  await page.getByRole('button', { name: 'Get Code' }).click()
  const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: asked })
  await page.getByLabel('Confirmation code').fill(sms.code ?? '')
  await page.getByRole('button', { name: 'Verify Code' }).click()
  await expect(page.getByText('Phone number verified')).toBeVisible()
  await page.getByRole('button', { name: 'Submit' }).click()
  await expect(page).toHaveURL(/\/signin$/)
  return email
}

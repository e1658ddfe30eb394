/**
 * The whole sign-in and the whole sign-up wizard with the keyboard alone: Tab and Shift+Tab to
 * move, typing, Space for check boxes, arrows for radios and lists, Enter for buttons. No mouse
 * click and no programmatic focus: every field is reached by tabbing, which proves it is in the
 * tab order. Along the way: Continue moves focus to the next step's heading, a refused Continue
 * moves it to the first invalid field, and errors are announced (role="alert", aria-live).
 */
import type { Locator, Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { DEMO, expect, interactive, test, waitForMessage } from './support/fixtures.ts'

/** Presses Tab (or Shift+Tab) until `target` has the focus; fails when it never gets it. */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 60 } = {}) {
  // Attached, not visible: some controls focus a visually hidden input (SegmentedControl's radios).
  await target.waitFor({ state: 'attached' })
  for (let step = 0; step <= max; step++) {
    if (await target.evaluate((element) => element === document.activeElement)) return
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab')
  }
  throw new Error(`${target} never got the focus in ${max} ${backwards ? 'Shift+Tab' : 'Tab'}s`)
}

/** Tabs to a text field, clears it and types `text`. */
async function typeInto(page: Page, target: Locator, text: string) {
  await tabTo(page, target)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('Backspace')
  await page.keyboard.type(text)
}

/** Tabs to a button and presses Enter. */
async function press(page: Page, target: Locator) {
  await tabTo(page, target)
  await expect(target).toBeEnabled()
  await page.keyboard.press('Enter')
}

/** Picks `option` in a Mantine Select with the arrow keys and Enter. */
async function chooseWithKeys(page: Page, combobox: Locator, option: string) {
  await tabTo(page, combobox)
  await page.keyboard.press('ArrowDown')
  const highlighted = page.locator('[role="option"][data-combobox-selected]')
  for (let step = 0; step < 80; step++) {
    if ((await highlighted.count()) > 0 && (await highlighted.first().innerText()) === option) {
      await page.keyboard.press('Enter')
      await expect(combobox).toHaveValue(option)
      return
    }
    await page.keyboard.press('ArrowDown')
  }
  throw new Error(`option ${option} never came up in ${combobox}`)
}

const textbox = (page: Page, name: RegExp) => page.getByRole('textbox', { name })
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })
const stepHeading = (page: Page, name: string) =>
  page.getByRole('heading', { level: 2, name, exact: true })

test.describe('keyboard only', () => {
  test('signs in: a refused attempt is announced, then Remember me and Sign In', async ({
    page,
  }) => {
    await page.goto('/signin')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()

    const email = page.getByLabel(/^Email/)
    const password = page.getByLabel(/^Password/)
    await typeInto(page, email, DEMO.email)
    await typeInto(page, password, 'not-the-password')
    await press(page, button(page, 'Sign In'))
    const refusal = page.getByRole('alert').filter({ hasText: 'Invalid Email or Password' })
    await expect(refusal).toBeVisible()

    // Back up to the password with Shift+Tab and put the right one in.
    await tabTo(page, password, { backwards: true })
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type(DEMO.password)
    const remember = page.getByRole('checkbox', { name: 'Remember me' })
    await tabTo(page, remember)
    await page.keyboard.press('Space')
    await expect(remember).toBeChecked()
    await press(page, button(page, 'Sign In'))

    await expect(page).toHaveURL(/\/dashboard$/)
    expect(await page.evaluate(() => window.localStorage.getItem('currentUser'))).toContain(
      DEMO.email,
    )
  })

  test('completes the sign-up wizard, with focus on each step heading and on the first invalid field', async ({
    page,
    request,
  }) => {
    const id = `${Date.now()}`.slice(-7)
    const phone = nanpTestPhone(`557${id}`)
    const email = `keys.${id}@example.com`
    const password = 'Glow!Pass123'

    await page.goto('/signup')
    await page.evaluate(() => window.sessionStorage.clear())
    await page.reload()
    await expect(stepHeading(page, 'Client Information')).toBeVisible()
    // Prerendered: a field left before React takes the page over is not checked.
    await interactive(page)

    // Step 1. Leaving a required field empty shows its error as an alert.
    await tabTo(page, textbox(page, /^First name/))
    await page.keyboard.press('Tab')
    await expect(
      page.getByRole('alert').filter({ hasText: 'Please fill first name field' }),
    ).toBeVisible()
    await chooseWithKeys(page, page.getByRole('combobox', { name: /^Title/ }), 'Dr.')
    await typeInto(page, textbox(page, /^First name/), 'Kim')
    await expect(page.getByText('Please fill first name field')).toHaveCount(0)
    await typeInto(page, textbox(page, /^Last name/), 'Keyboard')
    await typeInto(page, textbox(page, /^Phone number/), phone)
    await typeInto(page, textbox(page, /^Email/), email)
    await typeInto(page, page.getByLabel(/^Password/), password)
    await typeInto(page, page.getByLabel(/^Confirm password/), password)
    await chooseWithKeys(page, page.getByRole('combobox', { name: /^Position/ }), 'Provider')

    const asked = new Date(Date.now() - 1000)
    await press(page, button(page, 'Get Code'))
    await expect(page.getByText('Confirmation Code is sent')).toBeVisible()
    const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: asked })
    await typeInto(page, textbox(page, /^Confirmation code/), sms.code ?? '')
    await press(page, button(page, 'Verify Code'))
    await expect(page.getByText('Phone number verified')).toBeVisible()
    await press(page, button(page, 'Continue'))

    // Step 2. Continue moved the focus to the heading; a refused Continue moves it to the field.
    await expect(stepHeading(page, 'Account Setup')).toBeFocused()
    const practiceName = textbox(page, /^Practice name/)
    await typeInto(page, practiceName, '')
    await press(page, button(page, 'Continue'))
    await expect(practiceName).toBeFocused()
    await expect(page.getByRole('alert').filter({ hasText: /practice name/i })).toBeVisible()
    await page.keyboard.type('Keyboard Clinic')
    const nextech = page.getByRole('radio', { name: 'Nextech' })
    await tabTo(page, page.getByRole('radio', { checked: true, name: 'No integration' }))
    await page.keyboard.press('ArrowRight')
    await expect(nextech).toBeChecked()
    await page.keyboard.press('ArrowLeft')
    await expect(page.getByRole('radio', { name: 'No integration' })).toBeChecked()
    await press(page, button(page, 'Continue'))

    // Step 3: the term with the arrows, the promo code, the card, both agreements.
    await expect(stepHeading(page, 'Billing Information')).toBeFocused()
    const summary = page.getByRole('region', { name: 'Price summary' })
    await tabTo(page, page.getByRole('radio', { name: 'Monthly' }))
    await page.keyboard.press('ArrowRight')
    await expect(page.getByRole('radio', { name: 'Yearly' })).toBeChecked()
    await expect(summary).toContainText('(Yearly)')
    await typeInto(page, textbox(page, /^Promo code/), 'WELCOME10')
    await press(page, button(page, 'Apply'))
    await expect(page.getByText('Promo code WELCOME10 applied')).toBeVisible()

    const cardNumber = page.getByLabel(/^Card number/)
    await typeInto(page, cardNumber, '')
    await press(page, button(page, 'Continue'))
    await expect(cardNumber).toBeFocused()
    await page.keyboard.type('4242 4242 4242 4242')
    await chooseWithKeys(page, page.getByRole('combobox', { name: /^Expiration month/ }), '12')
    await chooseWithKeys(page, page.getByRole('combobox', { name: /^Expiration year/ }), '2030')
    await typeInto(page, page.getByLabel(/^CVV/), '123')
    await typeInto(page, textbox(page, /^Cardholder name/), 'Kim Keyboard')

    await press(page, button(page, 'Terms and Conditions'))
    await expect(stepHeading(page, 'Terms and Conditions')).toBeVisible()
    await press(page, button(page, 'Back to Billing Information'))
    await press(page, button(page, 'Business Associates Agreement'))
    await expect(stepHeading(page, 'Business Associates Agreement')).toBeVisible()
    await typeInto(page, textbox(page, /^Signature/), 'Kim Keyboard')
    await typeInto(page, textbox(page, /^Signer's name/), 'Kim Keyboard')
    await press(page, button(page, 'Sign'))
    await expect(page.getByText(/^Signed by Kim Keyboard on /)).toBeVisible()
    await press(page, button(page, 'Back to Billing Information'))

    const terms = page.getByRole('checkbox', { name: /Terms and Conditions/ })
    if (!(await terms.isChecked())) {
      await tabTo(page, terms)
      await page.keyboard.press('Space')
    }
    await expect(terms).toBeChecked()
    await press(page, button(page, 'Continue'))

    // Step 4: review, then Submit.
    await expect(stepHeading(page, 'Confirmation')).toBeFocused()
    await expect(page.getByRole('region', { name: 'Account Setup' })).toContainText(
      'Keyboard Clinic',
    )
    await press(page, button(page, 'Submit'))
    await expect(page).toHaveURL(/\/thankyou$/)
    await expect(page.getByRole('heading', { name: 'Congratulations!' })).toBeVisible()
  })
})

import type { APIRequestContext, Locator, Page } from '@playwright/test'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { expect, interactive, waitForMessage } from './fixtures.ts'

/** A person who signs up; unique per call so that every availability check passes. */
export type Person = { first: string; last: string; phone: string; email: string; password: string }

/** A new person with a phone and an e-mail no other journey uses. */
export function newPerson(first = 'Ann', last = 'Smith', prefix = '554'): Person {
  const id = `${Date.now() % 10_000_000}${Math.floor(Math.random() * 1000)}`.slice(-7)
  return {
    first,
    last,
    // A valid North American number (the server refuses exchanges starting 0 or 1, and N11).
    phone: nanpTestPhone(`${prefix}${id.padStart(7, '0')}`),
    email: `${first.toLowerCase()}.${id}@example.com`,
    password: 'Glow!Pass123',
  }
}

/** A text field by its label. */
export const field = (page: Page, name: RegExp) => page.getByRole('textbox', { name })
/** A button by its exact name. */
export const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })
/** A wizard step's heading. */
export const stepHeading = (page: Page, name: string) =>
  page.getByRole('heading', { level: 2, name })

/** Picks an option of a Mantine select by the select's label. */
export async function choose(page: Page, label: RegExp, option: string) {
  const box = page.getByRole('combobox', { name: label })
  if ((await box.inputValue()) === option) return
  await interactive(page)
  await box.click()
  await page.getByRole('option', { name: option, exact: true }).click()
  await expect(box).toHaveValue(option)
}

/** Opens the wizard afresh (no progress from an earlier journey in this browser). */
export async function openWizard(page: Page) {
  await page.goto('/signup')
  await page.evaluate(() => window.sessionStorage.clear())
  await page.reload()
  await expect(stepHeading(page, 'Client Information')).toBeVisible()
  // The step arrives prerendered: what is typed before React takes it over is kept, but a field
  // left before then is not checked, so the journeys start once the page is React's.
  await interactive(page)
}

/** Fills step 1 (without the code). */
export async function fillClientDetails(page: Page, person: Person) {
  await choose(page, /^Title/, 'Dr.')
  await field(page, /^First name/).fill(person.first)
  await field(page, /^Last name/).fill(person.last)
  await field(page, /^Phone number/).fill(person.phone)
  await field(page, /^Email/).fill(person.email)
  await field(page, /^Password/).fill(person.password)
  await field(page, /^Confirm password/).fill(person.password)
  await choose(page, /^Position/, 'Provider')
}

/** Get Code, the code from the outbox, Verify Code: the phone is verified. */
export async function verifyPhone(page: Page, request: APIRequestContext, phone: string) {
  const asked = new Date(Date.now() - 1000)
  await expect(button(page, 'Continue')).toBeDisabled()
  await button(page, 'Get Code').click()
  await expect(page.getByText('Confirmation Code is sent')).toBeVisible()
  await expect(page.getByText(/You can ask for a new code in \d+ s/)).toBeVisible()
  const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: asked })
  expect(sms.code).toMatch(/^\d{6}$/)
  await field(page, /^Confirmation code/).fill(sms.code ?? '')
  await button(page, 'Verify Code').click()
  await expect(page.getByText('Phone number verified')).toBeVisible()
  await expect(field(page, /^Phone number/)).not.toBeEditable()
}

/** Step 1 with a verified phone, then Continue to step 2. */
export async function passClientDetails(page: Page, request: APIRequestContext, person: Person) {
  await fillClientDetails(page, person)
  await verifyPhone(page, request, person.phone)
  await button(page, 'Continue').click()
}

/** A fresh wizard up to step 3 (step 2 is pre-filled in test mode on localhost). */
export async function reachBilling(page: Page, request: APIRequestContext, person: Person) {
  await openWizard(page)
  await passClientDetails(page, request, person)
  await expect(stepHeading(page, 'Account Setup')).toBeVisible()
  await button(page, 'Continue').click()
  await expect(stepHeading(page, 'Billing Information')).toBeVisible()
  await expect(page.getByRole('region', { name: 'Price summary' })).toBeVisible()
}

/** Fills the card fields of step 3 with a test card. */
export async function fillCard(page: Page, number: string) {
  await page.getByLabel(/^Card number/).fill(number)
  await choose(page, /^Expiration month/, '12')
  await choose(page, /^Expiration year/, '2030')
  await page.getByLabel(/^CVV/).fill('123')
  await field(page, /^Cardholder name/).fill('Ann Smith')
}

/** Opens the Business Associates Agreement from step 3, signs it and goes back to step 3. */
export async function signAgreement(page: Page, name = 'Ann Smith') {
  await page.getByRole('button', { name: 'Business Associates Agreement' }).click()
  await expect(stepHeading(page, 'Business Associates Agreement')).toBeVisible()
  await field(page, /^Signature/).fill(name)
  await field(page, /^Signer's name/).fill(name)
  await button(page, 'Sign').click()
  await expect(page.getByText(/^Signed by .+ on \d{4}-\d{2}-\d{2}$/)).toBeVisible()
  await button(page, 'Back to Billing Information').click()
  await expect(stepHeading(page, 'Billing Information')).toBeVisible()
}

/** The WCAG contrast ratio of an element's text colour on the background behind it. */
export async function textContrast(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number)
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const [R, G, B] = [r, g, b].map((c) => {
        const s = c / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * (R ?? 0) + 0.7152 * (G ?? 0) + 0.0722 * (B ?? 0)
    }
    // The first opaque background from the element outwards.
    let node: Element | null = element
    let background = [255, 255, 255]
    while (node) {
      const parts = rgb(getComputedStyle(node).backgroundColor)
      if (parts.length >= 3 && (parts.length < 4 || (parts[3] ?? 0) > 0.9)) {
        background = parts.slice(0, 3)
        break
      }
      node = node.parentElement
    }
    const style = getComputedStyle(element)
    const colour = rgb(style.color).slice(0, 3)
    const opacity = Number(style.opacity)
    // A faded element blends its text into the background.
    const seen = colour.map((c, i) => c * opacity + (background[i] ?? 255) * (1 - opacity))
    const [a, b] = [luminance(seen), luminance(background)].sort((x, y) => y - x)
    return ((a ?? 0) + 0.05) / ((b ?? 0) + 0.05)
  })
}

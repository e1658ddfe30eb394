import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { ROOT } from './processes.ts'

/** Layout shift measured while one group of errors appeared and went away again. */
export type ShiftPhase = {
  name: string
  /** Sum of every layout-shift entry, also those right after input (which CLS leaves out). */
  totalShift: number
  /** Sum of the entries CLS counts (no input in the 500 ms before). */
  cls: number
  /** What moved, for the shifts seen (`tag#id.class "text"`). */
  movedNodes: string[]
  /** Set when the phase could not be reached; the figures are then NaN. */
  error?: string
}

/** The wizard's layout-shift figures at one viewport. */
export type WizardShift = { viewport: string; phases: ShiftPhase[] }

type Entry = { value: number; hadRecentInput: boolean; sources: string[] }

declare global {
  interface Window {
    __layoutShifts?: Entry[]
    __layoutShiftsObserved?: boolean
  }
}

/**
 * Collects every layout-shift entry of the page into `window.__layoutShifts`. A string, not a
 * function: tsx wraps named functions in a helper that does not exist in the page.
 */
const OBSERVE_SHIFTS = `
  window.__layoutShifts = [];
  (() => {
    const describe = (node) => {
      if (!(node instanceof Element)) return node ? node.nodeName : '?';
      const id = node.id ? '#' + node.id : '';
      const cls = node.classList[0] ? '.' + node.classList[0] : '';
      return node.tagName.toLowerCase() + id + cls + ' "' + (node.textContent || '').trim().slice(0, 30) + '"';
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__layoutShifts.push({
          value: entry.value,
          hadRecentInput: entry.hadRecentInput,
          sources: (entry.sources || []).map((source) => describe(source.node)),
        });
      }
    }).observe({ type: 'layout-shift', buffered: true });
    window.__layoutShiftsObserved = true;
  })();
`

async function settle(page: Page) {
  // Two frames: the shift of the last render is reported after it is painted.
  await page.evaluate(
    () =>
      new Promise<void>((done) =>
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50))),
      ),
  )
}

async function phase(page: Page, name: string, work: () => Promise<void>): Promise<ShiftPhase> {
  await settle(page)
  const start = await page.evaluate(() => window.__layoutShifts?.length ?? 0)
  try {
    await work()
    await settle(page)
  } catch (error) {
    // What the page showed when the phase failed, for a closer look.
    const slug = name.replace(/[^\w]+/g, '-')
    await page
      .screenshot({ path: join(ROOT, '.tmp', 'bench', `wizard-${slug}.png`), fullPage: true })
      .catch(() => {})
    return {
      name,
      totalShift: Number.NaN,
      cls: Number.NaN,
      movedNodes: [],
      error: error instanceof Error ? error.message.split('\n')[0] : String(error),
    }
  }
  const entries = await page.evaluate((from) => (window.__layoutShifts ?? []).slice(from), start)
  return {
    name,
    totalShift: entries.reduce((sum, entry) => sum + entry.value, 0),
    cls: entries.filter((e) => !e.hadRecentInput).reduce((sum, e) => sum + e.value, 0),
    movedNodes: [...new Set(entries.flatMap((entry) => entry.sources))],
  }
}

type OutboxAnswer = { messages: { channel: string; to: string; code?: string | null }[] }

async function codeFromOutbox(baseUrl: string, phone: string): Promise<string> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const response = await fetch(`${baseUrl}/api/dev/outbox`)
    const { messages } = (await response.json()) as OutboxAnswer
    const code = messages.find((m) => m.channel === 'sms' && m.to.endsWith(phone))?.code
    if (code) return code
    await new Promise((done) => setTimeout(done, 200))
  }
  throw new Error(`no code for ${phone} in the outbox`)
}

const textbox = (page: Page, name: RegExp) => page.getByRole('textbox', { name })
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })
/** The error texts under fields (Mantine's static class of an input's error). */
const fieldErrors = (page: Page) => page.locator('.mantine-InputWrapper-error')

/** The error under one field (the error of the Mantine input wrapper that holds it). */
const errorOf = (page: Page, field: Locator) =>
  page.locator('.mantine-InputWrapper-root', { has: field }).locator('.mantine-InputWrapper-error')

async function choose(page: Page, label: RegExp, option: string) {
  await page.getByRole('combobox', { name: label }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
}

/**
 * Walks the sign-up wizard at one viewport and measures the layout shift of each moment errors
 * appear and disappear: step 1's required fields left empty (errors on leaving a field) and then
 * filled; step 2 with its practice name cleared and Continue pressed (errors), then filled;
 * step 3's Continue without card number and cardholder (their errors), then both filled (their
 * errors gone; the agreement that needs a signature keeps its own). Needs the development outbox
 * (a server not in production mode) for the SMS code.
 */
export async function measureWizardShift(
  browser: Browser,
  baseUrl: string,
  viewport: { width: number; height: number },
): Promise<WizardShift> {
  const context = await browser.newContext({ viewport })
  await context.addInitScript({ content: OBSERVE_SHIFTS })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const id = `${Date.now() % 10_000_000}`.padStart(7, '0')
  const person = {
    // The clock's digits made an exchange starting with 1 (555-19x-…), which the numbering plan
    // and so Get Code refuse: the shared helper moves it to an allowed one.
    phone: nanpTestPhone(`555${id}`),
    email: `shift.${id}.${viewport.width}@example.com`,
    password: 'Glow!Pass123',
  }
  const phases: ShiftPhase[] = []
  try {
    await page.goto(`${baseUrl}/signup`)
    await page.evaluate(() => window.sessionStorage.clear())
    await page.reload()
    await page.getByRole('heading', { level: 2, name: 'Client Information' }).waitFor()
    if (!(await page.evaluate(() => window.__layoutShiftsObserved))) {
      throw new Error('the layout-shift observer did not start in the page')
    }

    const required = [/^First name/, /^Last name/, /^Phone number/, /^Email/]
    phases.push(
      await phase(page, 'step 1: errors appear (fields left empty)', async () => {
        for (const name of required) {
          await textbox(page, name).focus()
          await page.keyboard.press('Tab')
        }
        await fieldErrors(page).first().waitFor()
      }),
    )
    phases.push(
      await phase(page, 'step 1: errors go away (fields filled)', async () => {
        await textbox(page, /^First name/).fill('Ann')
        await textbox(page, /^Last name/).fill('Shift')
        await textbox(page, /^Phone number/).fill(person.phone)
        await textbox(page, /^Email/).fill(person.email)
        await page.getByLabel(/^Password/).fill(person.password)
        await page.getByLabel(/^Confirm password/).fill(person.password)
        await choose(page, /^Position/, 'Provider')
        await fieldErrors(page).first().waitFor({ state: 'detached' })
      }),
    )

    await button(page, 'Get Code').click()
    await textbox(page, /^Confirmation code/).fill(await codeFromOutbox(baseUrl, person.phone))
    await button(page, 'Verify Code').click()
    await page.getByText('Phone number verified').waitFor()
    await button(page, 'Continue').click()
    await page.getByRole('heading', { level: 2, name: 'Account Setup' }).waitFor()

    const practiceName = textbox(page, /^Practice name/)
    const saved = await practiceName.inputValue()
    phases.push(
      await phase(page, 'step 2: errors appear (refused Continue)', async () => {
        await practiceName.fill('')
        await button(page, 'Continue').click()
        await fieldErrors(page).first().waitFor()
      }),
    )
    phases.push(
      await phase(page, 'step 2: errors go away (field filled)', async () => {
        await practiceName.fill(saved || 'Shift Clinic')
        await fieldErrors(page).first().waitFor({ state: 'detached' })
      }),
    )
    await button(page, 'Continue').click()
    await page.getByRole('heading', { level: 2, name: 'Billing Information' }).waitFor()

    // In test mode on a local server the card is pre-filled: cleared here, so Continue refuses.
    const cardNumber = page.getByLabel(/^Card number/)
    const cardholder = textbox(page, /^Cardholder name/)
    phases.push(
      await phase(page, 'step 3: errors appear (refused Continue)', async () => {
        await cardNumber.fill('')
        await cardholder.fill('')
        await button(page, 'Continue').click()
        await errorOf(page, cardNumber).waitFor()
        await errorOf(page, cardholder).waitFor()
      }),
    )
    phases.push(
      await phase(page, 'step 3: errors go away (card filled)', async () => {
        await cardNumber.fill('4242 4242 4242 4242')
        await cardholder.fill('Ann Shift')
        // The card's own errors: the Business Associates Agreement, which needs a signature,
        // keeps its error through this phase.
        await errorOf(page, cardNumber).waitFor({ state: 'detached' })
        await errorOf(page, cardholder).waitFor({ state: 'detached' })
      }),
    )
  } catch (error) {
    phases.push({
      name: 'walking the wizard',
      totalShift: Number.NaN,
      cls: Number.NaN,
      movedNodes: [],
      error: error instanceof Error ? error.message.split('\n')[0] : String(error),
    })
  } finally {
    await context.close()
  }
  return { viewport: `${viewport.width}x${viewport.height}`, phases }
}

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type APIRequestContext, test as base, expect, type Page } from '@playwright/test'
import type { AxeResults, RunOptions } from 'axe-core'
import { startWorkerServer } from './servers.ts'

export { expect }

/** The areas of the signed-in shell, as paths below the site's root. */
export const AREAS = [
  'dashboard',
  'appointments',
  'patients',
  'promotions',
  'procedures',
  'personnel',
  'archive',
  'settings',
] as const

/** The footer links that open a page of the portal, with the heading each page shows. */
export const FOOTER_PAGE_HEADINGS: Record<string, string> = {
  About: 'About Glow Rewards',
  Privacy: 'Terms and Conditions',
  Terms: 'Terms and Conditions',
  Agreements: 'Business Associates Agreement',
}

/** A seeded account the journeys sign in with. */
export type Account = { readonly email: string; readonly password: string }

/** The seeded demo Admin. */
export const DEMO = { email: 'demo@example.com', password: 'DemoPass123' } as const
/** The seeded Manager of the demo practice. */
export const MANAGER = { email: 'manager@example.com', password: 'ManagerPass123' } as const
/** The seeded staff member of the demo practice. */
export const STAFF = { email: 'staff@example.com', password: 'StaffPass123' } as const

export type OutboxMessage = {
  channel: 'sms' | 'email'
  to: string
  subject?: string | null
  text: string
  code?: string | null
  link?: string | null
  sentAt: string
}

/** Every message the development outbox holds, newest first. */
export async function readOutbox(request: APIRequestContext): Promise<OutboxMessage[]> {
  const response = await request.get('/api/dev/outbox')
  expect(response.ok()).toBeTruthy()
  const body = (await response.json()) as { messages: OutboxMessage[] }
  return body.messages
}

/**
 * Waits for the newest outbox message on a channel to an address (e-mail or phone), sent at or
 * after `after` and, when `where` is given, the newest that it accepts (another message to the same
 * address, a notice the queue sends meanwhile, is not the one awaited).
 */
export async function waitForMessage(
  request: APIRequestContext,
  channel: OutboxMessage['channel'],
  to: string,
  {
    after = new Date(0),
    timeout = 10_000,
    where = (_message: OutboxMessage) => true,
  }: { after?: Date; timeout?: number; where?: (message: OutboxMessage) => boolean } = {},
): Promise<OutboxMessage> {
  const deadline = Date.now() + timeout
  while (Date.now() < deadline) {
    const found = (await readOutbox(request)).find(
      (message) =>
        message.channel === channel &&
        message.to.toLowerCase() === to.toLowerCase() &&
        new Date(message.sentAt) >= after &&
        where(message),
    )
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`No ${channel} message to ${to} arrived in the outbox within ${timeout} ms`)
}

export type ApiSession = {
  jwt: string
  user: { id: number; first_name: string; last_name: string; email: string; access_rights: string }
  practice: { id: number; practice_name: string; image_path: string | null }
}

// One API session per account for the whole run (renewed after a sign-out ended it): the server
// allows 30 sign-ins per client address in 5 minutes, and every journey comes from 127.0.0.1.
// Journeys that test sign-in itself use the UI.
const sessions = new Map<string, ApiSession>()

/** Signs in through the real API (once per account per run, again after a sign-out) and returns `{jwt, user, practice}`. */
export async function apiSignIn(
  request: APIRequestContext,
  email: string = DEMO.email,
  password: string = DEMO.password,
  { fresh = false } = {},
): Promise<ApiSession> {
  const key = `${email.toLowerCase()}\n${password}`
  const cached = sessions.get(key)
  if (cached && !fresh) {
    // A journey that signed this account out (the SPA's /logout ends its sessions on the server)
    // made the cached token useless: check it, and sign in again only then.
    const check = await request.get('/api/users-permissions/init', {
      headers: { Authorization: `Bearer ${cached.jwt}` },
    })
    if (check.ok()) return cached
  }
  const response = await request.post('/api/auth/local', {
    data: { identifier: email, password },
  })
  expect(response.status(), await response.text()).toBe(200)
  const session = (await response.json()) as ApiSession
  sessions.set(key, session)
  return session
}

/**
 * Stores a session the way the SPA does (sessionStorage, or localStorage with Remember me). The
 * storage belongs to the app's origin, so it is written on a static file of that origin (the
 * favicon): no app to load and render before the page the journey opens next.
 */
export async function storeSession(page: Page, session: unknown, remember = false) {
  await page.goto('/favicon.svg')
  await page.evaluate(
    ([value, useLocal]) => {
      const storage = useLocal ? window.localStorage : window.sessionStorage
      storage.setItem('currentUser', JSON.stringify(value))
    },
    [session, remember] as const,
  )
}

/** Adds a patient through the API as `session` and returns the created patient (answer 201). */
export async function createPatient<T extends { id: number } = { id: number }>(
  request: APIRequestContext,
  session: { jwt: string },
  data: Record<string, unknown>,
): Promise<T> {
  const created = await request.post('/api/patients', {
    headers: { Authorization: `Bearer ${session.jwt}` },
    data,
  })
  expect(created.status(), await created.text()).toBe(201)
  return (await created.json()) as T
}

/** Adjusts a patient's points through the API as `session` (answer 201). */
export async function adjustPoints(
  request: APIRequestContext,
  session: { jwt: string },
  patientId: number,
  adjustment: { points: number; reason: string; idempotencyKey: string },
) {
  const adjusted = await request.post(`/api/patients/${patientId}/adjustments`, {
    headers: { Authorization: `Bearer ${session.jwt}` },
    data: adjustment,
  })
  expect(adjusted.status(), await adjusted.text()).toBe(201)
}

/** Stores `session` as the signed-in user ({@link storeSession}), then opens `url`. */
export async function openAs(page: Page, session: unknown, url: string) {
  await storeSession(page, session)
  await page.goto(url)
}

/**
 * Signs `account` in through the API ({@link apiSignIn}; the demo Admin unless told), stores its
 * session in the page and opens `url` ({@link openAs}). Returns the session.
 */
export async function openSignedIn(
  page: Page,
  request: APIRequestContext,
  url: string,
  account: Account = DEMO,
): Promise<ApiSession> {
  const session = await apiSignIn(request, account.email, account.password)
  await openAs(page, session, url)
  return session
}

/**
 * Waits until a prerendered page is React's (src/main.tsx drops `data-prerendered` from the root
 * once the hydrated page is mounted). Typing and sending a form before that are kept by the page;
 * a click that opens a select is not, so pickers wait for this first.
 */
export async function interactive(page: Page) {
  await expect(page.locator('#root[data-prerendered]')).toHaveCount(0)
}

/**
 * Waits until the page has settled, as a person would see it: nothing loading (no loader, no
 * visible skeleton, nothing `aria-busy`, no "Please wait..."), no transition or animation still
 * running (a dialog fading in, a menu sliding down), and no dialog, menu or list of options still
 * transparent (Mantine paints a dialog at opacity 0 for a frame before its fade starts). Quiet on
 * two looks in a row, 50 ms apart, so that a fade about to start is not taken for the end of one.
 * Waits on what the page shows, never a delay.
 */
export async function settled(page: Page) {
  await page.evaluate(() => {
    ;(window as unknown as { quietLooks: number }).quietLooks = 0
  })
  await page.waitForFunction(
    () => {
      const state = window as unknown as { quietLooks: number }
      const quiet = (() => {
        const loading = document.querySelector(
          '[aria-busy="true"], .mantine-Loader-root, .mantine-Skeleton-root[data-visible]',
        )
        if (loading) return false
        if (document.body.innerText.includes('Please wait...')) return false
        // Finite transitions and animations only: an endless one (a spinner) never ends.
        const moving = document
          .getAnimations()
          .some(
            (animation) =>
              animation.playState === 'running' &&
              animation.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY,
          )
        if (moving) return false
        for (const layer of document.querySelectorAll(
          '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]',
        )) {
          // Not rendered at all (display: none, visibility: hidden): nothing to fade.
          if (!layer.checkVisibility({ visibilityProperty: true })) continue
          for (let node: Element | null = layer; node; node = node.parentElement) {
            if (Number(getComputedStyle(node).opacity) < 1) return false
          }
        }
        return true
      })()
      state.quietLooks = quiet ? state.quietLooks + 1 : 0
      return state.quietLooks >= 2
    },
    undefined,
    { polling: 50 },
  )
}

/** axe-core's script, read once per worker and put into a page the first time it is checked. */
let axeSource: string | undefined

/**
 * Runs axe on the page once it has {@link settled} and returns its violations (empty when the page
 * passes): axe reads colours as painted, so a dialog still fading in would fail its contrast check.
 * axe-core runs in the page itself, put there once per document, asked for violations only and
 * not into the frames of others (hCaptcha's, Stripe's): about a fifth of the time of
 * `@axe-core/playwright`, which puts axe into every frame and finishes each run in a new page.
 */
export async function axeViolations(page: Page) {
  await settled(page)
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  // Evaluated by the browser's debugger protocol, so the page's CSP (no eval) does not apply.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const scope = window as unknown as {
      axe: { run: (context: Document, options: RunOptions) => Promise<AxeResults> }
    }
    const results = await scope.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] },
      resultTypes: ['violations'],
      iframes: false,
    })
    return results.violations
  })
  return violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }))
}

/** The real server of this worker (support/servers.ts). */
export type WorkerServer = {
  url: string
  port: number
  databaseUrl: string
  /** One SQL statement on the worker's database, on either engine (support/servers.ts). */
  query(text: string, params?: unknown[]): Promise<void>
}

/**
 * Our test: Playwright's, against this worker's own server (its `baseURL`), with a page that fails
 * on uncaught page errors.
 */
export const test = base.extend<{ pageErrors: string[] }, { server: WorkerServer }>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use, workerInfo) => {
      const server = await startWorkerServer(workerInfo.parallelIndex)
      await use(server)
      await server.stop()
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      await use(errors)
      expect(errors, 'uncaught errors in the page').toEqual([])
    },
    { auto: true },
  ],
})

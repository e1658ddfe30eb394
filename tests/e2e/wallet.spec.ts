import { mkdirSync } from 'node:fs'
import type { APIRequestContext, Page } from '@playwright/test'
import { MEMBERSHIP_AGREEMENT, type Membership, type Plan } from '#domain/memberships.ts'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { WALLET_MESSAGES } from '#domain/wallet.ts'
import {
  type ApiSession,
  adjustPoints,
  apiSignIn,
  axeViolations,
  createPatient,
  expect,
  settled,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import { scrollsSideways } from './support/screens.ts'

// The patient's wallet (issue 35) in Chromium at 390 px, through the real server and its test
// gateway: a member of the demo practice whose renewal was declined opens the practice's short
// link, signs in with the code from the outbox, sees the balance and the past-due membership,
// claims an offer, updates the card (the retry charges once), turns SMS off, reads the wallet
// offline from what it last showed, and logs out.

test.describe.configure({ timeout: 240_000 })

const PHONE = { width: 390, height: 844 } as const
const DESKTOP = { width: 1440, height: 900 } as const
/** Screenshots to look at, never committed. */
const SHOTS = process.env.WALLET_SHOTS_DIR ?? '/tmp/wallet-shots'
const DAY_MS = 24 * 60 * 60 * 1000

async function ok<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, status = 200) {
  expect(response.status(), await response.text()).toBe(status)
  return (await response.json()) as T
}

async function cardToken(request: APIRequestContext, number: string): Promise<string> {
  const token = await request.post('/api/payments/test-tokens', {
    data: { number, exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  return (await ok<{ id: string }>(token)).id
}

/**
 * A patient of the demo practice with an e-mail and a phone, enrolled in a monthly plan of its
 * own with 4242…, then 4000 0000 0000 0341 (declines) put on file and the billing clock moved to
 * the renewal: past due.
 */
async function pastDueMember(request: APIRequestContext) {
  const admin = await apiSignIn(request)
  const auth = { Authorization: `Bearer ${admin.jwt}` }
  const stamp = `${Date.now()}`.slice(-7)
  const account = await ok<{ connected: boolean }>(
    await request.get('/api/practice/payments', { headers: auth }),
  )
  if (!account.connected) {
    await ok(await request.post('/api/practice/payments/connect', { headers: auth, data: {} }))
  }
  const planName = `Wallet Club ${stamp}`
  const plan = await ok<Plan>(
    await request.post('/api/membership-plans', {
      headers: auth,
      data: {
        name: planName,
        description: 'Member prices and a monthly bank.',
        price_cents: 9_900,
        interval: 'month',
        setup_fee_cents: 0,
        min_cycles: 1,
        notice_days: 0,
        perks: {
          bank_cents: 5_000,
          allowances: [],
          discount_percent: 10,
          discount_item_ids: [],
          points_multiplier: 1,
          join_bonus_points: 0,
        },
      },
    }),
    201,
  )
  const email = `wallet.member${stamp}@example.com`
  const patient = await createPatient(request, admin, {
    first_name: 'Wren',
    last_name: `Member${stamp}`,
    email,
    phone: nanpTestPhone(`557${stamp}`),
    email_subscription: true,
    sms_subscription: true,
  })
  await adjustPoints(request, admin, patient.id, {
    points: 1_250,
    reason: 'Welcome gift',
    idempotencyKey: `e2e-wallet-points-${stamp}`,
  })
  const membership = await ok<Membership>(
    await request.post(`/api/patients/${patient.id}/memberships`, {
      headers: auth,
      data: {
        plan_id: plan.id,
        payment_method_token: await cardToken(request, '4242424242424242'),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Wren Member' },
        idempotencyKey: `e2e-wallet-${stamp}`,
      },
    }),
    201,
  )
  await ok(
    await request.put(`/api/memberships/${membership.id}/card`, {
      headers: auth,
      data: { payment_method_token: await cardToken(request, '4000000000000341') },
    }),
  )
  const clock = await ok<{ now: string }>(
    await request.post('/api/dev/clock', { data: { days: 0 } }),
  )
  const days = Math.ceil(
    (Date.parse(membership.current_period_end) - Date.parse(clock.now)) / DAY_MS,
  )
  await ok(await request.post('/api/dev/clock', { data: { days: Math.max(1, days) } }))
  const pastDue = await readMembership(request, admin, membership.id)
  expect(pastDue.status).toBe('past_due')
  return { admin, auth, email, patient, membership, planName }
}

async function readMembership(request: APIRequestContext, session: ApiSession, id: number) {
  return ok<Membership>(
    await request.get(`/api/memberships/${id}`, {
      headers: { Authorization: `Bearer ${session.jwt}` },
    }),
  )
}

async function charges(request: APIRequestContext, session: ApiSession, id: number) {
  const events = await ok<{ data: { kind: string }[] }>(
    await request.get(`/api/memberships/${id}/events`, {
      headers: { Authorization: `Bearer ${session.jwt}` },
    }),
  )
  return events.data.filter((event) => event.kind === 'charged').length
}

/** axe clean, nothing off to the side, and a full-page screenshot at both widths. */
async function look(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport)
    await settled(page)
    expect(await axeViolations(page), `axe on ${name} at ${viewport.width} px`).toEqual([])
    expect(await scrollsSideways(page), `${name} scrolls sideways at ${viewport.width}`).toBe(false)
    await page.screenshot({
      path: `${SHOTS}/${name}-${viewport.width}.png`,
      fullPage: true,
      animations: 'disabled',
    })
  }
}

/** Whether the service worker keeps a `/me` answer (for offline reading). */
function keptAnswers(page: Page): Promise<number> {
  return page.evaluate(async () => {
    if (!(await caches.has('glow-wallet-data-v1'))) return 0
    return (await (await caches.open('glow-wallet-data-v1')).keys()).length
  })
}

test('wallet: a past-due member signs in with a code, claims an offer, pays by a new card once, turns SMS off, reads offline and logs out', async ({
  page,
  context,
  request,
}) => {
  const { admin, email, patient, membership, planName } = await pastDueMember(request)
  const practiceId = admin.practice.id
  await page.setViewportSize(PHONE)

  // The short link a practice prints or texts opens the practice's wallet.
  await page.goto(`/w/${practiceId}`)
  await expect(page).toHaveURL(new RegExp(`/wallet/${practiceId}$`))
  await expect(page.getByRole('heading', { name: 'Sign in to your wallet' })).toBeVisible()
  await expect(page).toHaveTitle(/· Your wallet$/)
  await look(page, 'wallet-sign-in')

  await page.getByLabel('E-mail or mobile phone').fill(email)
  const askedAt = new Date(Date.now() - 1000)
  await page.getByRole('button', { name: 'Send me a code' }).click()
  // The decline notice of the past-due renewal goes to the same address, queued meanwhile.
  const message = await waitForMessage(request, 'email', email, {
    after: askedAt,
    where: (sent) => /is your .* wallet code$/.test(sent.subject ?? ''),
  })
  const code = /\b(\d{6})\b/.exec(message.text)?.[1]
  expect(code, message.text).toBeTruthy()
  await page.getByLabel('6-digit code').fill(code ?? '')
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()

  // Signed in: the practice, the balance and the past-due membership first.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(admin.practice.practice_name)
  await expect(page.getByRole('heading', { name: 'Hi Wren' })).toBeVisible()
  await expect(page.getByText('1,250 points', { exact: true })).toBeVisible()
  await expect(page.getByText(/^worth \$[\d,.]+ at /)).toBeVisible()
  await expect(
    page.getByRole('region', { name: 'History' }).getByText(/Welcome gift/),
  ).toBeVisible()
  const plan = page.getByRole('region', { name: 'Membership' })
  await expect(plan.getByText(planName)).toBeVisible()
  await expect(plan.getByText('Past due', { exact: true })).toBeVisible()
  await expect(plan.getByRole('alert')).toContainText('$99.00 is due.')
  await look(page, 'wallet-home-past-due')
  await page.setViewportSize(PHONE)

  // An offer claimed.
  const offers = page.getByRole('region', { name: 'Offers' })
  const claim = offers.getByRole('button', { name: /^Claim / }).first()
  const offerTitle = ((await claim.getAttribute('aria-label')) ?? '').replace(/^Claim /, '')
  await claim.click()
  await expect(offers.getByRole('status')).toHaveText(WALLET_MESSAGES.offerClaimed)
  const claimed = offers.getByRole('listitem').filter({ hasText: offerTitle })
  await expect(claimed.getByText('Claimed', { exact: true })).toBeVisible()
  await expect(claimed.getByRole('button')).toHaveCount(0)

  // A new card pays what is due, once.
  const chargedBefore = await charges(request, admin, membership.id)
  await plan.getByRole('button', { name: 'Update card' }).click()
  const form = plan.getByRole('form', { name: 'New card' })
  await form.getByLabel(/^Card number/).fill('4242424242424242')
  await form.getByRole('combobox', { name: /^Expiration month/ }).click()
  await page.getByRole('option', { name: '12', exact: true }).click()
  await form.getByRole('combobox', { name: /^Expiration year/ }).click()
  await page.getByRole('option', { name: '2030', exact: true }).click()
  await form.getByLabel(/^CVV/).fill('123')
  await form.getByLabel(/^Cardholder name/).fill('Wren Member')
  await look(page, 'wallet-card-form')
  await page.setViewportSize(PHONE)
  await form.getByRole('button', { name: 'Save card and pay $99.00' }).click()
  await expect(plan.getByRole('status')).toContainText('$99.00 was charged')
  await expect(plan.getByText('Active', { exact: true })).toBeVisible()
  await expect(plan.getByRole('alert')).toHaveCount(0)
  expect(await charges(request, admin, membership.id)).toBe(chargedBefore + 1)
  expect((await readMembership(request, admin, membership.id)).status).toBe('active')

  // SMS off, e-mail kept.
  const consent = page.getByRole('region', { name: 'Messages from the practice' })
  const sms = consent.getByRole('switch', { name: /Text messages/ })
  await expect(sms).toBeChecked()
  await sms.click()
  await expect(sms).not.toBeChecked()
  await consent.getByRole('button', { name: 'Save my choices' }).click()
  await expect(consent.getByRole('status')).toHaveText(WALLET_MESSAGES.consentSaved)
  const stored = await ok<{ sms_subscription: boolean; email_subscription: boolean }>(
    await request.get(`/api/patients/${patient.id}`, {
      headers: { Authorization: `Bearer ${admin.jwt}` },
    }),
  )
  expect(stored).toMatchObject({ sms_subscription: false, email_subscription: true })
  await look(page, 'wallet-home-paid')
  await page.setViewportSize(PHONE)

  // Offline: the wallet as it last showed, from the service worker, under a banner.
  await expect.poll(() => keptAnswers(page)).toBe(1)
  await context.setOffline(true)
  await page.reload()
  await expect(page.getByRole('status', { name: 'You are offline' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Hi Wren' })).toBeVisible()
  await expect(plan.getByText('Active', { exact: true })).toBeVisible()
  await expect(
    offers.getByRole('listitem').filter({ hasText: offerTitle }).getByText('Claimed'),
  ).toBeVisible()
  await expect(consent.getByRole('switch', { name: /Text messages/ })).not.toBeChecked()
  await look(page, 'wallet-offline')
  await page.setViewportSize(PHONE)
  await context.setOffline(false)

  // Log out: the session ends on the server, and nothing is kept on the device.
  const token = await page.evaluate(
    (id) => JSON.parse(localStorage.getItem(`glow.wallet.session.${id}`) ?? '{}').token as string,
    practiceId,
  )
  await page.getByRole('button', { name: 'Log out' }).click()
  await expect(page.getByRole('status')).toHaveText(WALLET_MESSAGES.signedOutNow)
  await expect(page.getByRole('heading', { name: 'Sign in to your wallet' })).toBeVisible()
  expect(await keptAnswers(page)).toBe(0)
  const after = await request.get('/api/wallet/me', {
    headers: { Authorization: `Bearer ${token}` },
  })
  expect(after.status()).toBe(401)
  await look(page, 'wallet-signed-out')
})

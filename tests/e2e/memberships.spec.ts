import type { APIRequestContext, Locator, Page } from '@playwright/test'
import type { Membership } from '#domain/memberships.ts'
import {
  type ApiSession,
  apiSignIn,
  createPatient,
  expect,
  openAs,
  readOutbox,
  test,
} from './support/fixtures.ts'
import { registerColleague, signUpPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'

// Memberships (issue 33), through the real server and its test gateway: an Admin connects
// payments, a Manager builds a yearly plan, the desk enrols a patient with 4242… and the
// consent; a year later the renewal is paid; with 4000 0000 0000 0341 on file the next renewal is
// declined, the patient's e-mail links to the card page, and 4242 there pays the cycle once.

test.describe.configure({ timeout: 240_000 })

const shoot = screens('issue-33')
const DAY_MS = 24 * 60 * 60 * 1000

/** Moves the billing clock by `days` (loopback only) and runs what falls due. */
async function moveClock(request: APIRequestContext, days: number) {
  const moved = await request.post('/api/dev/clock', { data: { days } })
  expect(moved.status(), await moved.text()).toBe(200)
  return (await moved.json()) as { now: string; charged: number; failed: number; notices: number }
}

async function readMembership(request: APIRequestContext, session: ApiSession, id: number) {
  const answer = await request.get(`/api/memberships/${id}`, {
    headers: { Authorization: `Bearer ${session.jwt}` },
  })
  expect(answer.status(), await answer.text()).toBe(200)
  return (await answer.json()) as Membership
}

/** The test card fields (card number, expiry, CVV) in `scope`. */
async function fillCard(page: Page, scope: Locator, number: string) {
  await scope.getByLabel(/^Card number/).fill(number)
  await scope.getByRole('combobox', { name: /^Expiration month/ }).click()
  await page.getByRole('option', { name: '12', exact: true }).click()
  await scope.getByRole('combobox', { name: /^Expiration year/ }).click()
  await page.getByRole('option', { name: '2030', exact: true }).click()
  await scope.getByLabel(/^CVV/).fill('123')
}

test('memberships: connect payments, build a plan, enrol at the desk, a year of renewals, a declined renewal paid from the e-mail link once', async ({
  page,
  request,
}) => {
  const stamp = `${Date.now()}`.slice(-6)
  const planName = `Radiance Yearly ${stamp}`
  const admin = await signUpPractice(request, `Radiance Clinic ${stamp}`)
  const mona = await registerColleague(request, admin.jwt, 1, 'Mona', 'Reyes')
  const promoted = await request.put(`/api/users/${mona.id}/role`, {
    headers: { Authorization: `Bearer ${admin.jwt}` },
    data: { access_rights: 'Manager' },
  })
  expect(promoted.status(), await promoted.text()).toBe(200)
  const sam = await registerColleague(request, admin.jwt, 2, 'Sam', 'Ortiz')
  const patientEmail = `grace.member${stamp}@example.com`
  const patient = await createPatient(request, admin, {
    first_name: 'Grace',
    last_name: `Member${stamp}`,
    email: patientEmail,
  })
  const patientName = `Grace Member${stamp}`

  // The Admin connects the practice's payment account in Settings → Payments.
  await openAs(page, admin, '/settings')
  const payments = page.getByRole('region', { name: 'Payments' })
  await expect(payments.getByText(/^Payments are not connected/)).toBeVisible()
  await payments.getByRole('button', { name: 'Connect Stripe account' }).click()
  await expect(
    payments.getByText('Connected: membership payments go to the practice’s own account.'),
  ).toBeVisible()
  await expect(payments.getByText('Test gateway')).toBeVisible()
  await shoot(page, 'settings-payments', payments)

  // A Manager builds a yearly plan on /memberships.
  const manager = await apiSignIn(request, mona.email, mona.password)
  await openAs(page, manager, '/memberships')
  await expect(page.getByRole('heading', { level: 1, name: 'Memberships' })).toBeVisible()
  await page.getByRole('button', { name: 'New plan' }).click()
  const form = page.getByRole('dialog', { name: 'New plan' })
  await form.getByRole('textbox', { name: 'Name' }).fill(planName)
  await form.getByRole('textbox', { name: 'Description' }).fill('A glow facial every season.')
  await form.getByRole('textbox', { name: /^Price per cycle/ }).fill('480')
  await form.getByRole('combobox', { name: /^Cadence/ }).click()
  await page.getByRole('option', { name: 'Yearly', exact: true }).click()
  await form.getByRole('textbox', { name: /^Banked value per cycle/ }).fill('100')
  await form.getByRole('button', { name: 'Create plan' }).click()
  await expect(form).toHaveCount(0)
  const planRow = page
    .getByRole('region', { name: 'Plans' })
    .getByRole('row', { name: new RegExp(planName) })
  await expect(planRow.getByText('$480.00 · Yearly')).toBeVisible()
  await shoot(page, 'memberships-plans')

  // The desk enrols the patient on the profile: the card 4242… and the patient's consent.
  const desk = await apiSignIn(request, sam.email, sam.password)
  await openAs(page, desk, `/patients/${patient.id}`)
  const panel = page.getByRole('region', { name: 'Membership', exact: true })
  await expect(panel.getByText('Not a member yet.')).toBeVisible()
  await panel.getByRole('button', { name: 'Start membership' }).click()
  const enrol = page.getByRole('dialog', { name: `Start membership for ${patientName}` })
  await enrol.getByRole('combobox', { name: /^Plan/ }).click()
  await page
    .getByRole('option', { name: new RegExp(`^${planName} — \\$480\\.00 · Yearly`) })
    .click()
  await expect(enrol.getByRole('region', { name: 'Membership agreement' })).toContainText(
    `I agree that ${planName} renews automatically`,
  )
  await fillCard(page, enrol, '4242 4242 4242 4242')
  await enrol
    .getByRole('checkbox', {
      name: 'The patient accepts the agreement, including automatic renewal',
    })
    .check()
  await expect(enrol.getByRole('textbox', { name: /^Patient's name as accepted/ })).toHaveValue(
    patientName,
  )
  await shoot(page, 'membership-enrol', enrol)
  await enrol.getByRole('button', { name: 'Charge $480.00 and start' }).click()
  await expect(enrol).toHaveCount(0)
  await expect(panel.getByRole('status')).toHaveText(
    `${patientName} is now a member of ${planName}.`,
  )
  await expect(panel.getByText('Active', { exact: true })).toBeVisible()
  await expect(panel.getByText('Visa •••• 4242, expires 12/30')).toBeVisible()
  await expect(panel.getByText('Charged $480.00 for cycle 1.')).toBeVisible()

  // A year later the renewal is paid with the card on file.
  const year = await moveClock(request, 365)
  expect(year.charged).toBeGreaterThanOrEqual(1)
  await page.reload()
  await expect(panel.getByText('Charged $480.00 for cycle 2.')).toBeVisible()
  await expect(panel.getByText('Active', { exact: true })).toBeVisible()
  await shoot(page, 'membership-active', panel)

  // The card on file becomes 4000 0000 0000 0341 (it attaches, its charges are declined).
  await panel.getByRole('button', { name: 'Update card' }).click()
  const cardDialog = page.getByRole('dialog', { name: 'Update card' })
  await fillCard(page, cardDialog, '4000 0000 0000 0341')
  await cardDialog.getByRole('button', { name: 'Save card', exact: true }).click()
  await expect(cardDialog).toHaveCount(0)
  await expect(panel.getByText(/•••• 0341, expires 12\/30/)).toBeVisible()

  // The clock moves past the next renewal: declined, past due, the patient is sent the link.
  const membershipId = (
    (await (
      await request.get(`/api/patients/${patient.id}/memberships`, {
        headers: { Authorization: `Bearer ${desk.jwt}` },
      })
    ).json()) as { data: Membership[] }
  ).data[0]?.id as number
  const due = await readMembership(request, desk, membershipId)
  const now = Date.parse((await moveClock(request, 0)).now)
  const renewal = Date.parse(due.next_payment_attempt_at ?? due.current_period_end)
  const declined = await moveClock(request, Math.ceil((renewal - now) / DAY_MS))
  expect(declined.failed).toBeGreaterThanOrEqual(1)
  await page.reload()
  await expect(panel.getByText('Past due', { exact: true })).toBeVisible()
  const pastDue = panel.getByRole('alert').filter({ hasText: 'Payment past due' })
  await expect(pastDue).toContainText('The renewal was declined once.')
  await shoot(page, 'membership-past-due', panel)

  const notice = (await readOutbox(request)).find(
    (message) =>
      message.channel === 'email' &&
      message.to.toLowerCase() === patientEmail &&
      (message.link ?? '').includes('/membership-card/'),
  )
  expect(notice, 'the declined-payment e-mail with its card link').toBeDefined()
  expect(notice?.subject).toBe(`Your ${planName} payment was declined`)
  const link = new URL(notice?.link ?? '')

  // The patient opens the link and pays with 4242….
  await page.goto(`${link.pathname}${link.search}`)
  await expect(
    page.getByRole('heading', { level: 1, name: `Radiance Clinic ${stamp}` }),
  ).toBeVisible()
  await expect(page.getByText('$480.00')).toBeVisible()
  const newCard = page.getByRole('form', { name: 'New card' })
  await fillCard(page, newCard, '4242 4242 4242 4242')
  await newCard.getByRole('textbox', { name: /^Cardholder name/ }).fill(patientName)
  await shoot(page, 'membership-card-link')
  await newCard.getByRole('button', { name: 'Update card and pay' }).click()
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'Thank you: your card is updated and your membership is paid.' }),
  ).toBeVisible()
  await shoot(page, 'membership-card-link-paid')

  // Active again, and cycle 3 was charged once.
  await openAs(page, desk, `/patients/${patient.id}`)
  await expect(panel.getByText('Active', { exact: true })).toBeVisible()
  await expect(panel.getByRole('alert').filter({ hasText: 'Payment past due' })).toHaveCount(0)
  await expect(panel.getByText('Charged $480.00 for cycle 3 (it was past due).')).toHaveCount(1)
  await expect(panel.getByText(/^Charged .* for cycle 3\b/)).toHaveCount(1)
  const events = await request.get(`/api/memberships/${membershipId}/events`, {
    headers: { Authorization: `Bearer ${desk.jwt}` },
  })
  expect(events.status(), await events.text()).toBe(200)
  const lines = ((await events.json()) as { data: { kind: string; detail: string }[] }).data
  expect(
    lines.filter((line) => line.kind === 'charged' && / cycle 3\b/.test(line.detail)),
  ).toHaveLength(1)
  await shoot(page, 'membership-paid-again', panel)
})

test("the profile at a glance: after the clock renews a cycle, the perks left this cycle and the bank's history", async ({
  page,
  request,
}) => {
  const stamp = `${Date.now()}`.slice(-6)
  const admin = await signUpPractice(request, `Lumen Clinic ${stamp}`)
  const headers = { Authorization: `Bearer ${admin.jwt}` }
  const connected = await request.post('/api/practice/payments/connect', { headers, data: {} })
  expect(connected.status(), await connected.text()).toBe(200)
  const made = await request.post('/api/procedures', {
    headers,
    data: { name: 'HydraFacial', price: 19_900 },
  })
  expect(made.status(), await made.text()).toBe(201)
  const hydrafacial = (await made.json()) as { id: number }
  const peelMade = await request.post('/api/procedures', {
    headers,
    data: { name: 'Glow peel', price: 15_000 },
  })
  expect(peelMade.status(), await peelMade.text()).toBe(201)
  const peel = (await peelMade.json()) as { id: number }
  const planName = `Lumen Monthly ${stamp}`
  const plan = await request.post('/api/membership-plans', {
    headers,
    data: {
      name: planName,
      description: 'A HydraFacial a month and $50 banked.',
      price_cents: 9900,
      interval: 'month',
      perks: {
        bank_cents: 5000,
        allowances: [{ catalogue_item_id: hydrafacial.id, quantity: 1, rollover_cap: 1 }],
        discount_percent: 10,
        discount_item_ids: [],
        points_multiplier: 2,
        join_bonus_points: 0,
      },
    },
  })
  expect(plan.status(), await plan.text()).toBe(201)
  const patient = await createPatient(request, admin, {
    first_name: 'Iris',
    last_name: `Member${stamp}`,
    email: `iris.member${stamp}@example.com`,
  })
  const token = await request.post('/api/payments/test-tokens', {
    data: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  expect(token.status(), await token.text()).toBe(200)
  const enrolled = await request.post(`/api/patients/${patient.id}/memberships`, {
    headers,
    data: {
      plan_id: ((await plan.json()) as { id: number }).id,
      payment_method_token: ((await token.json()) as { id: string }).id,
      consent: { text_version: '2026-11-01', accepted_by_name: `Iris Member${stamp}` },
      idempotencyKey: `glance-${stamp}`,
    },
  })
  expect(enrolled.status(), await enrolled.text()).toBe(201)
  const membership = (await enrolled.json()) as Membership

  // The clock moves past the first renewal: cycle 2 is paid, banks $50.00 more, and the unused
  // HydraFacial of cycle 1 rolls over (cap 1).
  const now = Date.parse((await moveClock(request, 0)).now)
  const renewal = Date.parse(membership.current_period_end)
  const renewed = await moveClock(request, Math.ceil((renewal - now) / DAY_MS))
  expect(renewed.charged).toBeGreaterThanOrEqual(1)
  // The desk records a peel and pays $30.00 of it from the bank (the Admin's override of the code).
  const visit = await request.post('/api/visits', {
    headers,
    data: {
      patient_id: patient.id,
      items: [{ procedure_id: peel.id, quantity: 1 }],
      idempotencyKey: `glance-visit-${stamp}`,
      redemption: { bank_cents: 3000, override: { reason: 'Patient at the desk, phone flat' } },
    },
  })
  expect(visit.status(), await visit.text()).toBe(201)

  await openAs(page, admin, `/patients/${patient.id}`)
  const panel = page.getByRole('region', { name: 'Membership', exact: true })
  await expect(panel.getByText('Active', { exact: true })).toBeVisible()
  const perks = panel.getByRole('region', { name: 'Perks left this cycle' })
  await expect(
    perks.getByText('2 HydraFacial left this month (1 a month, 1 rolled over)'),
  ).toBeVisible()
  await expect(perks.getByText('Up to 1 unused one rolls over to next month.')).toBeVisible()
  await expect(perks.getByText('10% off everything (member price)')).toBeVisible()
  await expect(perks.getByText('2× points at every visit')).toBeVisible()
  await expect(
    panel.getByRole('region', { name: 'Bank', exact: true }).getByText('$70.00'),
  ).toBeVisible()
  const history = panel.getByRole('region', { name: 'Bank history' })
  const rows = history.getByRole('row')
  await expect(rows).toHaveCount(4)
  // Newest first, each with the balance it left.
  await expect(rows.nth(1)).toContainText(
    /Used at the visit of [A-Z][a-z]{2} \d{1,2}, \d{4}, which came to \$/,
  )
  await expect(rows.nth(1).getByRole('cell', { name: '−$30.00', exact: true })).toBeVisible()
  await expect(rows.nth(1).getByRole('cell', { name: '$70.00', exact: true })).toBeVisible()
  await expect(rows.nth(2)).toContainText('Paid in with cycle 2')
  await expect(rows.nth(2).getByRole('cell', { name: '+$50.00', exact: true })).toBeVisible()
  await expect(rows.nth(2).getByRole('cell', { name: '$100.00', exact: true })).toBeVisible()
  await expect(rows.nth(3)).toContainText('Paid in with cycle 1')
  await expect(rows.nth(3).getByRole('cell', { name: '$50.00', exact: true })).toBeVisible()
  await expect(panel.getByText(/^[A-Z][a-z]{2} \d{1,2}, \d{4} · \$99\.00$/)).toBeVisible()
  await shoot(page, 'membership-profile-glance')
})

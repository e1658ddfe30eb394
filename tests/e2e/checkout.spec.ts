import type { APIRequestContext, Locator, Page } from '@playwright/test'
import { MEMBERSHIP_AGREEMENT, type Membership, type Plan } from '#domain/memberships.ts'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import {
  type ApiSession,
  apiSignIn,
  createPatient,
  expect,
  openAs,
  openSignedIn,
  STAFF,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import { screens, scrollsSideways, VIEWPORTS } from './support/screens.ts'

// The front desk's checkout through the real server.

const shoot = screens('issue-17')

type Patient = { id: number; first_name: string; last_name: string; phone: string | null }

async function api(request: APIRequestContext, session: ApiSession) {
  const headers = { Authorization: `Bearer ${session.jwt}` }
  return {
    async patient(name: string): Promise<Patient> {
      const response = await request.get('/api/patients', {
        headers,
        params: { search: name, pageSize: 5 },
      })
      const page = (await response.json()) as { data: Patient[] }
      const found = page.data.find((p) => `${p.first_name} ${p.last_name}` === name)
      if (!found) throw new Error(`no patient ${name}`)
      return found
    },
    async balance(patientId: number): Promise<number> {
      const response = await request.get(`/api/patients/${patientId}/ledger`, { headers })
      return ((await response.json()) as { balance: number }).balance
    },
    /** The ids of the visits in a patient's ledger (every entry of a visit names it). */
    async visitIds(patientId: number): Promise<number[]> {
      const response = await request.get(`/api/patients/${patientId}/ledger`, {
        headers,
        params: { pageSize: 100 },
      })
      const entries = (
        (await response.json()) as {
          data: { source_type: string; source_id: number | null; kind: string }[]
        }
      ).data
      return [
        ...new Set(
          entries.filter((e) => e.source_type === 'visit').map((e) => e.source_id as number),
        ),
      ]
    },
    /** Claims a promotion for a patient as the desk does (the spec's PUT /promotions/claimed). */
    async claimFor(promotionId: number, patientId: number) {
      const response = await request.put(`/api/promotions/claimed/${promotionId}`, {
        headers,
        data: { promo: promotionId, patient_id: patientId },
      })
      expect(response.status(), await response.text()).toBe(200)
    },
    /** The id of a promotion some patient claimed, by its title. */
    async promotionId(promotionTitle: string, claimedBy: number) {
      const list = await request.get(`/api/patients/promotions/${claimedBy}`, { headers })
      const claims = (await list.json()) as {
        promotion_id: number
        promotion?: { title: string }
      }[]
      const found = claims.find((c) => c.promotion?.title === promotionTitle)
      if (!found) throw new Error(`no claim of ${promotionTitle}`)
      return found.promotion_id
    },
    async claim(promotionTitle: string, patientId: number) {
      const list = await request.get(`/api/patients/promotions/${patientId}`, { headers })
      const claims = (await list.json()) as { status: string; promotion?: { title: string } }[]
      return claims.find((c) => c.promotion?.title === promotionTitle)?.status ?? null
    },
  }
}

/** A product's id in the practice's catalogue, by its name. */
async function productId(request: APIRequestContext, session: ApiSession, name: string) {
  const response = await request.get('/api/products', {
    headers: { Authorization: `Bearer ${session.jwt}` },
    params: { practice: session.practice.id },
  })
  const found = ((await response.json()) as { id: number; name: string }[]).find(
    (p) => p.name === name,
  )
  if (!found) throw new Error(`no product ${name}`)
  return found.id
}

/** The checkout's outcome: the green message once the visit is recorded or undone. */
function outcome(page: Page): Locator {
  return page.getByRole('status').filter({ hasText: /Visit (recorded|undone)/ })
}

async function addItem(page: Page, label: 'Add a procedure' | 'Add a product', name: string) {
  await page.getByRole('combobox', { name: label }).click()
  await page.getByRole('option', { name: new RegExp(`^${name}`) }).click()
}

async function ok<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, status = 200) {
  expect(response.status(), await response.text()).toBe(status)
  return (await response.json()) as T
}

/**
 * A patient of its own with a phone, enrolled through the API (the test card 4242…, the first
 * month paid) in a plan of its own: 1 HydraFacial a month included, 15% member price, $100
 * banked a month, 2× points.
 */
async function enrolMember(request: APIRequestContext, firstName: string) {
  const admin = await apiSignIn(request)
  const auth = { Authorization: `Bearer ${admin.jwt}` }
  const stamp = `${Date.now()}`.slice(-7)
  const account = await ok<{ connected: boolean }>(
    await request.get('/api/practice/payments', { headers: auth }),
  )
  if (!account.connected) {
    await ok(await request.post('/api/practice/payments/connect', { headers: auth, data: {} }))
  }
  const procedures = await ok<{ id: number; name: string }[]>(
    await request.get('/api/procedures', {
      headers: auth,
      params: { practice: admin.practice.id },
    }),
  )
  const hydra = procedures.find((p) => p.name === 'HydraFacial')
  if (!hydra) throw new Error('no HydraFacial in the catalogue')
  const planName = `Glow Club ${stamp}`
  const plan = await ok<Plan>(
    await request.post('/api/membership-plans', {
      headers: auth,
      data: {
        name: planName,
        description: 'A HydraFacial a month, member prices and a monthly bank.',
        price_cents: 9_900,
        interval: 'month',
        setup_fee_cents: 0,
        min_cycles: 1,
        notice_days: 0,
        perks: {
          bank_cents: 10_000,
          allowances: [{ catalogue_item_id: hydra.id, quantity: 1, rollover_cap: 0 }],
          discount_percent: 15,
          discount_item_ids: [],
          points_multiplier: 2,
          join_bonus_points: 0,
        },
      },
    }),
    201,
  )
  const phone = nanpTestPhone(`558${stamp}`)
  const patient = await createPatient(request, admin, {
    first_name: firstName,
    last_name: `Member${stamp}`,
    phone,
  })
  const name = `${firstName} Member${stamp}`
  const membership = await ok<Membership>(
    await request.post(`/api/patients/${patient.id}/memberships`, {
      headers: auth,
      data: {
        plan_id: plan.id,
        payment_method_token: await cardToken(request, '4242424242424242'),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: name },
        idempotencyKey: `e2e-member-checkout-${stamp}`,
      },
    }),
    201,
  )
  return { admin, auth, hydra, planName, membership, phone, name, patient }
}

/** A test token of the test gateway's card `number`. */
async function cardToken(request: APIRequestContext, number: string): Promise<string> {
  const token = await request.post('/api/payments/test-tokens', {
    data: { number, exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  return (await ok<{ id: string }>(token)).id
}

test.describe('checkout at the front desk', () => {
  // Each journey checks axe and takes screenshots at two widths on a shared 2-core machine.
  test.describe.configure({ timeout: 180_000 })

  test('staff complete today’s appointment: points awarded, on the profile with their name', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request, STAFF.email, STAFF.password)
    const server = await api(request, session)
    const blake = await server.patient('Blake Martinez')
    const before = await server.balance(blake.id)
    await openAs(page, session, '/appointments')
    const card = page.getByRole('article', { name: /Blake Martinez/ })
    await expect(card).toContainText('HydraFacial')
    await card.getByRole('link', { name: 'Complete Blake Martinez' }).click()

    // The appointment brings its patient and procedure.
    await expect(page).toHaveURL(/\/checkout\?appointmentId=\d+/)
    const checkoutUrl = page.url()
    await expect(page.getByText('Step 2 of 6: Items')).toBeVisible()
    await expect(page.getByText('Patient: Blake Martinez')).toBeVisible()
    await expect(page.getByLabel('Quantity of HydraFacial')).toHaveValue('1')
    await expect(page.getByRole('button', { name: 'Change patient' })).toHaveCount(0)
    await addItem(page, 'Add a product', 'Mineral Sunscreen SPF 46')
    await page.getByLabel('Quantity of Mineral Sunscreen SPF 46').fill('2')
    await expect(page.getByText('Total: $281.00')).toBeVisible()
    await shoot(page, 'checkout-items', page.getByRole('heading', { name: /What did the visit/ }))
    await page.getByRole('button', { name: 'See points' }).click()

    await expect(page.getByRole('heading', { name: 'Points for this visit' })).toBeVisible()
    await expect(page.getByText(/This visit earns/)).toContainText('This visit earns 280 points')
    await shoot(
      page,
      'checkout-points',
      page.getByRole('heading', { name: 'Points for this visit' }),
    )
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('heading', { name: 'Confirm the visit' })).toBeVisible()
    await shoot(page, 'checkout-confirm', page.getByRole('heading', { name: 'Confirm the visit' }))
    await page.getByRole('button', { name: 'Confirm visit' }).click()

    const done = outcome(page)
    await expect(done).toContainText('Visit recorded')
    await expect(done).toContainText(
      `Blake Martinez earned 280 points. The balance is now ${(before + 280).toLocaleString(
        'en-US',
      )} points.`,
    )
    await shoot(page, 'checkout-done', done)
    expect(await server.balance(blake.id)).toBe(before + 280)

    // The profile shows the points and who recorded them.
    await page.getByRole('link', { name: "Open the patient's profile" }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Blake Martinez' })).toBeVisible()
    await expect(
      page.getByText((before + 280).toLocaleString('en-US'), { exact: true }).first(),
    ).toBeVisible()
    await expect(
      page.getByRole('row').filter({ hasText: 'Earned 200 points for a visit' }).first(),
    ).toContainText('Sam Rivera')

    // The appointment is completed and cannot be completed twice.
    await page.goto('/appointments')
    const completed = page.getByRole('article', { name: /Blake Martinez/ })
    await expect(completed).toContainText('completed')
    await expect(completed.getByRole('link', { name: /Complete/ })).toHaveCount(0)
    // An old link to its checkout says why it cannot be completed again.
    await page.goto(checkoutUrl)
    const refusal = page.getByRole('alert').filter({ hasText: 'already completed' })
    await expect(refusal).toContainText('This appointment is already completed.')
    await expect(page.getByRole('button', { name: 'See points' })).toHaveCount(0)
    await shoot(page, 'checkout-appointment-completed', refusal)
  })

  test('a redemption above the threshold needs the patient’s SMS code; undo gives the points back', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    const server = await api(request, session)
    const dana = await server.patient("Dana O'Connor")
    const before = await server.balance(dana.id)
    await openAs(page, session, `/patients/${dana.id}`)
    await page.getByRole('link', { name: 'Record visit' }).click()
    await expect(page.getByText('Step 2 of 6: Items')).toBeVisible()
    await addItem(page, 'Add a product', 'Hydrating B5 Gel')
    await page.getByRole('button', { name: 'See points' }).click()
    await expect(page.getByText(/This visit earns/)).toContainText('This visit earns 100 points')

    // Too many points are refused on the spot.
    await page.getByRole('radio', { name: 'Points', exact: true }).check()
    await page.getByLabel('Points to redeem').fill('999999')
    await expect(
      page.getByText(
        `The patient can redeem at most ${(before + 100).toLocaleString('en-US')} points`,
      ),
    ).toBeVisible()
    await expect(page.getByRole('button', { name: 'Continue' })).toBeDisabled()
    await shoot(page, 'checkout-points-error', page.getByLabel('Points to redeem'))
    await page.getByLabel('Points to redeem').fill('500')
    await page.getByRole('button', { name: 'Continue' }).click()

    // The code step: Get code, then Resend waits 30 seconds.
    await expect(page.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Use a manager override' })).toBeVisible()
    const sentAfter = new Date(Date.now() - 1000)
    await page.getByRole('button', { name: 'Get code' }).click()
    await expect(page.getByRole('button', { name: /Resend code in \d+ s/ })).toBeDisabled()
    const sms = await waitForMessage(request, 'sms', '+15550101004', { after: sentAfter })
    const code = sms.code ?? /\b(\d{6})\b/.exec(sms.text)?.[1] ?? ''
    expect(code).toMatch(/^\d{6}$/)

    // The SMS names the amount it is for.
    expect(sms.text).toContain('your code to redeem 500 points ($50.00) is')
    // A wrong code is said as soon as it is typed, before the Confirm screen.
    await page.getByLabel('SMS code').fill(code === '000000' ? '111111' : '000000')
    await expect(page.getByRole('alert')).toContainText(
      'The code is not correct. Please check the code with the patient and type it again.',
    )
    await expect(page.getByRole('heading', { name: 'Confirm the visit' })).toHaveCount(0)
    await shoot(page, 'checkout-code-wrong', page.getByLabel('SMS code'))
    // The right one is checked the same way and leads on to Confirm.
    await page.getByLabel('SMS code').fill(code)
    await expect(page.getByText("Redeemed: 500 points, with the patient's code")).toBeVisible()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    const done = outcome(page)
    await expect(done).toContainText('earned 100 points and redeemed 500 points')
    expect(await server.balance(dana.id)).toBe(before + 100 - 500)

    // Undo asks first, then posts the reversals: the balance is back.
    await page.getByRole('button', { name: 'Undo visit' }).click()
    const dialog = page.getByRole('dialog', { name: 'Undo this visit?' })
    await shoot(page, 'checkout-undo-dialog', dialog)
    await dialog.getByRole('button', { name: 'Undo visit' }).click()
    await expect(outcome(page)).toContainText(
      `Visit undoneIts points were reversed. The balance is back to ${before.toLocaleString('en-US')} points.`,
    )
    await shoot(page, 'checkout-undone', outcome(page))
    expect(await server.balance(dana.id)).toBe(before)
  })

  test('a claimed offer is redeemed with the patient’s SMS code and its bonus awarded', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    const server = await api(request, session)
    const blake = await server.patient('Blake Martinez')
    const dana = await server.patient("Dana O'Connor")
    await server.claimFor(await server.promotionId('Birthday Glow', dana.id), blake.id)
    expect(await server.claim('Birthday Glow', blake.id)).toBe('claimed')
    const before = await server.balance(blake.id)
    await openAs(page, session, `/checkout?patientId=${blake.id}`)
    await addItem(page, 'Add a procedure', 'Chemical Peel')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('radio', { name: /^Birthday Glow/ }).check()
    await page.getByRole('button', { name: 'Continue' }).click()
    // The demo programme asks for the code for every redemption (threshold 0), a free offer too.
    await expect(page.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
    const sentAfter = new Date(Date.now() - 1000)
    await page.getByRole('button', { name: 'Get code' }).click()
    const sms = await waitForMessage(request, 'sms', '+15550101002', { after: sentAfter })
    const code = sms.code ?? /\b(\d{6})\b/.exec(sms.text)?.[1] ?? ''
    expect(code).toMatch(/^\d{6}$/)
    expect(sms.text).toContain('your code to redeem the offer “Birthday Glow” is')
    await page.getByLabel('SMS code').fill(code)
    await expect(
      page.getByText("Redeemed: the offer Birthday Glow, with the patient's code"),
    ).toBeVisible()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(outcome(page)).toContainText('with a bonus of 200 points')
    expect(await server.balance(blake.id)).toBe(before + 150 + 200)
    expect(await server.claim('Birthday Glow', blake.id)).toBe('redeemed')
  })

  test('a redeemed “$50 off HydraFacial” offer makes a $199 visit cost $149 and earn on $149', async ({
    page,
    request,
  }) => {
    // Item 4. Before: the total stayed $199, 200 points were earned on it, and the
    // funnel reported $199 of revenue.
    const session = await apiSignIn(request)
    const headers = { Authorization: `Bearer ${session.jwt}` }
    const server = await api(request, session)
    const procedures = (await (
      await request.get('/api/procedures', {
        headers,
        params: { practice: session.practice.id },
      })
    ).json()) as { id: number; name: string }[]
    const hydra = procedures.find((p) => p.name === 'HydraFacial')
    if (!hydra) throw new Error('no HydraFacial')
    const stamp = Date.now() % 1_000_000
    const created = await request.post('/api/promotions', {
      headers,
      data: {
        title: `$50 off HydraFacial ${stamp}`,
        discount_cents: 5000,
        procedure_ids: [hydra.id],
      },
    })
    expect(created.status(), await created.text()).toBe(201)
    const offer = (await created.json()) as { id: number; title: string }
    const published = await request.post(`/api/promotions/${offer.id}/publish`, { headers })
    expect(published.status(), await published.text()).toBe(200)
    const phone = `+1555019${String(stamp % 10_000).padStart(4, '0')}`
    const harper = await createPatient(request, session, {
      first_name: 'Harper',
      last_name: `Offer${stamp}`,
      phone,
    })
    await server.claimFor(offer.id, harper.id)
    const before = await server.balance(harper.id)

    await openAs(page, session, `/checkout?patientId=${harper.id}`)
    await addItem(page, 'Add a procedure', 'HydraFacial')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('radio', { name: new RegExp(`^\\$50 off HydraFacial ${stamp}`) }).check()
    // Before Confirm: the line's discount, the new total and the points it earns.
    await expect(page.getByTestId('line-discount')).toHaveText('Offer: −$50.00, pays $149.00')
    await expect(page.getByTestId('visit-earns')).toHaveText(
      'With $50.00 off HydraFacial, this visit costs $149.00 instead of $199.00 and earns 149 points.',
    )
    await shoot(page, 'checkout-offer-value', page.getByTestId('visit-earns'))
    await page.getByRole('button', { name: 'Continue' }).click()
    // The demo programme asks for the code for every redemption (threshold 0).
    const sentAfter = new Date(Date.now() - 1000)
    await page.getByRole('button', { name: 'Get code' }).click()
    const sms = await waitForMessage(request, 'sms', phone.replace(/[^\d+]/g, ''), {
      after: sentAfter,
    })
    expect(sms.text).toContain(`your code to redeem the offer “${offer.title}” is`)
    await page.getByLabel('SMS code').fill(sms.code ?? /\b(\d{6})\b/.exec(sms.text)?.[1] ?? '')
    await expect(page.getByTestId('visit-total')).toHaveText('$149.00')
    await expect(page.getByText('Points earned: 149 points')).toBeVisible()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(outcome(page)).toContainText(
      `earned 149 points. The balance is now ${(before + 149).toLocaleString('en-US')} points. The offer took $50.00 off: the visit comes to $149.00.`,
    )
    expect(await server.balance(harper.id)).toBe(before + 149)
    expect(await server.claim(offer.title, harper.id)).toBe('redeemed')
    const funnel = await request.get(`/api/promotions/${offer.id}`, { headers })
    expect(((await funnel.json()) as { funnel: { revenue_cents: number } }).funnel).toMatchObject({
      redeemed: 1,
      revenue_cents: 14_900,
    })
  })

  test('two fast clicks and a replay after a lost answer record one visit', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    const server = await api(request, session)
    const finley = await server.patient('Finley Brooks')
    const visitsBefore = await server.visitIds(finley.id)
    await openAs(page, session, `/checkout?patientId=${finley.id}`)
    await addItem(page, 'Add a product', 'Vitamin C Serum')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()

    // The first post reaches the server, but its answer is lost on the way back.
    let posts = 0
    await page.route('**/api/visits', async (route) => {
      if (route.request().method() !== 'POST') return route.continue()
      posts += 1
      if (posts === 1) {
        await route.fetch()
        return route.abort('timedout')
      }
      return route.continue()
    })
    await page.getByRole('button', { name: 'Confirm visit' }).dblclick()
    await expect(page.getByRole('alert')).toContainText(
      'Nothing was recorded twice: press Confirm visit again to retry.',
    )
    await shoot(page, 'checkout-confirm-error', page.getByRole('alert'))
    // What was entered is still there; the retry answers the visit already recorded.
    await expect(page.getByText('1 × Vitamin C Serum')).toBeVisible()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(outcome(page)).toContainText('Visit recorded')
    expect(posts).toBe(2)
    const visitsAfter = await server.visitIds(finley.id)
    expect(visitsAfter.filter((id) => !visitsBefore.includes(id))).toHaveLength(1)
  })

  test('a reload keeps the checkout and its key: confirming again records one visit', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request)
    const server = await api(request, session)
    const emery = await server.patient('Emery Patel')
    const visitsBefore = await server.visitIds(emery.id)
    await openAs(page, session, `/checkout?patientId=${emery.id}`)
    await addItem(page, 'Add a product', 'Mineral Sunscreen SPF 46')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    // The answer never arrives: the person reloads the page.
    await page.route('**/api/visits', async (route) => {
      if (route.request().method() !== 'POST') return route.continue()
      await route.fetch()
      return route.abort('timedout')
    })
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(page.getByRole('alert')).toBeVisible()
    await page.unroute('**/api/visits')
    await page.reload()
    await expect(page.getByLabel('Quantity of Mineral Sunscreen SPF 46')).toHaveValue('1')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(outcome(page)).toContainText('Visit recorded')
    const visitsAfter = await server.visitIds(emery.id)
    expect(visitsAfter.filter((id) => !visitsBefore.includes(id))).toHaveLength(1)
  })

  test('the whole checkout with the keyboard alone, at 390 px', async ({ page, request }) => {
    const session = await apiSignIn(request, 'manager@example.com', 'ManagerPass123')
    const server = await api(request, session)
    const avery = await server.patient('Avery Johnson')
    const before = await server.balance(avery.id)
    await page.setViewportSize(VIEWPORTS[1])
    await openAs(page, session, '/checkout')

    /** Presses Tab until `target` has the focus. */
    const tabTo = async (target: Locator) => {
      for (let i = 0; i < 60; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return
        await page.keyboard.press('Tab')
      }
      throw new Error('the element cannot be reached with Tab')
    }

    await tabTo(page.getByRole('combobox', { name: 'Patient' }))
    await page.keyboard.type('johns av')
    await expect(page.getByRole('option', { name: /^Avery Johnson/ })).toBeVisible()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect(page.getByText('Step 2 of 6: Items')).toBeVisible()
    expect(await scrollsSideways(page)).toBe(false)

    await tabTo(page.getByRole('combobox', { name: 'Add a procedure' }))
    await page.keyboard.type('Botox')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect(page.getByLabel('Quantity of Botox (per area)')).toBeVisible()
    await tabTo(page.getByLabel('Unit price of Botox (per area)'))
    await page.keyboard.press('ControlOrMeta+a')
    await page.keyboard.type('300')
    await expect(page.getByText('Total: $300.00')).toBeVisible()
    expect(await scrollsSideways(page)).toBe(false)
    await tabTo(page.getByRole('button', { name: 'See points' }))
    await page.keyboard.press('Enter')
    // Botox earns its own 350 points per area whatever the price.
    await expect(page.getByText(/This visit earns/)).toContainText('This visit earns 350 points')
    expect(await scrollsSideways(page)).toBe(false)

    // Points above the threshold, with a manager's override instead of the code.
    await tabTo(page.getByRole('radio', { name: 'Nothing', exact: true }))
    await page.keyboard.press('ArrowDown')
    await expect(page.getByRole('radio', { name: 'Points', exact: true })).toBeChecked()
    await tabTo(page.getByLabel('Points to redeem'))
    await page.keyboard.type('200')
    await tabTo(page.getByRole('button', { name: 'Continue' }))
    await page.keyboard.press('Enter')
    await tabTo(page.getByRole('button', { name: 'Use a manager override' }))
    await page.keyboard.press('Enter')
    await tabTo(page.getByLabel('Reason for the override'))
    await page.keyboard.type('The patient left their phone at home.')
    expect(await scrollsSideways(page)).toBe(false)
    await shoot(page, 'checkout-override', page.getByLabel('Reason for the override'))
    await page.setViewportSize(VIEWPORTS[1])
    await tabTo(page.getByRole('button', { name: 'Continue' }))
    await page.keyboard.press('Enter')
    await expect(page.getByText('Redeemed: 200 points, with a manager override')).toBeVisible()
    await tabTo(page.getByRole('button', { name: 'Confirm visit' }))
    await page.keyboard.press('Enter')
    await expect(outcome(page)).toContainText('earned 350 points and redeemed 200 points')
    expect(await scrollsSideways(page)).toBe(false)
    expect(await server.balance(avery.id)).toBe(before + 150)
  })

  test('staff type ten times the catalogue price: stopped with a sentence until a manager approves it with a reason, in the activity log; the SMS names the amount', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request, STAFF.email, STAFF.password)
    const server = await api(request, session)
    const casey = await server.patient('Casey Nguyen')
    const before = await server.balance(casey.id)
    await openAs(page, session, `/checkout?patientId=${casey.id}`)
    await addItem(page, 'Add a product', 'Vitamin C Serum')
    // $182.00 in the catalogue; typed ten times over, it is warned of at once.
    await page.getByLabel('Unit price of Vitamin C Serum').fill('1820')
    await expect(
      page.getByText(
        "$1,820.00 is above the catalogue price of $182.00: a manager's approval will be needed.",
      ),
    ).toBeVisible()
    await page.getByRole('button', { name: 'See points' }).click()
    await expect(page.getByText("A manager's approval is needed")).toBeVisible()
    const sentence = 'Vitamin C Serum at $1,820.00 is above its catalogue price of $182.00.'
    await expect(page.getByText(sentence).first()).toBeVisible()
    // Each line shows the points it earns before anything is confirmed.
    await expect(page.getByRole('list', { name: 'Points per item' })).toContainText('+180 points')

    // The server refuses the visit without the approval, with the sentence.
    const refused = await request.post('/api/visits', {
      headers: { Authorization: `Bearer ${session.jwt}` },
      data: {
        patient_id: casey.id,
        items: [
          {
            product_id: await productId(request, session, 'Vitamin C Serum'),
            quantity: 1,
            price_cents: 182_000,
          },
        ],
        idempotencyKey: `e2e-approval-${Date.now()}`,
      },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      `A manager's approval is needed: ${sentence} Ask a manager to approve it with a reason, or use the catalogue price.`,
    )

    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('heading', { name: "A manager's approval" })).toBeVisible()
    const reason = 'Bundle of ten, agreed with the owner'
    await page.getByLabel('Reason for the approval').fill(reason)
    await page.getByLabel("Manager's e-mail").fill('manager@example.com')
    // A wrong password is refused with its sentence and kept from the screen.
    await page.getByLabel("Manager's password").fill('not-the-password')
    await page.getByRole('button', { name: 'Approve' }).click()
    await expect(page.getByRole('alert')).toContainText(
      "The manager's e-mail or password is not correct.",
    )
    await page.getByLabel("Manager's password").fill('ManagerPass123')
    await page.getByRole('button', { name: 'Approve' }).click()
    await expect(page.getByText('Approved by Morgan Reyes.')).toBeVisible()
    await shoot(page, 'checkout-approved', page.getByText('Approved by Morgan Reyes.'))

    // A redemption too: the patient's SMS names the amount.
    await page.getByRole('radio', { name: 'Points', exact: true }).check()
    await page.getByLabel('Points to redeem').fill('100')
    await page.getByRole('button', { name: 'Continue' }).click()
    const sentAfter = new Date(Date.now() - 1000)
    await page.getByRole('button', { name: 'Get code' }).click()
    const sms = await waitForMessage(request, 'sms', '+15550101003', { after: sentAfter })
    expect(sms.text).toContain('your code to redeem 100 points ($10.00) is')
    expect(sms.text).toContain('It is valid for 10 minutes, for this redemption only.')
    await page.getByLabel('SMS code').fill(sms.code ?? '')
    await expect(page.getByText(`Approved by Morgan Reyes: ${reason}`)).toBeVisible()
    await page.getByRole('button', { name: 'Confirm visit' }).click()
    await expect(outcome(page)).toContainText('earned 180 points and redeemed 100 points')
    expect(await server.balance(casey.id)).toBe(before + 80)

    // The activity log says who approved it and why.
    await openSignedIn(page, request, '/settings/activity')
    await expect(
      page
        .getByText(
          `recorded a visit for Casey Nguyen: 180 points earned, 100 points redeemed (approved by Morgan Reyes: ${reason}).`,
        )
        .first(),
    ).toBeVisible()
  })

  test('staff cannot override: only the patient’s code', async ({ page, request }) => {
    const session = await apiSignIn(request, STAFF.email, STAFF.password)
    const server = await api(request, session)
    const casey = await server.patient('Casey Nguyen')
    await openAs(page, session, `/checkout?patientId=${casey.id}`)
    await addItem(page, 'Add a procedure', 'Laser Hair Removal')
    await page.getByRole('button', { name: 'See points' }).click()
    await page.getByRole('radio', { name: 'Points', exact: true }).check()
    await page.getByLabel('Points to redeem').fill('50')
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('button', { name: 'Get code' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Use a manager override' })).toHaveCount(0)
    await shoot(page, 'checkout-code', page.getByRole('button', { name: 'Get code' }))
  })

  test('a member at the desk: the included HydraFacial, the member price, the bank paid with the patient’s code, and Undo puts it all back', async ({
    page,
    request,
  }) => {
    const { auth, hydra, planName, membership, phone, patient } = await enrolMember(request, 'Maya')
    const membershipNow = () =>
      request
        .get(`/api/memberships/${membership.id}`, { headers: auth })
        .then((r) => ok<Membership>(r))

    // The desk records the visit from the member's profile: HydraFacial and a Chemical Peel.
    const desk = await apiSignIn(request, STAFF.email, STAFF.password)
    await openAs(page, desk, `/patients/${patient.id}`)
    await page.getByRole('link', { name: 'Record visit' }).click()
    await expect(page.getByText('Step 2 of 6: Items')).toBeVisible()
    await addItem(page, 'Add a procedure', 'HydraFacial')
    await addItem(page, 'Add a procedure', 'Chemical Peel')
    await page.getByRole('button', { name: 'See points' }).click()

    // The review knows the member: the plan, the included HydraFacial, the member price.
    const block = page.getByRole('region', { name: 'Membership' })
    await expect(block).toContainText(planName)
    await expect(block.getByText('Active', { exact: true })).toBeVisible()
    await expect(block.getByText('Bank: $100.00')).toBeVisible()
    await expect(block.getByText('1 of 1 HydraFacial included this month.')).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)
    const lines = page.getByRole('list', { name: 'Points per item' }).getByRole('listitem')
    await expect(lines.nth(0)).toContainText(
      'Included with the membership: 1 of 1 HydraFacial this month',
    )
    await expect(lines.nth(0)).toContainText('$199.00 $0.00 each')
    await expect(lines.nth(0)).toContainText('+0 points')
    await expect(lines.nth(1)).toContainText('Member price: −$22.50 (15%)')
    await expect(lines.nth(1).getByText('2× member points')).toBeVisible()
    const totals = page.getByRole('region', { name: 'Totals' })
    await expect(totals).toContainText('Subtotal$349.00')
    await expect(totals).toContainText('Included with the membership−$199.00')
    await expect(totals).toContainText('Member price−$22.50')
    await expect(totals).toContainText('Due at the desk$127.50')
    await shoot(page, 'checkout-member-review', block)

    // More than the bank holds is refused next to the field, keeping what was typed.
    const bankField = page.getByRole('textbox', { name: 'Paid from the membership bank' })
    await bankField.fill('150')
    await expect(page.getByText(VISIT_MESSAGES.bankTooLittle(10_000))).toBeVisible()
    await expect(bankField).toHaveValue('$150')
    await expect(totals).toContainText('Due at the desk$127.50')
    await expect(page.getByRole('button', { name: 'Continue' })).toBeDisabled()
    await shoot(page, 'checkout-member-bank', totals)
    // Use all: the whole bank, as the visit comes to more.
    await page.getByRole('button', { name: 'Use all: $100.00 from the bank' }).click()
    await expect(bankField).toHaveValue('$100')
    await expect(totals).toContainText('Due at the desk$27.50')
    await page.getByRole('button', { name: 'Continue' }).click()

    // Paying from the bank needs the patient's code, for that amount.
    await expect(page.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
    await expect(
      page.getByText(
        'To pay $100.00 from the membership bank, the patient confirms with a 6-digit code we text to their phone.',
      ),
    ).toBeVisible()
    const sentAfter = new Date(Date.now() - 1000)
    await page.getByRole('button', { name: 'Get code' }).click()
    const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: sentAfter })
    expect(sms.text).toContain('$100.00 from the membership bank')
    await shoot(page, 'checkout-member-code', page.getByTestId('code-amount'))
    await page.getByLabel('SMS code').fill(sms.code ?? '')

    // The summary lists what the visit uses.
    await expect(page.getByRole('heading', { name: 'Confirm the visit' })).toBeVisible()
    await expect(page.getByText('Uses 1 of 1 HydraFacial included this month.')).toBeVisible()
    await expect(page.getByTestId('visit-total')).toHaveText('$127.50')
    await expect(page.getByTestId('visit-bank')).toHaveText('−$100.00')
    await expect(page.getByTestId('visit-desk')).toHaveText('$27.50')
    await expect(
      page.getByText("Paid from the membership bank, with the patient's code"),
    ).toBeVisible()
    await shoot(page, 'checkout-member-confirm', page.getByTestId('visit-desk'))
    await page.getByRole('button', { name: 'Confirm visit' }).click()

    const done = outcome(page)
    await expect(done).toContainText('Visit recorded')
    await expect(done).toContainText('Used 1 of 1 HydraFacial included this month.')
    await expect(done).toContainText(
      'Paid from the membership bank: $100.00 · bank now $0.00. Due at the desk: $27.50.',
    )
    await shoot(page, 'checkout-member-done', done)
    const used = await membershipNow()
    expect(used.bank_cents).toBe(0)
    expect(used.allowances.find((a) => a.catalogue_item_id === hydra.id)?.remaining).toBe(0)

    // Undo puts back the points, the bank and the included HydraFacial.
    await page.getByRole('button', { name: 'Undo visit' }).click()
    const dialog = page.getByRole('dialog', { name: 'Undo this visit?' })
    await expect(dialog).toContainText('$100.00 goes back to the membership bank.')
    await dialog.getByRole('button', { name: 'Undo visit' }).click()
    const undone = outcome(page)
    await expect(undone).toContainText('Visit undone')
    await expect(undone).toContainText(
      '$100.00 went back to the membership bank: bank now $100.00. The membership includes 1 × HydraFacial again.',
    )
    await shoot(page, 'checkout-member-undone', undone)
    const restored = await membershipNow()
    expect(restored.bank_cents).toBe(10_000)
    expect(restored.allowances.find((a) => a.catalogue_item_id === hydra.id)?.remaining).toBe(1)

    // The profile shows the bank restored and the allowance left again.
    await page.getByRole('link', { name: "Open the patient's profile" }).click()
    const panel = page.getByRole('region', { name: 'Membership', exact: true })
    await expect(panel.getByRole('region', { name: 'Bank', exact: true })).toContainText('$100.00')
    await expect(panel.getByText('1 of 1 HydraFacial left this month')).toBeVisible()
  })

  test('a past-due member is flagged before anything is used; the bank still pays', async ({
    page,
    request,
  }) => {
    const { auth, planName, membership, patient } = await enrolMember(request, 'Noah')
    // A card that declines goes on file; the renewal a month later is declined: past due.
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
      (Date.parse(membership.current_period_end) - Date.parse(clock.now)) / (24 * 60 * 60 * 1000),
    )
    await ok(await request.post('/api/dev/clock', { data: { days: Math.max(1, days) } }))

    const desk = await apiSignIn(request, STAFF.email, STAFF.password)
    await openAs(page, desk, `/checkout?patientId=${patient.id}`)
    await addItem(page, 'Add a procedure', 'HydraFacial')
    await page.getByRole('button', { name: 'See points' }).click()
    await expect(page.getByRole('heading', { name: 'Points for this visit' })).toBeVisible()
    // The flag first, before the membership, the lines and the bank.
    const flag = page.getByRole('alert')
    await expect(flag).toContainText(VISIT_MESSAGES.memberPastDue(planName))
    const block = page.getByRole('region', { name: 'Membership' })
    await expect(block.getByText('Past due', { exact: true })).toBeVisible()
    expect(
      await flag.evaluate(
        (alert, after) => after !== null && (alert.compareDocumentPosition(after) & 4) === 4,
        await block.elementHandle(),
      ),
    ).toBe(true)
    // No member perks: the full price, no included HydraFacial, no multiplier.
    await expect(page.getByText(/^Included with the membership/)).toHaveCount(0)
    await expect(page.getByText('2× member points')).toHaveCount(0)
    const totals = page.getByRole('region', { name: 'Totals' })
    await expect(totals).toContainText('Due at the desk$199.00')
    await shoot(page, 'checkout-member-past-due', flag)
    // The bank's paid value can still be used.
    await page.getByRole('button', { name: 'Use all: $100.00 from the bank' }).click()
    await expect(totals).toContainText('Due at the desk$99.00')
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(
      page.getByText(
        'To pay $100.00 from the membership bank, the patient confirms with a 6-digit code we text to their phone.',
      ),
    ).toBeVisible()
  })
})

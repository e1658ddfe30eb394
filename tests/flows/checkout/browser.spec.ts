/**
 * The checkout's Playwright driver: its QA paths (docs/paths/checkout.md), replayed in Chromium
 * against the real server. Every path gets a patient of its own (codes are limited per patient:
 * 30 seconds apart, 5 an hour) with a phone and the model's balance, and, when it completes an
 * appointment, an appointment of its own, and, when it previews the appointment's HydraFacial
 * with the model's claimed offer, that offer as a promotion of its own ($50.00 off HydraFacial,
 * published and claimed for the patient), so that the real server's discount, total and points
 * are the model's; the programme's code threshold is the model's for the path and is put back
 * afterwards. The calls' answers are the real server's, except the three the path file marks as
 * request interception.
 */
import { randomUUID } from 'node:crypto'
import type { APIRequestContext } from '@playwright/test'
import type { ProgrammeRules } from '#domain/ledger.ts'
import { MEMBERSHIP_AGREEMENT, type Membership, type Plan } from '#domain/memberships.ts'
import type { CatalogueItem } from '#domain/practice-data.ts'
import { formatDollars, VISIT_MESSAGES, type VisitAnswer } from '#domain/visits.ts'
import {
  allowanceLineWords,
  allowanceSentence,
  type CheckoutPreview,
  type CheckoutRedemption,
  chosenValuation,
  deskCents,
  memberPriceSentence,
} from '#machines/checkout/checkout.machine.ts'
import {
  type ApiSession,
  apiSignIn,
  expect,
  storeSession,
  test,
} from '#tests/e2e/support/fixtures.ts'
import { leafNode, nextAnswer, type QaPath, type QaStep } from '#tests/mbt/index.ts'
import { phoneFor, smsCode } from '#tests/paths/support/api.ts'
import {
  apiError,
  atStep,
  letAnswerThrough,
  type ReplayContext,
  type Replayer,
  replayFlow,
} from '#tests/paths/support/replay.ts'
import {
  type CheckoutModelEvent,
  checkoutFlow,
  checkoutModel,
  checkoutFixtures as f,
  memberScenario,
  previewsOffer,
} from './model.ts'

const MANAGER = { email: 'manager@example.com', password: 'ManagerPass123' }
const STAFF = { email: 'staff@example.com', password: 'StaffPass123' }

/** A number unique to this run, so that every path's patient has a name of its own. */
const RUN = Date.now() % 100_000

type Patient = { id: number; name: string; lastName: string; phone: string }

type Context = ReplayContext & {
  admin: ApiSession
  patient: Patient
  /** When the page last asked for a code (the outbox is read from then on). */
  codeAskedAt: Date
  /** The code typed last (a wrong one where the path has the server refuse it). */
  typedCode: string
}

/** What a path changed on the shared server, put back after it (pass or fail). */
let cleanups: Array<(request: APIRequestContext) => Promise<void>> = []

test.afterEach(async ({ request }) => {
  const pending = cleanups.reverse()
  cleanups = []
  for (const cleanup of pending) await cleanup(request)
})

const headers = (session: ApiSession) => ({ Authorization: `Bearer ${session.jwt}` })

/** Sets the programme's code threshold to the model's for this path, and puts it back after. */
async function setModelThreshold(request: APIRequestContext, admin: ApiSession) {
  const read = await request.get('/api/practice/rules', { headers: headers(admin) })
  expect(read.status(), await read.text()).toBe(200)
  const before = (await read.json()) as ProgrammeRules
  const threshold = f.preview.preview.redemption_code_threshold
  if (before.redemption_code_threshold === threshold) return
  const put = (rules: ProgrammeRules) =>
    request.put('/api/practice/rules', { headers: headers(admin), data: rules })
  const changed = await put({ ...before, redemption_code_threshold: threshold })
  expect(changed.status(), await changed.text()).toBe(200)
  cleanups.push(async (r) => {
    const session = await apiSignIn(r)
    const restored = await r.put('/api/practice/rules', {
      headers: headers(session),
      data: before,
    })
    expect(restored.status(), await restored.text()).toBe(200)
  })
}

/** The catalogue item the model names, as the practice has it. */
async function catalogueItem(
  request: APIRequestContext,
  admin: ApiSession,
  kind: 'procedures' | 'products',
  name: string,
): Promise<CatalogueItem> {
  const response = await request.get(`/api/${kind}`, {
    headers: headers(admin),
    params: { practice: admin.practice.id },
  })
  expect(response.status(), await response.text()).toBe(200)
  const item = ((await response.json()) as CatalogueItem[]).find((row) => row.name === name)
  if (!item) throw new Error(`no ${name} in the practice's ${kind}`)
  return item
}

/** The path's own patient (the model's first name), with a phone and the model's balance. */
async function createPatient(
  request: APIRequestContext,
  admin: ApiSession,
  path: QaPath,
): Promise<Patient> {
  const scenario = memberScenario(path)
  const modelled =
    scenario === 'member' ? f.member : scenario === 'pastDue' ? f.pastDueMember : f.patient
  const [first = 'Avery', last = 'Brooks'] = modelled.name.split(' ')
  // Letters only, so that the search reads it as a name (not as phone digits).
  const tag = (RUN * 100 + path.number)
    .toString(26)
    .replace(/./g, (c) => String.fromCharCode(97 + Number.parseInt(c, 26)))
  const lastName = `${last}${tag}`
  const phone = phoneFor('557', 700 + path.number)
  const created = await request.post('/api/patients', {
    headers: headers(admin),
    data: { first_name: first, last_name: lastName, phone },
  })
  expect(created.status(), await created.text()).toBe(201)
  const { id } = (await created.json()) as { id: number }
  const adjusted = await request.post(`/api/patients/${id}/adjustments`, {
    headers: headers(admin),
    data: {
      points: f.preview.preview.balance,
      reason: 'Points to redeem in the QA path',
      idempotencyKey: randomUUID(),
    },
  })
  expect(adjusted.status(), await adjusted.text()).toBe(201)
  return { id, name: `${first} ${lastName}`, lastName, phone }
}

/** An appointment for the patient's HydraFacial, now. */
async function createAppointment(
  request: APIRequestContext,
  admin: ApiSession,
  patient: Patient,
): Promise<number> {
  const procedure = await catalogueItem(request, admin, 'procedures', f.procedure.name)
  const response = await request.post('/api/appointments', {
    headers: headers(admin),
    data: {
      patient_id: patient.id,
      procedure_id: procedure.id,
      starts_at: new Date().toISOString(),
    },
  })
  expect(response.status(), await response.text()).toBe(201)
  return ((await response.json()) as { id: number }).id
}

/**
 * The model's claimed offer on the real server: a promotion of its own for the path's patient
 * ("Birthday Glow" and the patient's name), $50.00 off HydraFacial, published and claimed.
 */
async function claimOffer(request: APIRequestContext, admin: ApiSession, patient: Patient) {
  const hydra = await catalogueItem(request, admin, 'procedures', f.procedure.name)
  const created = await request.post('/api/promotions', {
    headers: headers(admin),
    data: {
      title: `${f.offer.title} ${patient.lastName}`,
      discount_cents: f.previewOffer.preview.offer_values?.[0]?.discount_cents,
      procedure_ids: [hydra.id],
    },
  })
  expect(created.status(), await created.text()).toBe(201)
  const { id } = (await created.json()) as { id: number }
  const published = await request.post(`/api/promotions/${id}/publish`, {
    headers: headers(admin),
  })
  expect(published.status(), await published.text()).toBe(200)
  const claimed = await request.put(`/api/promotions/claimed/${id}`, {
    headers: headers(admin),
    data: { promo: id, patient_id: patient.id },
  })
  expect(claimed.status(), await claimed.text()).toBe(200)
}

async function ok<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, status = 200) {
  expect(response.status(), await response.text()).toBe(status)
  return (await response.json()) as T
}

/** A test token of the test gateway's card `number`. */
async function cardToken(request: APIRequestContext, number: string): Promise<string> {
  const token = await request.post('/api/payments/test-tokens', {
    data: { number, exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  return (await ok<{ id: string }>(token)).id
}

/**
 * The model's plan on the demo practice (once per server), payments connected: 1 HydraFacial a
 * month included, the member price, the bank and the multiplier of the model.
 */
async function memberPlan(request: APIRequestContext, admin: ApiSession): Promise<Plan> {
  const account = await ok<{ connected: boolean }>(
    await request.get('/api/practice/payments', { headers: headers(admin) }),
  )
  if (!account.connected) {
    await ok(
      await request.post('/api/practice/payments/connect', { headers: headers(admin), data: {} }),
    )
  }
  const { data: plans } = await ok<{ data: Plan[] }>(
    await request.get('/api/membership-plans', { headers: headers(admin) }),
  )
  const found = plans.find((plan) => plan.name === f.memberPlan.name)
  if (found) return found
  const hydra = await catalogueItem(request, admin, 'procedures', f.procedure.name)
  const created = await request.post('/api/membership-plans', {
    headers: headers(admin),
    data: {
      name: f.memberPlan.name,
      description: 'A HydraFacial a month, member prices and a monthly bank.',
      price_cents: f.memberPlan.price_cents,
      interval: 'month',
      setup_fee_cents: 0,
      min_cycles: 1,
      notice_days: 0,
      perks: {
        bank_cents: f.memberPlan.bank_cents,
        allowances: [
          { catalogue_item_id: hydra.id, quantity: f.memberPlan.hydraFacials, rollover_cap: 0 },
        ],
        discount_percent: f.memberPlan.discount_percent,
        discount_item_ids: [],
        points_multiplier: f.memberPlan.points_multiplier,
        join_bonus_points: 0,
      },
    },
  })
  return ok<Plan>(created, 201)
}

/**
 * Enrols the path's patient in the model's plan with the test card 4242… (the first month paid,
 * its bank credited); for the past-due member, a card that declines goes on file and the billing
 * clock moves past the renewal, which is declined.
 */
async function enrol(context: Context, pastDue: boolean): Promise<void> {
  const { request, admin, patient, path } = context
  const plan = await memberPlan(request, admin)
  const enrolled = await request.post(`/api/patients/${patient.id}/memberships`, {
    headers: headers(admin),
    data: {
      plan_id: plan.id,
      payment_method_token: await cardToken(request, '4242424242424242'),
      consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: patient.name },
      idempotencyKey: `paths-checkout-${RUN}-${path.number}`,
    },
  })
  const membership = await ok<Membership>(enrolled, 201)
  if (!pastDue) return
  await ok(
    await request.put(`/api/memberships/${membership.id}/card`, {
      headers: headers(admin),
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
  const after = await ok<Membership>(
    await request.get(`/api/memberships/${membership.id}`, { headers: headers(admin) }),
  )
  expect(after.status).toBe('past_due')
}

/** Another desk has the patient texted a code (refused when one went out under 30 s ago). */
async function codeFromElsewhere(context: Context): Promise<void> {
  const { request, admin, patient } = context
  const asked = new Date(Date.now() - 1000)
  const response = await request.post(`/api/patients/${patient.id}/redemption-code`, {
    headers: headers(admin),
    data: { points: f.manyPoints },
  })
  expect([201, 429], await response.text()).toContain(response.status())
  if (response.status() === 201) context.codeAskedAt = asked
}

const otherCode = (code: string) => (code === '000000' ? '111111' : '000000')

/**
 * Five wrong codes for the code the held posting carries, through the API: the posting that
 * follows meets a code with no attempts left.
 */
async function spendAttempts(context: Context): Promise<void> {
  const { request, admin, gate } = context
  const held = await gate.held('recordVisit')
  const body = held.postDataJSON() as {
    patient_id: number
    items: unknown[]
    redemption: {
      points?: number
      promotion_id?: number
      verification: { authyId: string; code: string }
    }
  }
  const { verification, ...amount } = body.redemption
  const { authyId, code } = verification
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await request.post('/api/visits', {
      headers: headers(admin),
      data: {
        patient_id: body.patient_id,
        appointment_id: null,
        items: body.items,
        idempotencyKey: randomUUID(),
        redemption: { ...amount, verification: { authyId, code: otherCode(code) } },
      },
    })
    expect(response.status(), await response.text()).toBe(422)
  }
}

/** Five wrong checks of the code the held check carries: it then has no attempts left. */
async function spendCheckAttempts(context: Context): Promise<void> {
  const { request, admin, gate } = context
  const held = await gate.held('checkCode')
  const body = held.postDataJSON() as { authyId: string; code: string; points?: number }
  const url = held.url().replace(/^https?:\/\/[^/]+/, '')
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await request.post(url, {
      headers: headers(admin),
      data: { ...body, code: otherCode(body.code) },
    })
    expect(response.status(), await response.text()).toBe(422)
  }
}

/** Archives the model's product while See points waits; it is restored after the path. */
async function archiveProduct(context: Context): Promise<void> {
  const { request, admin } = context
  const product = await catalogueItem(request, admin, 'products', f.product.name)
  const archived = await request.post(`/api/products/${product.id}/archive`, {
    headers: headers(admin),
  })
  expect(archived.ok(), await archived.text()).toBe(true)
  cleanups.push(async (r) => {
    const session = await apiSignIn(r)
    const restored = await r.post(`/api/products/${product.id}/restore`, {
      headers: headers(session),
    })
    expect(restored.ok(), await restored.text()).toBe(true)
  })
}

const button = (context: Context, name: string | RegExp) =>
  context.page.getByRole('button', { name, exact: typeof name === 'string' })

/** A button showing that its call is on the way. */
const busy = (context: Context, name: string) =>
  context.page.locator('button[data-loading]').filter({ hasText: name })

/** The model's sentence as the real server words it (its wait is the real one). */
function shown(message: string): string | RegExp {
  if (!message.includes(f.codeTooSoon)) return message
  const escaped = message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(escaped.replace(/\d+/, '\\d+'))
}

/** The failure of the last step in a red alert, or none. */
async function expectError(context: Context, state: QaStep['state']) {
  const alerts = context.page.getByRole('alert').filter({ hasText: 'This did not work' })
  const error = state.context.error as string | null
  if (error) await expect(alerts).toContainText(shown(error))
  else await expect(alerts).toHaveCount(0)
}

type Seen = {
  preview: CheckoutPreview['preview'] | null
  redemption: CheckoutRedemption
  offers: CheckoutPreview['offers']
  bankCents: number
  undoneBank: number | null
  result: VisitAnswer | null
}

/**
 * A member's review in the real server's numbers (the model's, worked out the same): the flag
 * first when the perks are on hold, the plan, its status and bank, each line's included units and
 * member price with the multiplier, what is due at the desk and the bank field.
 */
async function expectMemberReview(context: Context, c: Seen) {
  const { page } = context
  const membership = c.preview?.membership
  if (!membership || !c.preview) {
    await expect(page.getByRole('region', { name: 'Membership' })).toHaveCount(0)
    return
  }
  const block = page.getByRole('region', { name: 'Membership' })
  await expect(block).toContainText(membership.plan_name)
  await expect(block).toContainText(membership.perks_apply ? 'Active' : 'Past due')
  await expect(block).toContainText(`Bank: ${formatDollars(membership.bank_cents)}`)
  const flag = page.getByTestId('member-flag')
  if (membership.flag) await expect(flag).toContainText(membership.flag)
  else await expect(flag).toHaveCount(0)
  const items = page.getByRole('list', { name: 'Points per item' }).getByRole('listitem')
  for (const [index, line] of c.preview.lines.entries()) {
    const item = items.nth(index)
    await expect(item).toContainText(`+${line.points} points`)
    const allowance = (line.allowance_units ?? 0) > 0 ? membership.allowances[0] : undefined
    if (allowance) {
      await expect(item).toContainText(
        `Included with the membership: ${allowanceLineWords(allowance, membership.interval)}`,
      )
    }
    const price = memberPriceSentence(membership, line)
    if (price) await expect(item).toContainText(price)
    await expect(item.getByText(`${membership.points_multiplier}× member points`)).toHaveCount(
      membership.perks_apply && line.points > 0 ? 1 : 0,
    )
  }
  await expect(page.getByRole('region', { name: 'Totals' })).toContainText(
    `Due at the desk${formatDollars(deskCents(c))}`,
  )
  const field = page.getByRole('textbox', { name: 'Paid from the membership bank' })
  if (c.bankCents > 0) await expect(field).toHaveValue(`$${c.bankCents / 100}`)
  else await expect(field).toHaveValue('')
}

/** The code step of a bank payment names its amount, as the text message does. */
async function expectBankCode(context: Context, c: Seen) {
  const amount = context.page.getByTestId('code-amount')
  if (c.bankCents > 0) {
    await expect(amount).toContainText(
      `The text message names the amount: ${formatDollars(c.bankCents)} from the membership bank.`,
    )
  } else await expect(amount).toHaveCount(0)
}

async function addItem(context: Context, label: string, name: string) {
  await context.page.getByRole('combobox', { name: label }).click()
  await context.page.getByRole('option', { name: new RegExp(`^${name}`) }).click()
}

const replayer: Replayer<Context> = {
  async open(context) {
    const { page, request, path } = context
    context.admin = await apiSignIn(request)
    await setModelThreshold(request, context.admin)
    context.patient = await createPatient(request, context.admin, path)
    if (path.steps.some((step) => step.event.type.startsWith('xstate.after.'))) {
      await page.clock.install()
    }
    let url = '/checkout'
    let session = context.admin
    if (previewsOffer(path)) await claimOffer(request, context.admin, context.patient)
    const member = memberScenario(path)
    if (member) await enrol(context, member === 'pastDue')
    if (path.modelScenario.startsWith('Complete')) {
      const appointment = await createAppointment(request, context.admin, context.patient)
      url = `/checkout?appointmentId=${appointment}`
    } else if (path.modelScenario.startsWith('Record')) {
      session = await apiSignIn(request, STAFF.email, STAFF.password)
      url = `/checkout?patientId=${context.patient.id}`
    } else {
      session = await apiSignIn(request, MANAGER.email, MANAGER.password)
    }
    await storeSession(page, session)
    await page.goto(url)
  },

  async perform(context, i) {
    const { page, path, gate, request } = context
    const event = (path.steps[i] as QaStep).event as CheckoutModelEvent
    switch (event.type) {
      case 'patient.choose': {
        const box = page.getByRole('combobox', { name: 'Patient' })
        await box.click()
        await box.pressSequentially(context.patient.lastName)
        await page.getByRole('option', { name: new RegExp(`^${context.patient.name}`) }).click()
        return
      }
      case 'patient.change':
        await button(context, 'Change patient').click()
        return
      case 'item.add':
        await addItem(
          context,
          event.item.kind === 'procedure' ? 'Add a procedure' : 'Add a product',
          event.item.name,
        )
        return
      case 'item.change':
        await page.getByLabel(`Quantity of ${f.product.name}`).fill(String(event.quantity))
        await page
          .getByLabel(`Unit price of ${f.product.name}`)
          .fill(String(event.price_cents / 100))
        return
      case 'item.remove':
        await button(context, `Remove ${f.procedure.name}`).click()
        return
      case 'items.submit':
        await button(context, 'See points').click()
        return
      case 'items.edit':
        await button(context, 'Edit items').click()
        return
      case 'redemption.choose': {
        const { redemption } = event
        if (redemption.kind === 'none') {
          await page.getByRole('radio', { name: 'Nothing', exact: true }).check()
        } else if (redemption.kind === 'promotion') {
          await page.getByRole('radio', { name: new RegExp(`^${redemption.title}`) }).check()
          // Points for a reward as well, with the offer.
          if (redemption.points) {
            await page.getByLabel('Points to redeem as well').fill(String(redemption.points))
          }
        } else {
          await page.getByRole('radio', { name: 'Points', exact: true }).check()
          await page.getByLabel('Points to redeem').fill(String(redemption.points))
        }
        return
      }
      case 'bank.change':
        await page
          .getByRole('textbox', { name: 'Paid from the membership bank' })
          .fill(String(event.cents / 100))
        return
      case 'bank.useAll':
        await page.getByRole('button', { name: /^Use all/ }).click()
        return
      case 'review.submit':
      case 'consent.submit':
        await button(context, 'Continue').click()
        return
      case 'code.send':
        context.codeAskedAt = new Date(Date.now() - 1000)
        await button(context, /^(Get code|Resend code)$/).click()
        return
      case 'code.change': {
        const code = await smsCode(request, context.patient.phone, context.codeAskedAt)
        if (event.code.length < 6) {
          await page.getByLabel('SMS code').fill(code.slice(0, event.code.length))
          return
        }
        const refused = nextAnswer(path, i, 'checkCode') as { error?: Error } | undefined
        context.typedCode =
          refused?.error?.message === VISIT_MESSAGES.codeIncorrect ? otherCode(code) : code
        await page.getByLabel('SMS code').fill(context.typedCode)
        return
      }
      case 'approval.change': {
        const { fields } = event
        await page.getByLabel('Reason for the approval').fill(fields.reason ?? '')
        if (await page.getByLabel("Manager's e-mail").count()) {
          const refused = nextAnswer(path, i, 'approveVisit') as { error?: Error } | undefined
          await page.getByLabel("Manager's e-mail").fill(fields.email ?? '')
          await page
            .getByLabel("Manager's password")
            .fill(refused?.error ? 'not-the-password' : (fields.password ?? ''))
        }
        return
      }
      case 'approval.submit':
        await button(context, 'Approve').click()
        return
      case 'approval.back':
        await button(context, 'Back').click()
        return
      case 'consent.useOverride':
        await button(context, 'Use a manager override').click()
        return
      case 'consent.useCode':
        await button(context, "Use the patient's code instead").click()
        return
      case 'override.change':
        await page.getByLabel('Reason for the override').fill(event.reason)
        return
      case 'consent.back':
      case 'confirm.back':
        await button(context, 'Back').click()
        return
      case 'visit.confirm':
        await button(context, 'Confirm visit').click()
        return
      case 'visit.undo':
        await button(context, 'Undo visit').click()
        await page
          .getByRole('dialog', { name: 'Undo this visit?' })
          .getByRole('button', { name: 'Undo visit', exact: true })
          .click()
        return
      case 'xstate.error.actor.previewVisit':
        await gate.held('previewVisit')
        await archiveProduct(context)
        await gate.release('previewVisit')
        return
      case 'xstate.error.actor.sendCode':
        await gate.held('sendCode')
        await codeFromElsewhere(context)
        await gate.release('sendCode')
        return
      case 'xstate.error.actor.checkCode': {
        if (event.error.message === VISIT_MESSAGES.codeAttempts) await spendCheckAttempts(context)
        await gate.release('checkCode')
        return
      }
      case 'xstate.error.actor.recordVisit': {
        const { message } = event.error
        if (message === f.timeout) {
          await gate.release('recordVisit', apiError(504, 'GatewayTimeout', f.timeout))
          return
        }
        if (message === VISIT_MESSAGES.codeAttempts) await spendAttempts(context)
        await gate.release('recordVisit')
        return
      }
      case 'xstate.error.actor.undoVisit': {
        const { message } = event.error
        await gate.release(
          'undoVisit',
          message === VISIT_MESSAGES.undoWindowPassed
            ? apiError(409, 'ConflictError', message)
            : apiError(503, 'ServiceUnavailable', message),
        )
        return
      }
      case 'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown':
        await expect(button(context, /^Resend code in \d+ s$/)).toBeDisabled()
        await page.clock.fastForward(30_000)
        return
      case 'xstate.after.undoWindow.checkout.done.undoable':
        await page.clock.fastForward(10 * 60 * 1000)
        return
      default:
        await letAnswerThrough(gate, event)
    }
  },

  async expectStep(context, i) {
    const { page, gate, state } = atStep(context, i)
    const c = state.context as Seen & {
      items: { name: string }[]
      appointmentId: number | null
      redemption: CheckoutRedemption
      reason: string
      canOverride: boolean
      canApprove: boolean
    }
    // The chosen offer's value, in the model's numbers (the real server's, worked out the same).
    const valuation = chosenValuation(c)
    const offerValue = valuation && !valuation.problem && c.preview ? valuation : null
    const leaf = leafNode(checkoutModel.machine, state).id
    switch (leaf) {
      case 'checkout.choosingPatient':
        await expect(page.getByText('Step 1 of 6: Patient')).toBeVisible()
        await expect(page.getByRole('combobox', { name: 'Patient' })).toBeVisible()
        return
      case 'checkout.editingItems':
        await expect(
          page.getByRole('heading', { name: 'What did the visit include?' }),
        ).toBeVisible()
        await expect(page.getByText(`Patient: ${context.patient.name}`)).toBeVisible()
        for (const item of c.items) {
          await expect(page.getByLabel(`Quantity of ${item.name}`)).toBeVisible()
        }
        if (c.items.length > 0) await expect(button(context, 'See points')).toBeEnabled()
        else await expect(button(context, 'See points')).toBeDisabled()
        await expect(button(context, 'Change patient')).toHaveCount(
          c.appointmentId === null ? 1 : 0,
        )
        await expectError(context, state)
        return
      case 'checkout.previewing':
        await gate.held('previewVisit')
        await expect(busy(context, 'See points')).toBeVisible()
        return
      case 'checkout.reviewing': {
        await expect(page.getByRole('heading', { name: 'Points for this visit' })).toBeVisible()
        if (offerValue && c.preview) {
          // Per line what the offer takes off and what it pays, then the new total and points.
          const discounts = c.preview.lines.flatMap((line, index) => {
            const off = offerValue.lines[index]?.discount_cents ?? 0
            const pays = line.unit_price_cents * line.quantity - off
            return off > 0 ? [`Offer: −${formatDollars(off)}, pays ${formatDollars(pays)}`] : []
          })
          await expect(page.getByTestId('line-discount')).toHaveText(discounts)
          await expect(page.getByTestId('visit-earns')).toHaveText(
            `With ${offerValue.value}, this visit costs ${formatDollars(offerValue.total_cents)} instead of ${formatDollars(c.preview.total_cents)} and earns ${offerValue.points} points.`,
          )
        } else {
          await expect(page.getByText(/This visit earns/)).toBeVisible()
          await expect(page.getByTestId('line-discount')).toHaveCount(0)
        }
        const r = c.redemption
        const checked =
          r.kind === 'none'
            ? page.getByRole('radio', { name: 'Nothing', exact: true })
            : r.kind === 'points'
              ? page.getByRole('radio', { name: 'Points', exact: true })
              : page.getByRole('radio', { name: new RegExp(`^${r.title}`) })
        await expect(checked).toBeChecked()
        if (state.can({ type: 'review.submit' })) {
          await expect(button(context, 'Continue')).toBeEnabled()
        } else {
          await expect(button(context, 'Continue')).toBeDisabled()
        }
        await expectMemberReview(context, c)
        return
      }
      case 'checkout.approval.editing':
        await expect(page.getByRole('heading', { name: "A manager's approval" })).toBeVisible()
        await expect(page.getByText(/is above its catalogue price of/).first()).toBeVisible()
        await expect(page.getByLabel("Manager's password")).toHaveCount(c.canApprove ? 0 : 1)
        if (state.can({ type: 'approval.submit' })) {
          await expect(button(context, 'Approve')).toBeEnabled()
        } else {
          await expect(button(context, 'Approve')).toBeDisabled()
        }
        await expectError(context, state)
        return
      case 'checkout.approval.requesting':
        await gate.held('approveVisit')
        await expect(busy(context, 'Approve')).toBeVisible()
        return
      case 'checkout.consent.code.checking':
        await gate.held('checkCode')
        await expect(page.getByText('Checking the code…')).toBeVisible()
        return
      case 'checkout.consent.code.idle':
        await expect(page.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
        await expect(button(context, 'Get code')).toBeEnabled()
        await expect(button(context, 'Continue')).toBeDisabled()
        await expect(button(context, 'Use a manager override')).toHaveCount(c.canOverride ? 1 : 0)
        await expectBankCode(context, c)
        await expectError(context, state)
        return
      case 'checkout.consent.code.sending':
        await gate.held('sendCode')
        await expect(busy(context, 'Get code')).toBeVisible()
        return
      case 'checkout.consent.code.sent.coolingDown':
        await expect(page.getByLabel('SMS code')).toBeVisible()
        await expectBankCode(context, c)
        await expect(button(context, /^Resend code in \d+ s$/)).toBeDisabled()
        await expectError(context, state)
        return
      case 'checkout.consent.code.sent.resendReady':
        await expect(page.getByLabel('SMS code')).toBeVisible()
        await expect(button(context, 'Resend code')).toBeEnabled()
        await expectError(context, state)
        return
      case 'checkout.consent.override':
        await expect(page.getByLabel('Reason for the override')).toBeVisible()
        if (c.reason.trim()) await expect(button(context, 'Continue')).toBeEnabled()
        else await expect(button(context, 'Continue')).toBeDisabled()
        return
      case 'checkout.confirming':
        await expect(page.getByRole('heading', { name: 'Confirm the visit' })).toBeVisible()
        if (offerValue) {
          // What the patient pays, and the points earned on it.
          await expect(page.getByTestId('visit-total')).toHaveText(
            formatDollars(offerValue.total_cents),
          )
          await expect(page.getByText(`Points earned: ${offerValue.points} points`)).toBeVisible()
        }
        if (c.bankCents > 0) {
          // What the member's visit uses: the included treatment and the bank.
          for (const a of c.preview?.membership?.allowances.filter((x) => x.used > 0) ?? []) {
            await expect(
              page.getByText(
                `Uses ${allowanceSentence(a, c.preview?.membership?.interval ?? 'month')}.`,
              ),
            ).toBeVisible()
          }
          await expect(page.getByTestId('visit-bank')).toHaveText(`−${formatDollars(c.bankCents)}`)
          await expect(page.getByTestId('visit-desk')).toHaveText(formatDollars(deskCents(c)))
        }
        await expect(button(context, 'Confirm visit')).toBeEnabled()
        await expectError(context, state)
        return
      case 'checkout.submitting':
        await gate.held('recordVisit')
        await expect(busy(context, 'Confirm visit')).toBeVisible()
        return
      case 'checkout.done.undoable': {
        const recorded = page.getByRole('status').filter({ hasText: 'Visit recorded' })
        await expect(recorded).toBeVisible()
        const answer = c.result
        if (answer?.visit.discount_cents) {
          // The recorded visit: earned on what was paid, and what the offer took off.
          const sum = (kind: string) =>
            answer.entries.filter((e) => e.kind === kind).reduce((n, e) => n + e.points, 0)
          await expect(recorded).toContainText(
            `earned ${sum('earn')} points and redeemed ${-sum('redeem')} points. The balance is now ${answer.balance} points. The offer took ${formatDollars(answer.visit.discount_cents)} off: the visit comes to ${formatDollars(answer.visit.total_cents)}.`,
          )
        }
        if (answer?.visit.bank_cents) {
          // The bank paid its part: the server's balance after it.
          await expect(recorded).toContainText(
            `Paid from the membership bank: ${formatDollars(answer.visit.bank_cents)} · bank now ${formatDollars(answer.membership_bank_cents ?? 0)}.`,
          )
        }
        await expect(button(context, 'Undo visit').first()).toBeEnabled()
        await expectError(context, state)
        return
      }
      case 'checkout.done.undoing':
        await gate.held('undoVisit')
        await expect(busy(context, 'Undo visit')).toBeVisible()
        return
      case 'checkout.done.closed':
        await expect(page.getByRole('status').filter({ hasText: 'Visit recorded' })).toBeVisible()
        await expect(button(context, 'Undo visit')).toHaveCount(0)
        await expect(page.getByRole('link', { name: "Open the patient's profile" })).toBeVisible()
        await expectError(context, state)
        return
      case 'checkout.undone': {
        const undone = page.getByRole('status').filter({ hasText: 'Visit undone' })
        await expect(undone).toContainText('Its points were reversed.')
        const bank = c.result?.visit.bank_cents ?? 0
        if (bank > 0) {
          // The server put the bank back, and the included HydraFacial.
          await expect(undone).toContainText(
            `${formatDollars(bank)} went back to the membership bank: bank now ${formatDollars(c.undoneBank ?? 0)}.`,
          )
          await expect(undone).toContainText(
            `The membership includes 1 × ${f.procedure.name} again.`,
          )
        }
        return
      }
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

replayFlow<Context>(checkoutFlow, { [checkoutModel.name]: replayer }, (base) => ({
  ...base,
  admin: undefined as never,
  patient: undefined as never,
  codeAskedAt: new Date(),
  typedCode: '',
}))

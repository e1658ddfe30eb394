/**
 * The membership lifecycle's Playwright driver: its QA paths (docs/paths/membership.md), replayed
 * in Chromium against the real server as the demo Admin. Every path enrols a patient of its own
 * (through the API, with the test card 4242…); staff changes are the panel's buttons, and billing
 * events the test cards and the billing clock (`POST /api/dev/clock`, which runs what falls due),
 * after which the desk reloads the profile.
 */
import type { APIRequestContext, Locator, Route } from '@playwright/test'
import { MEMBERSHIP_AGREEMENT, type Membership, type Plan } from '#domain/memberships.ts'
import {
  type ApiSession,
  apiSignIn,
  createPatient,
  expect,
  storeSession,
} from '#tests/e2e/support/fixtures.ts'
import type { QaStep } from '#tests/mbt/index.ts'
import {
  atStep,
  type ReplayContext,
  type Replayer,
  replayFlow,
} from '#tests/paths/support/replay.ts'
import {
  membershipFixtures as fixtures,
  MEMBERSHIP_CARDS,
  type MembershipModelEvent,
  membershipFlow,
  membershipModel,
} from './model.ts'

type Context = ReplayContext & {
  session: ApiSession | null
  membershipId: number
  patientId: number
  /** The held `PUT /api/memberships/{id}/card` of a new card that owes (charged at once). */
  heldCard: Route | null
}

const DAY_MS = 24 * 60 * 60 * 1000

const auth = (context: Context) => ({ Authorization: `Bearer ${context.session?.jwt ?? ''}` })

async function ok<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, status = 200) {
  expect(response.status(), await response.text()).toBe(status)
  return (await response.json()) as T
}

/** The demo practice's payments connected and the two plans built (once per server). */
async function practiceReady(context: Context): Promise<Plan> {
  const { request } = context
  const headers = auth(context)
  const account = await ok<{ connected: boolean }>(
    await request.get('/api/practice/payments', { headers }),
  )
  if (!account.connected) {
    await ok(await request.post('/api/practice/payments/connect', { headers, data: {} }))
  }
  const { data: plans } = await ok<{ data: Plan[] }>(
    await request.get('/api/membership-plans', { headers }),
  )
  const wanted = [
    { name: fixtures.plan, price_cents: 3000 },
    { name: fixtures.otherPlan, price_cents: 4500 },
  ]
  const made: Plan[] = []
  for (const plan of wanted) {
    const found = plans.find((p) => p.name === plan.name)
    if (found) {
      made.push(found)
      continue
    }
    const created = await request.post('/api/membership-plans', {
      headers,
      data: {
        ...plan,
        description: '',
        interval: 'month',
        setup_fee_cents: 0,
        min_cycles: 1,
        notice_days: 0,
        perks: {
          bank_cents: 1000,
          allowances: [],
          discount_percent: 0,
          discount_item_ids: [],
          points_multiplier: 1,
          join_bonus_points: 0,
        },
      },
    })
    made.push(await ok<Plan>(created, 201))
  }
  return made[0] as Plan
}

/** A test token of `number` (spaces allowed), as the card fields make it. */
async function cardToken(request: APIRequestContext, number: string): Promise<string> {
  const token = await request.post('/api/payments/test-tokens', {
    data: { number: number.replaceAll(' ', ''), exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  return (await ok<{ id: string }>(token)).id
}

/** The billing clock now (a move of 0 days runs nothing new). */
async function clockNow(request: APIRequestContext): Promise<number> {
  const answer = await ok<{ now: string }>(
    await request.post('/api/dev/clock', { data: { days: 0 } }),
  )
  return new Date(answer.now).getTime()
}

/** Moves the billing clock past `at` (whole days) and runs what falls due. */
async function clockPast(request: APIRequestContext, at: number): Promise<void> {
  const days = Math.max(1, Math.ceil((at - (await clockNow(request))) / DAY_MS))
  await ok(await request.post('/api/dev/clock', { data: { days } }))
}

/** When the membership's next charge is due (the renewal, or the next retry). */
async function nextCharge(context: Context): Promise<number> {
  const m = await membershipNow(context)
  return Date.parse(m.next_payment_attempt_at ?? m.current_period_end)
}

async function membershipNow(context: Context): Promise<Membership> {
  return ok<Membership>(
    await context.request.get(`/api/memberships/${context.membershipId}`, {
      headers: auth(context),
    }),
  )
}

const panelOf = (context: Context) =>
  context.page.getByRole('region', { name: 'Membership', exact: true })
const dialogOf = (context: Context, name: string) =>
  context.page.getByRole('dialog', { name, exact: true })

/** Clicks `button` of the panel, then answers its dialog with `steps`. */
async function change(
  context: Context,
  button: string,
  dialog: string,
  steps: (dialog: Locator) => Promise<void>,
): Promise<void> {
  await panelOf(context).getByRole('button', { name: button, exact: true }).click()
  const opened = dialogOf(context, dialog)
  await expect(opened).toBeVisible()
  await steps(opened)
}

/** Confirms a previewed change once the server said what it costs. */
async function confirmAfterPreview(dialog: Locator, confirm: string): Promise<void> {
  await expect(dialog.getByRole('status', { name: 'What it costs' })).toBeVisible()
  await dialog.getByRole('button', { name: confirm }).click()
}

async function closed(context: Context, name: string): Promise<void> {
  await expect(dialogOf(context, name)).toHaveCount(0)
}

async function fillCard(dialog: Locator, number: string): Promise<void> {
  const page = dialog.page()
  await dialog.getByLabel(/^Card number/).fill(number.replaceAll(' ', ''))
  await dialog.getByRole('combobox', { name: /^Expiration month/ }).click()
  await page.getByRole('option', { name: '12', exact: true }).click()
  await dialog.getByRole('combobox', { name: /^Expiration year/ }).click()
  await page.getByRole('option', { name: '2030', exact: true }).click()
  await dialog.getByLabel(/^CVV/).fill('123')
}

/** The desk reopens the profile after the billing clock moved. */
async function reopen(context: Context): Promise<void> {
  await context.page.reload()
  await expect(panelOf(context)).toBeVisible()
}

const replayer: Replayer<Context> = {
  async open(context) {
    const { page, request, path } = context
    const session = await apiSignIn(request)
    context.session = session
    const plan = await practiceReady(context)
    const stamp = `${Date.now()}`.slice(-7)
    const patient = await createPatient(request, session, {
      first_name: 'Grace',
      last_name: `Hopper${path.number}x${stamp}`,
      email: `grace.${stamp}.${path.number}@example.com`,
    })
    context.patientId = patient.id
    const enrolled = await request.post(`/api/patients/${patient.id}/memberships`, {
      headers: auth(context),
      data: {
        plan_id: plan.id,
        payment_method_token: await cardToken(request, MEMBERSHIP_CARDS.good),
        consent: {
          text_version: MEMBERSHIP_AGREEMENT.version,
          accepted_by_name: `Grace Hopper${path.number}x${stamp}`,
        },
        idempotencyKey: `paths-membership-${stamp}-${path.number}`,
      },
    })
    context.membershipId = (await ok<Membership>(enrolled, 201)).id
    await storeSession(page, session)
    await page.goto(`/patients/${patient.id}`)
  },

  async perform(context, i) {
    const { request, path } = context
    const event = (path.steps[i] as QaStep).event as MembershipModelEvent
    const before = (path.steps[i - 1] as QaStep).state.value
    switch (event.type) {
      case 'pause':
        await change(context, 'Pause', 'Pause membership', async (dialog) => {
          await dialog.getByRole('button', { name: 'Review cost' }).click()
          await confirmAfterPreview(dialog, 'Confirm pause')
        })
        return closed(context, 'Pause membership')
      case 'resume':
        await change(context, 'Resume', 'Resume membership', (dialog) =>
          dialog.getByRole('button', { name: 'Resume membership' }).click(),
        )
        return closed(context, 'Resume membership')
      case 'cancel.at_period_end':
        await change(context, 'Cancel at end of term', 'Cancel at end of term', (dialog) =>
          confirmAfterPreview(dialog, 'Confirm cancellation'),
        )
        return closed(context, 'Cancel at end of term')
      case 'cancel.undo':
        await change(context, 'Keep membership', 'Keep membership', (dialog) =>
          dialog.getByRole('button', { name: 'Keep membership' }).click(),
        )
        return closed(context, 'Keep membership')
      case 'cancel.now':
        await change(context, 'Cancel now', 'Cancel now', async (dialog) => {
          await dialog.getByRole('button', { name: 'Review cost' }).click()
          await confirmAfterPreview(dialog, 'Cancel membership now')
        })
        return closed(context, 'Cancel now')
      case 'plan.change':
        await change(context, 'Change plan', 'Change plan', async (dialog) => {
          await dialog.getByRole('combobox', { name: /^New plan/ }).click()
          await context.page
            .getByRole('option', { name: new RegExp(`^${fixtures.otherPlan} — `) })
            .click()
          await dialog.getByRole('button', { name: 'Review cost' }).click()
          await confirmAfterPreview(dialog, 'Confirm plan change')
        })
        return closed(context, 'Change plan')
      case 'card.update': {
        const owes = before === 'past_due' || before === 'unpaid'
        if (owes) {
          // Saved and charged in one request: held until the busy dialog has been checked.
          await context.page.route('**/api/memberships/*/card', (route) => {
            context.heldCard = route
          })
        }
        await change(context, 'Update card', 'Update card', async (dialog) => {
          await fillCard(dialog, MEMBERSHIP_CARDS[event.card])
          await dialog
            .getByRole('button', { name: owes ? 'Save card and charge' : 'Save card' })
            .click()
        })
        if (owes) {
          await expect.poll(() => context.heldCard !== null).toBe(true)
          return
        }
        return closed(context, 'Update card')
      }
      case 'charge.succeeded':
        if (event.by === 'new card') {
          const held = context.heldCard
          if (!held) throw new Error('no held card update to let through')
          context.heldCard = null
          await context.page.unroute('**/api/memberships/*/card')
          await held.fallback()
          await closed(context, 'Update card')
          return
        }
        await clockPast(request, await nextCharge(context))
        return reopen(context)
      case 'charge.failed':
        if (event.by === 'charge now') {
          const alert = panelOf(context).getByRole('alert')
          await alert.getByRole('button', { name: 'Charge now' }).click()
          const dialog = dialogOf(context, 'Charge now')
          await confirmAfterPreview(dialog, 'Confirm charge')
          await expect(dialog.getByRole('alert')).toContainText('declined')
          await dialog.getByRole('button', { name: 'Go back' }).click()
          return closed(context, 'Charge now')
        }
        await clockPast(request, await nextCharge(context))
        return reopen(context)
      case 'retries.exhausted': {
        // The last retry is 7 days after the renewal (the renewal's period has not moved on).
        const renewal = Date.parse((await membershipNow(context)).current_period_end)
        await clockPast(request, renewal + 7 * DAY_MS)
        return reopen(context)
      }
      case 'term.ended': {
        const ends = (await membershipNow(context)).cancel_at
        if (!ends) throw new Error('no end of term is set')
        await clockPast(request, Math.max(Date.parse(ends), await nextCharge(context)))
        return reopen(context)
      }
    }
  },

  async expectStep(context, i) {
    const { path, state } = atStep(context, i)
    const panel = panelOf(context)
    const badge = (label: string) => panel.getByText(label, { exact: true })
    const event = (path.steps[i] as QaStep).event as MembershipModelEvent
    const last = (what: string) =>
      panel.getByText(new RegExp(`^No membership now\\. The last one, .+, is ${what} since `))
    switch (state.value) {
      case 'active':
        await expect(badge('Active')).toBeVisible()
        await expect(panel.getByRole('alert').filter({ hasText: /past due|Unpaid/ })).toHaveCount(0)
        if (event.type === 'cancel.at_period_end') {
          await expect(panel.getByText(/^Ends on .+: it will not renew\.$/)).toBeVisible()
          await expect(panel.getByRole('button', { name: 'Keep membership' })).toBeVisible()
        }
        if (event.type === 'cancel.undo') {
          await expect(panel.getByRole('button', { name: 'Cancel at end of term' })).toBeVisible()
        }
        if (event.type === 'plan.change') {
          await expect(
            panel.getByText(new RegExp(`^Moves to ${fixtures.otherPlan} \\(`)),
          ).toBeVisible()
        }
        if (event.type === 'card.update') {
          await expect(
            panel.getByText(
              new RegExp(`^\\w+ •••• ${MEMBERSHIP_CARDS[event.card].slice(-4)}, expires 12/30$`),
            ),
          ).toBeVisible()
        }
        if (event.type === 'charge.succeeded' && event.by === 'new card') {
          await expect(panel.getByRole('status')).toHaveText(
            'The new card was charged: the membership is active again.',
          )
        }
        return
      case 'past_due':
      case 'unpaid': {
        const title = state.value === 'past_due' ? 'Payment past due' : 'Unpaid: perks are stopped'
        await expect(badge(state.value === 'past_due' ? 'Past due' : 'Unpaid')).toBeVisible()
        await expect(panel.getByRole('alert').filter({ hasText: title })).toBeVisible()
        if (
          event.type === 'charge.failed' &&
          event.by === 'charge now' &&
          state.value === 'past_due'
        ) {
          // Read again after the declined charge: the renewal's failure and this one.
          await expect(panel.getByRole('alert')).toContainText('The renewal was declined 2 times.')
        }
        if (event.type === 'card.update') {
          // The new card is on its way: saved and charged in one request.
          await expect(
            dialogOf(context, 'Update card').getByRole('button', { name: 'Save card and charge' }),
          ).toHaveAttribute('data-loading')
        }
        return
      }
      case 'paused':
        await expect(badge('Paused')).toBeVisible()
        await expect(panel.getByRole('button', { name: 'Resume', exact: true })).toBeVisible()
        if (event.type === 'card.update') {
          await expect(
            panel.getByText('Visa •••• 4242, expires 12/30', { exact: true }),
          ).toBeVisible()
        }
        return
      case 'cancelled':
        await expect(last('cancelled')).toBeVisible()
        return
      case 'ended':
        await expect(last('ended')).toBeVisible()
        return
      default:
        throw new Error(`no screen check for ${JSON.stringify(state.value)}`)
    }
  },
}

replayFlow<Context>(membershipFlow, { [membershipModel.name]: replayer }, (base) => ({
  ...base,
  session: null,
  membershipId: 0,
  patientId: 0,
  heldCard: null,
}))

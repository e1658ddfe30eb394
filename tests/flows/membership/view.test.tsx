/**
 * The membership lifecycle's jsdom driver: the chart's paths replayed on the patient's profile
 * (the real app and route, the Membership panel) with user-event, against a fake API whose
 * membership moves through the real chart as the server's does (`nextStatus`): each change the
 * desk confirms, each charge of the card on file (declined for 4000 0000 0000 0341) and each run
 * of the billing clock sends the chart its event. After every step the chart is where the path
 * says, and the panel shows it.
 */
import { act, screen, within } from '@testing-library/react'
import type { UserEvent } from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import type { Membership, MembershipStatus, PaymentAccount, Plan } from '#domain/memberships.ts'
import { membershipMachine } from '#machines/membership/membership.machine.ts'
import type { MembershipEventLine } from '#src/features/memberships/membership-panel.tsx'
import {
  expectEveryStateAndEvent,
  type PerformEach,
  replayThroughView,
  type ScreenChecks,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, type QaPath, qaFlow } from '#tests/mbt/index.ts'
import { type Deferred, deferred } from '#tests/support/deferred.ts'
import { demoPractice, demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { NEXTECH_NOT_CHOSEN } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'
import {
  membershipFixtures as fixtures,
  MEMBERSHIP_CARDS,
  type MembershipModelEvent,
  membershipEvents,
  membershipFlow,
  membershipModel as model,
} from './model.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const DECLINED = 'Your card was declined.'

const plan = (id: number, name: string, price_cents: number): Plan => ({
  id,
  name,
  description: '',
  price_cents,
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
  version: 1,
  archived: false,
  active_members: 1,
})

const GLOW = plan(4, fixtures.plan, 3000)
const PLUS = plan(5, fixtures.otherPlan, 4500)

const CONNECTED: PaymentAccount = {
  connected: true,
  provider: 'test',
  account_id: 'acct_test_1',
  connected_at: '2026-10-01T12:00:00.000Z',
  retry_schedule_days: [1, 3, 5, 7],
}

const patient = {
  id: 2,
  practice_id: 1,
  first_name: 'Grace',
  last_name: 'Hopper',
  email: 'grace@example.com',
  phone: '5551234567',
  email_subscription: true,
  sms_subscription: false,
  birth_date: null,
  converted: false,
  points: 20,
  archived: false,
  last_visit_at: null,
  created_at: '2025-01-02T10:00:00.000Z',
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The server's side of one membership: the real chart moved by every change, the card on file,
 * what the desk's reload reads. A new card that owes is held after it is saved (`cardHeld`) until
 * the test lets its charge through (`releaseCard`).
 */
function fakeServer() {
  const actor = createActor(membershipMachine).start()
  const start = Date.parse('2026-11-01T12:00:00.000Z')
  let m: Membership = {
    id: 30,
    patient_id: 2,
    patient_name: 'Grace Hopper',
    plan: GLOW,
    status: 'active',
    started_at: iso(start),
    current_period_start: iso(start),
    current_period_end: iso(start + 30 * DAY_MS),
    cycle: 1,
    cancel_at_period_end: false,
    cancel_at: null,
    cancel_reason: null,
    ended_at: null,
    resumes_at: null,
    next_plan: null,
    bank_cents: 1000,
    allowances: [],
    next_payment_attempt_at: iso(start + 30 * DAY_MS),
    failed_attempts: 0,
    card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    consent: {
      text_version: '2026-11-01',
      accepted_by_name: 'Grace Hopper',
      accepted_at: iso(start),
      taken_by: 'Demo Admin',
      method: 'desk',
    },
  }
  const history: MembershipEventLine[] = []
  let cardHeld = deferred<void>()
  let cardRelease: Deferred<void> | null = null

  const note = (kind: string, detail: string, amount_cents: number | null = null) =>
    history.unshift({ kind, detail, amount_cents, at: iso(start + history.length * 60_000) })

  /** Sends the chart `type` and writes the status it answers (refused: the server's 409). */
  function move(type: MembershipModelEvent['type'], changes: Partial<Membership> = {}) {
    const snapshot = actor.getSnapshot()
    if (!snapshot.can({ type })) throw new Error(`the chart refuses ${type} in ${m.status}`)
    actor.send({ type })
    m = { ...m, ...changes, status: actor.getSnapshot().value as MembershipStatus }
  }

  /** Charges the card on file for the cycle due: the chart's charge.succeeded or charge.failed. */
  function charge(): boolean {
    const price = (m.next_plan ?? m.plan).price_cents
    if (m.card?.last4 === MEMBERSHIP_CARDS.declining.slice(-4)) {
      const failed = m.failed_attempts + 1
      move('charge.failed', {
        failed_attempts: failed,
        next_payment_attempt_at: iso(Date.parse(m.current_period_end) + failed * DAY_MS),
      })
      note('charge_failed', `The charge of $${price / 100} was declined.`, price)
      return false
    }
    const end = Date.parse(m.current_period_end)
    move('charge.succeeded', {
      plan: m.next_plan ? PLUS : m.plan,
      next_plan: null,
      cycle: m.cycle + 1,
      current_period_start: iso(end),
      current_period_end: iso(end + 30 * DAY_MS),
      next_payment_attempt_at: iso(end + 30 * DAY_MS),
      failed_attempts: 0,
    })
    note('charged', `Charged $${price / 100} for cycle ${m.cycle}.`, price)
    return true
  }

  const preview = (summary: string) => ({
    preview: { amount_cents: 0, effective_at: m.current_period_end, summary },
  })
  const isPreview = (call: FakeCall) => call.search.includes('preview=true')

  const routes = {
    'GET /membership-plans': { data: [GLOW, PLUS] },
    'GET /practice/payments': CONNECTED,
    'GET /procedures': [],
    'GET /patients/2': patient,
    'GET /patients/2/memberships': () => ({ data: [m] }),
    'GET /memberships/30/events': () => ({ data: history }),
    'GET /memberships/30/bank': () => ({ data: [], bank_cents: m.bank_cents }),
    'GET /patients/2/ledger': {
      data: [],
      total: 0,
      page: 1,
      pageSize: 25,
      balance: 20,
      balance_value_cents: 200,
      expiring_soon: [],
    },
    'GET /patients/promotions/2': [],
    'GET /promotions': { data: [], total: 0, page: 1, pageSize: 100 },
    'GET /practice/rules': {
      point_value_cents: 10,
      points_per_dollar: 1,
      joining_bonus: 0,
      referral_bonus: 0,
      expiry_months: 12,
      redemption_code_threshold: 0,
      max_points_per_line: 5000,
    },
    'GET /practice': demoPractice,
    'GET /practice/integrations/nextech': NEXTECH_NOT_CHOSEN,
    'POST /payments/test-tokens': (call: FakeCall) => ({
      id: `tok_${(call.body as { number: string }).number.slice(-4)}`,
    }),
    'POST /memberships/30/pause': (call: FakeCall) => {
      if (isPreview(call)) return preview('Paused for 1 cycle.')
      move('pause', { resumes_at: iso(Date.parse(m.current_period_end) + 30 * DAY_MS) })
      return m
    },
    'POST /memberships/30/resume': () => {
      move('resume', { resumes_at: null })
      return m
    },
    'POST /memberships/30/cancel': (call: FakeCall) => {
      const { at } = call.body as { at: 'now' | 'period_end' }
      if (isPreview(call)) return preview(at === 'now' ? 'Ends now.' : 'Ends at the end of term.')
      if (at === 'now') move('cancel.now', { ended_at: iso(start + DAY_MS) })
      else
        move('cancel.at_period_end', {
          cancel_at_period_end: true,
          cancel_at: m.current_period_end,
        })
      return m
    },
    'POST /memberships/30/undo-cancel': () => {
      move('cancel.undo', { cancel_at_period_end: false, cancel_at: null })
      return m
    },
    'POST /memberships/30/change-plan': (call: FakeCall) => {
      if (isPreview(call)) return preview(`Moves to ${PLUS.name} at the next renewal.`)
      expect(call.body).toEqual({ plan_id: PLUS.id, at: 'period_end' })
      move('plan.change', {
        next_plan: {
          id: PLUS.id,
          name: PLUS.name,
          version: PLUS.version,
          price_cents: PLUS.price_cents,
        },
      })
      return m
    },
    'POST /memberships/30/retry-payment': (call: FakeCall) => {
      if (isPreview(call)) return preview('Charges the cycle due now.')
      return charge() ? m : apiError(402, DECLINED)
    },
    'PUT /memberships/30/card': async (call: FakeCall) => {
      const token = (call.body as { payment_method_token: string }).payment_method_token
      const owes = m.status === 'past_due' || m.status === 'unpaid'
      move('card.update', {
        card: { brand: 'Visa', last4: token.replace('tok_', ''), exp_month: 12, exp_year: 2030 },
      })
      if (!owes) return m
      cardRelease = deferred<void>()
      cardHeld.resolve()
      await cardRelease.promise
      return charge() ? m : apiError(402, DECLINED)
    },
  }

  return {
    actor,
    routes,
    /** The membership as the server holds it. */
    membership: () => m,
    /** Resolves once a new card that owes was saved, before its charge. */
    cardHeld: () => cardHeld.promise,
    releaseCard() {
      if (!cardRelease) throw new Error('no card update is held')
      cardRelease.resolve()
      cardHeld = deferred<void>()
    },
    /** The billing clock moves past the renewal (or the next retry): the card on file is charged. */
    renewal: () => void charge(),
    /** The billing clock moves past the last retry: declined again, the retries are over. */
    lastRetry() {
      move('charge.failed', { failed_attempts: 5, next_payment_attempt_at: null })
      move('retries.exhausted')
    },
    /** The billing clock passes the end of the term it was cancelled for. */
    termEnd() {
      if (!m.cancel_at_period_end) throw new Error('no end of term is set')
      move('term.ended', { ended_at: m.cancel_at })
    },
  }
}

type Server = ReturnType<typeof fakeServer>
type Harness = Server & { user: UserEvent; reopen: () => Promise<void> }

async function open(): Promise<Harness> {
  const server = fakeServer()
  stubApi(server.routes)
  const { user, router } = renderRoute('/patients/2', { session: demoSession })
  await screen.findByRole('region', { name: 'Membership' })
  return {
    ...server,
    user,
    // The desk reloads the profile after the billing clock ran.
    reopen: () => act(() => router.invalidate()),
  }
}

const panel = () => within(screen.getByRole('region', { name: 'Membership' }))

async function changeWith(h: Harness, button: string, dialog: string) {
  await h.user.click(panel().getByRole('button', { name: button }))
  return within(await screen.findByRole('dialog', { name: dialog }))
}

async function confirmAfterPreview(h: Harness, dialog: ReturnType<typeof within>, confirm: string) {
  await dialog.findByRole('status', { name: 'What it costs' })
  await h.user.click(dialog.getByRole('button', { name: confirm }))
}

async function fillCard(h: Harness, dialog: ReturnType<typeof within>, number: string) {
  await h.user.type(dialog.getByLabelText(/^Card number/), number.replaceAll(' ', ''))
  await h.user.click(dialog.getByRole('combobox', { name: /^Expiration month/ }))
  await h.user.click(screen.getByRole('option', { name: '12' }))
  await h.user.click(dialog.getByRole('combobox', { name: /^Expiration year/ }))
  await h.user.click(screen.getByRole('option', { name: '2030' }))
  await h.user.type(dialog.getByLabelText(/^CVV/), '123')
}

/** What the desk does, and what the billing clock runs, for each event. */
const perform: PerformEach<Harness, MembershipModelEvent> = {
  pause: async (h) => {
    const dialog = await changeWith(h, 'Pause', 'Pause membership')
    await h.user.click(dialog.getByRole('button', { name: 'Review cost' }))
    await confirmAfterPreview(h, dialog, 'Confirm pause')
  },
  resume: async (h) => {
    const dialog = await changeWith(h, 'Resume', 'Resume membership')
    await h.user.click(dialog.getByRole('button', { name: 'Resume membership' }))
  },
  'cancel.at_period_end': async (h) => {
    const dialog = await changeWith(h, 'Cancel at end of term', 'Cancel at end of term')
    await confirmAfterPreview(h, dialog, 'Confirm cancellation')
  },
  'cancel.undo': async (h) => {
    const dialog = await changeWith(h, 'Keep membership', 'Keep membership')
    await h.user.click(dialog.getByRole('button', { name: 'Keep membership' }))
  },
  'cancel.now': async (h) => {
    const dialog = await changeWith(h, 'Cancel now', 'Cancel now')
    await h.user.click(dialog.getByRole('button', { name: 'Review cost' }))
    await confirmAfterPreview(h, dialog, 'Cancel membership now')
  },
  'plan.change': async (h) => {
    const dialog = await changeWith(h, 'Change plan', 'Change plan')
    await h.user.click(dialog.getByRole('combobox', { name: /^New plan/ }))
    await h.user.click(screen.getByRole('option', { name: `${PLUS.name} — $45.00 · Monthly` }))
    await h.user.click(dialog.getByRole('button', { name: 'Review cost' }))
    await confirmAfterPreview(h, dialog, 'Confirm plan change')
  },
  'card.update': async (h, event) => {
    const status = h.actor.getSnapshot().value
    const owes = status === 'past_due' || status === 'unpaid'
    const dialog = await changeWith(h, 'Update card', 'Update card')
    await fillCard(h, dialog, MEMBERSHIP_CARDS[event.card])
    await h.user.click(
      dialog.getByRole('button', { name: owes ? 'Save card and charge' : 'Save card' }),
    )
    if (owes) await h.cardHeld()
  },
  'charge.succeeded': async (h, event) => {
    if (event.by === 'new card') {
      await act(async () => h.releaseCard())
      return
    }
    h.renewal()
    await h.reopen()
  },
  'charge.failed': async (h, event) => {
    if (event.by === 'renewal') {
      h.renewal()
      await h.reopen()
      return
    }
    const alert = within(panel().getByRole('alert'))
    await h.user.click(alert.getByRole('button', { name: 'Charge now' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'Charge now' }))
    await confirmAfterPreview(h, dialog, 'Confirm charge')
    expect(await dialog.findByRole('alert')).toHaveTextContent(DECLINED)
    await h.user.click(dialog.getByRole('button', { name: 'Go back' }))
  },
  'retries.exhausted': async (h) => {
    h.lastRetry()
    await h.reopen()
  },
  'term.ended': async (h) => {
    h.termEnd()
    await h.reopen()
  },
}

const badge = (label: string) => expect(panel().getByText(label, { exact: true })).toBeVisible()

function expectOwes(title: string) {
  expect(panel().getByRole('alert')).toHaveTextContent(title)
  expect(
    within(panel().getByRole('alert')).getByRole('button', { name: 'Charge now' }),
  ).toBeVisible()
  expect(panel().getByRole('button', { name: 'Update card' })).toBeVisible()
  expect(panel().queryByRole('button', { name: 'Pause' })).toBeNull()
}

/** What the panel must show in each status (keyed by the state node id). */
const expectScreen: ScreenChecks<Harness> = {
  'membership.active': () => {
    badge('Active')
    expect(panel().queryByText(/^Payment past due|^Unpaid: perks/)).toBeNull()
    expect(panel().getByRole('button', { name: 'Update card' })).toBeVisible()
    expect(screen.queryByRole('dialog')).toBeNull()
  },
  'membership.past_due': (_, h) => {
    badge('Past due')
    expectOwes('Payment past due')
    // The panel reads the membership again after a declined charge: every attempt counts.
    const failed = h.membership().failed_attempts
    expect(panel().getByRole('alert')).toHaveTextContent(
      `The renewal was declined ${failed === 1 ? 'once' : `${failed} times`}.`,
    )
  },
  'membership.paused': () => {
    badge('Paused')
    expect(panel().getByRole('button', { name: 'Resume' })).toBeVisible()
    expect(panel().getByText(/^Paused: billing starts again on /)).toBeVisible()
  },
  'membership.unpaid': () => {
    badge('Unpaid')
    expectOwes('Unpaid: perks are stopped')
  },
  'membership.cancelled': () => {
    expect(
      panel().getByText(/^No membership now\. The last one, Glow Monthly, is cancelled since /),
    ).toBeVisible()
  },
  'membership.ended': () => {
    expect(
      panel().getByText(/^No membership now\. The last one, Glow Monthly, is ended since /),
    ).toBeVisible()
  },
}

const paths = flowPaths(qaFlow(membershipFlow))

afterEach(() => {
  vi.unstubAllGlobals()
  sessionStorage.clear()
})

describe('membership lifecycle: paths from the chart, replayed on the profile', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))('%s', async (_, path: QaPath) => {
    const h = await replayThroughView(path, { open, model, perform, checks: expectScreen })
    h.actor.stop()
  })

  it('has a screen check for every status and an action for every event', () => {
    expectEveryStateAndEvent(model.machine, expectScreen, perform, membershipEvents)
  })
})

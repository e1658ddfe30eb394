import { screen, waitFor, within } from '@testing-library/react'
import type { UserEvent } from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Membership, MembershipBank, PaymentAccount, Plan } from '#domain/memberships.ts'
import { demoPractice, demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, type FakeRoutes, stubApi } from '#tests/support/fake-api.ts'
import { NEXTECH_NOT_CHOSEN } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const staffSession = {
  ...demoSession,
  user: { ...demoSession.user, access_rights: 'Staff' as const },
}

const GLOW: Plan = {
  id: 4,
  name: 'Glow Monthly',
  description: 'A facial a month',
  price_cents: 9900,
  interval: 'month',
  setup_fee_cents: 2500,
  min_cycles: 3,
  notice_days: 14,
  perks: {
    bank_cents: 5000,
    allowances: [{ catalogue_item_id: 3, quantity: 1, rollover_cap: 0 }],
    discount_percent: 10,
    discount_item_ids: [],
    points_multiplier: 2,
    join_bonus_points: 500,
  },
  version: 2,
  archived: false,
  active_members: 12,
}

const GOLD: Plan = { ...GLOW, id: 5, name: 'Gold Yearly', interval: 'year', price_cents: 99900 }

const CONNECTED: PaymentAccount = {
  connected: true,
  provider: 'test',
  account_id: 'acct_test_1',
  connected_at: '2026-10-01T12:00:00.000Z',
  retry_schedule_days: [1, 3, 5, 7],
}

const NOT_CONNECTED: PaymentAccount = {
  connected: false,
  provider: null,
  account_id: null,
  connected_at: null,
  retry_schedule_days: [1, 3, 5, 7],
}

function membership(overrides: Partial<Membership> = {}): Membership {
  return {
    id: 30,
    patient_id: 2,
    patient_name: 'Grace Hopper',
    plan: GLOW,
    status: 'active',
    started_at: '2026-09-01T12:00:00.000Z',
    current_period_start: '2026-11-01T12:00:00.000Z',
    current_period_end: '2026-12-01T12:00:00.000Z',
    cycle: 3,
    cancel_at_period_end: false,
    cancel_at: null,
    cancel_reason: null,
    ended_at: null,
    resumes_at: null,
    next_plan: null,
    bank_cents: 15000,
    allowances: [{ catalogue_item_id: 3, name: 'Hydrafacial', remaining: 1 }],
    next_payment_attempt_at: '2026-12-01T12:00:00.000Z',
    failed_attempts: 0,
    card: { brand: 'Visa', last4: '4242', exp_month: 4, exp_year: 2030 },
    consent: {
      text_version: '2026-11-01',
      accepted_by_name: 'Grace Hopper',
      accepted_at: '2026-09-01T12:00:00.000Z',
      taken_by: 'Demo Admin',
      method: 'desk',
    },
    ...overrides,
  }
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

/** Grace's bank: three paid cycles, a visit paid from it and undone, then one that stayed. */
const BANK: MembershipBank = {
  bank_cents: 15000,
  data: [
    {
      id: 16,
      kind: 'use',
      amount_cents: -2500,
      balance_after_cents: 15000,
      cycle: null,
      visit_id: 41,
      at: '2026-11-20T12:00:00.000Z',
      detail: 'Used at the visit of Nov 20, 2026, which came to $25.00',
    },
    {
      id: 15,
      kind: 'credit',
      amount_cents: 5000,
      balance_after_cents: 17500,
      cycle: 3,
      visit_id: null,
      at: '2026-11-01T12:00:00.000Z',
      detail: 'Paid in with cycle 3',
    },
    {
      id: 14,
      kind: 'restore',
      amount_cents: 3000,
      balance_after_cents: 12500,
      cycle: null,
      visit_id: 40,
      at: '2026-10-28T12:00:00.000Z',
      detail: 'Put back: the visit of Oct 27, 2026 was undone',
    },
    {
      id: 13,
      kind: 'use',
      amount_cents: -3000,
      balance_after_cents: 9500,
      cycle: null,
      visit_id: 40,
      at: '2026-10-27T12:00:00.000Z',
      detail: 'Used at the visit of Oct 27, 2026, which came to $240.00',
    },
    {
      id: 12,
      kind: 'use',
      amount_cents: -500,
      balance_after_cents: 12500,
      cycle: null,
      visit_id: 39,
      at: '2026-10-10T12:00:00.000Z',
      detail: 'Used at the visit of Oct 10, 2026, which came to $5.00',
    },
    {
      id: 11,
      kind: 'credit',
      amount_cents: 5000,
      balance_after_cents: 13000,
      cycle: 2,
      visit_id: null,
      at: '2026-10-01T12:00:00.000Z',
      detail: 'Paid in with cycle 2',
    },
    {
      id: 10,
      kind: 'credit',
      amount_cents: 8000,
      balance_after_cents: 8000,
      cycle: 1,
      visit_id: null,
      at: '2026-09-01T12:00:00.000Z',
      detail: 'Paid in with cycle 1',
    },
  ],
}

const created = (body: unknown, status = 201) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

/** The practice's API with memberships: plans, members, the profile of Grace, Settings. */
function api(overrides: FakeRoutes = {}): FakeRoutes {
  return {
    'GET /membership-plans': (call: FakeCall) =>
      call.search.includes('archived=true') ? { data: [] } : { data: [GLOW, GOLD] },
    'GET /memberships': { data: [membership()], page: 1, total: 1 },
    'GET /practice/payments': CONNECTED,
    'GET /procedures': [
      {
        id: 3,
        practice_id: 1,
        name: 'Hydrafacial',
        price: 19900,
        points: 200,
        own_points: 200,
        min_days_between: 0,
        archived: false,
      },
    ],
    'GET /patients/2': patient,
    'GET /patients/2/memberships': { data: [] },
    'GET /memberships/30/bank': BANK,
    'GET /memberships/30/events': {
      data: [
        {
          kind: 'charged',
          amount_cents: 9900,
          at: '2026-11-01T12:00:00.000Z',
          detail: 'Renewal of Glow Monthly paid with Visa •••• 4242.',
        },
      ],
    },
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
    'POST /payments/test-tokens': { id: 'tok_test_card' },
    ...overrides,
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
  sessionStorage.clear()
})

async function fillCard(user: UserEvent, scope: ReturnType<typeof within>, number: string) {
  await user.type(scope.getByLabelText(/^Card number/), number)
  await user.click(scope.getByRole('combobox', { name: /^Expiration month/ }))
  await user.click(scope.getByRole('option', { name: '04' }))
  await user.click(scope.getByRole('combobox', { name: /^Expiration year/ }))
  await user.click(scope.getByRole('option', { name: '2030' }))
  await user.type(scope.getByLabelText(/^CVV/), '123')
}

describe('the Memberships area', () => {
  it('lists the plans with price, perks, version and members, then the members and the retry schedule', async () => {
    stubApi(api())
    renderRoute('/memberships', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships' })
    const plans = within(screen.getByRole('region', { name: 'Plans' }))
    const row = plans.getByRole('row', { name: /Glow Monthly/ })
    expect(within(row).getByText('$99.00 · Monthly')).toBeInTheDocument()
    expect(within(row).getByText('+ $25.00 setup fee')).toBeInTheDocument()
    expect(
      within(row).getByText(
        '$50.00 banked · 1 × Hydrafacial · 10% off everything · 2× points · 500 joining points',
      ),
    ).toBeInTheDocument()
    expect(within(row).getByRole('cell', { name: '12' })).toBeInTheDocument()
    expect(within(row).getByRole('cell', { name: '2' })).toBeInTheDocument()

    const members = within(screen.getByRole('region', { name: 'Members' }))
    expect(members.getByRole('link', { name: 'Grace Hopper' })).toHaveAttribute(
      'href',
      '/patients/2',
    )
    expect(members.getByText('Active')).toBeInTheDocument()
    expect(members.getByText('$150.00')).toBeInTheDocument()
    expect(
      screen.getByText(/^Declined renewals are retried 1, 3, 5 and 7 days later\./),
    ).toBeInTheDocument()
  })

  it('filters the members by status, in the address', async () => {
    const calls = stubApi(api())
    const { user, router } = renderRoute('/memberships', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships' })
    await user.click(screen.getByRole('combobox', { name: 'Status' }))
    await user.click(screen.getByRole('option', { name: 'Past due' }))
    await waitFor(() => expect(router.state.location.search).toEqual({ status: 'past_due' }))
    await waitFor(() =>
      expect(
        calls.some(
          (c) =>
            c.path === '/memberships' && new URLSearchParams(c.search).get('status') === 'past_due',
        ),
      ).toBe(true),
    )
  })

  it('lets a manager build a plan: a refused price says why and keeps what was typed', async () => {
    const calls = stubApi(
      api({
        'POST /membership-plans': (call: FakeCall) =>
          created({ ...GLOW, ...(call.body as object), id: 9, version: 1, active_members: 0 }),
      }),
    )
    const { user } = renderRoute('/memberships', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships' })
    await user.click(screen.getByRole('button', { name: 'New plan' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'New plan' }))
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'Glow Lite')
    await user.click(dialog.getByRole('button', { name: 'Create plan' }))
    expect(
      await dialog.findByText('Please enter a price per cycle of $1.00 to $10,000.00.'),
    ).toBeInTheDocument()
    expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('Glow Lite')
    expect(calls.some((c) => c.method === 'POST')).toBe(false)

    await user.type(dialog.getByRole('textbox', { name: /^Price per cycle/ }), '49')
    await user.click(dialog.getByRole('button', { name: 'Add allowance' }))
    await user.click(dialog.getByRole('combobox', { name: /^Treatment/ }))
    await user.click(dialog.getByRole('option', { name: 'Hydrafacial' }))
    await user.click(dialog.getByRole('button', { name: 'Create plan' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Glow Lite',
      description: '',
      price_cents: 4900,
      interval: 'month',
      setup_fee_cents: 0,
      min_cycles: 1,
      notice_days: 0,
      perks: {
        bank_cents: 0,
        allowances: [{ catalogue_item_id: 3, quantity: 1, rollover_cap: 0 }],
        discount_percent: 0,
        discount_item_ids: [],
        points_multiplier: 1,
        join_bonus_points: 0,
      },
    })
  })

  it('shows staff the plans read-only, with who can change them', async () => {
    stubApi(api())
    renderRoute('/memberships', { session: staffSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships' })
    expect(
      screen.getByText('Only a manager or an admin can build, change or archive membership plans.'),
    ).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /New plan|Edit |Archive / })).toBeNull()
  })

  it('says what to do without plans and without payments: an admin is led to Settings → Payments', async () => {
    stubApi(
      api({
        'GET /membership-plans': { data: [] },
        'GET /memberships': { data: [], page: 1, total: 0 },
        'GET /practice/payments': NOT_CONNECTED,
      }),
    )
    renderRoute('/memberships', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships' })
    expect(screen.getByText(/^No plans yet: “New plan” builds the first one/)).toBeInTheDocument()
    expect(screen.getByText(/^Nobody has joined a plan yet/)).toBeInTheDocument()
    expect(screen.getByText(/^Payments are not connected: an Admin connects/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Open Settings → Payments' })).toHaveAttribute(
      'href',
      '/settings#payments',
    )
  })
})

describe('the membership panel on the profile', () => {
  it('enrols: a declined card says why and keeps everything, then a good card starts it once', async () => {
    let decline = true
    const calls = stubApi(
      api({
        'POST /patients/2/memberships': (call: FakeCall) => {
          if (decline) {
            decline = false
            return apiError(402, 'Your card was declined.')
          }
          const body = call.body as { plan_id: number }
          return created(membership({ plan: body.plan_id === GOLD.id ? GOLD : GLOW }))
        },
      }),
    )
    const { user } = renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(panel.getByText('Not a member yet.')).toBeInTheDocument()
    await user.click(panel.getByRole('button', { name: 'Start membership' }))
    const dialog = within(
      await screen.findByRole('dialog', { name: 'Start membership for Grace Hopper' }),
    )
    await user.click(dialog.getByRole('combobox', { name: /^Plan/ }))
    await user.click(
      dialog.getByRole('option', { name: 'Glow Monthly — $99.00 · Monthly · $25.00 setup fee' }),
    )
    expect(
      dialog.getByText(
        "I agree that Glow Monthly renews automatically and my card is charged $99.00 monthly until I cancel. The minimum term is 3 payments. Cancelling needs 14 days' notice before a renewal. I can cancel online at any time from my wallet, or at the front desk.",
      ),
    ).toBeInTheDocument()
    expect(dialog.getByRole('textbox', { name: /^Patient's name as accepted/ })).toHaveValue(
      'Grace Hopper',
    )
    await fillCard(user, dialog, '4000000000000002')
    // The agreement must be accepted first.
    await user.click(dialog.getByRole('button', { name: 'Charge $124.00 and start' }))
    expect(
      await dialog.findByText(
        'The patient must accept the membership agreement, including the automatic renewal, before joining.',
      ),
    ).toBeInTheDocument()
    expect(calls.some((c) => c.path === '/patients/2/memberships' && c.method === 'POST')).toBe(
      false,
    )
    await user.click(
      dialog.getByRole('checkbox', {
        name: 'The patient accepts the agreement, including automatic renewal',
      }),
    )
    await user.click(dialog.getByRole('button', { name: 'Charge $124.00 and start' }))
    expect(await dialog.findByRole('alert')).toHaveTextContent('Your card was declined.')
    // Everything entered stays.
    expect(dialog.getByLabelText(/^Card number/)).toHaveValue('4000 0000 0000 0002')
    expect(
      dialog.getByRole('checkbox', {
        name: 'The patient accepts the agreement, including automatic renewal',
      }),
    ).toBeChecked()

    await user.clear(dialog.getByLabelText(/^Card number/))
    await user.type(dialog.getByLabelText(/^Card number/), '4242424242424242')
    await user.click(dialog.getByRole('button', { name: 'Charge $124.00 and start' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    const posts = calls.filter((c) => c.path === '/patients/2/memberships' && c.method === 'POST')
    expect(posts).toHaveLength(2)
    expect(posts[1]?.body).toMatchObject({
      plan_id: GLOW.id,
      payment_method_token: 'tok_test_card',
      consent: { text_version: '2026-11-01', accepted_by_name: 'Grace Hopper' },
    })
    const keys = posts.map((c) => (c.body as { idempotencyKey: string }).idempotencyKey)
    expect(keys[1]).toMatch(/^enrol-/)
  })

  it('flags a past-due membership and charges it after showing what it costs', async () => {
    let charged = false
    const pastDue = membership({
      status: 'past_due',
      failed_attempts: 2,
      next_payment_attempt_at: '2026-12-04T12:00:00.000Z',
    })
    const calls = stubApi(
      api({
        'GET /patients/2/memberships': () => ({
          data: [charged ? membership() : pastDue],
        }),
        'POST /memberships/30/retry-payment': (call: FakeCall) => {
          if (call.search.includes('preview=true')) {
            return {
              preview: {
                amount_cents: 9900,
                effective_at: '2026-12-02T12:00:00.000Z',
                summary: 'Charges the renewal of Glow Monthly to Visa •••• 4242.',
              },
            }
          }
          charged = true
          return membership()
        },
      }),
    )
    const { user } = renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    const alert = panel.getByRole('alert')
    expect(alert).toHaveTextContent('Payment past due')
    expect(alert).toHaveTextContent('The renewal was declined 2 times.')
    expect(panel.getByText('Visa •••• 4242, expires 04/30')).toBeInTheDocument()
    expect(panel.getByText('Retry on Dec 4, 2026 · $99.00')).toBeInTheDocument()
    expect(
      within(panel.getByRole('region', { name: 'Bank' })).getByText('$150.00'),
    ).toBeInTheDocument()
    expect(panel.getByText('1 of 1 Hydrafacial left this month')).toBeInTheDocument()
    expect(
      within(panel.getByRole('region', { name: 'Perks left this cycle' })).getByText(
        /^On hold while the payment is past due/,
      ),
    ).toBeInTheDocument()
    expect(panel.getByText('Renewal of Glow Monthly paid with Visa •••• 4242.')).toBeInTheDocument()
    // The chart takes no pause in past due.
    expect(panel.queryByRole('button', { name: 'Pause' })).toBeNull()

    await user.click(within(alert).getByRole('button', { name: 'Charge now' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'Charge now' }))
    expect(
      await dialog.findByText('Charges the renewal of Glow Monthly to Visa •••• 4242.'),
    ).toBeInTheDocument()
    expect(dialog.getByText('$99.00 is charged now.')).toBeInTheDocument()
    expect(calls.filter((c) => c.path === '/memberships/30/retry-payment')).toHaveLength(1)
    await user.click(dialog.getByRole('button', { name: 'Confirm charge' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    const made = calls.filter((c) => c.path === '/memberships/30/retry-payment')
    expect(made.map((c) => c.search)).toEqual(['?preview=true', ''])
    await waitFor(() => expect(panel.queryByText('Payment past due')).not.toBeInTheDocument())
  })

  it('pauses for the chosen cycles after the preview', async () => {
    const calls = stubApi(
      api({
        'GET /patients/2/memberships': { data: [membership()] },
        'POST /memberships/30/pause': (call: FakeCall) =>
          call.search.includes('preview=true')
            ? {
                preview: {
                  amount_cents: 0,
                  effective_at: '2026-12-01T12:00:00.000Z',
                  summary:
                    'Paused for 2 cycles from 1 Dec 2026; billing starts again on 1 Feb 2027.',
                },
              }
            : membership({ status: 'paused', resumes_at: '2027-02-01T12:00:00.000Z' }),
      }),
    )
    const { user } = renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    await user.click(panel.getByRole('button', { name: 'Pause' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'Pause membership' }))
    await user.click(dialog.getByRole('radio', { name: '2 cycles' }))
    await user.click(dialog.getByRole('button', { name: 'Review cost' }))
    expect(await dialog.findByText(/^Paused for 2 cycles/)).toBeInTheDocument()
    expect(dialog.getByText('Nothing is charged or refunded today.')).toBeInTheDocument()
    await user.click(dialog.getByRole('button', { name: 'Confirm pause' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(
      calls.filter((c) => c.path === '/memberships/30/pause').map((c) => [c.search, c.body]),
    ).toEqual([
      ['?preview=true', { cycles: 2 }],
      ['', { cycles: 2 }],
    ])
  })

  it('keeps "Cancel now" for managers and admins, and tells staff who can', async () => {
    stubApi(api({ 'GET /patients/2/memberships': { data: [membership()] } }))
    renderRoute('/patients/2', { session: staffSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(panel.getByRole('button', { name: 'Cancel at end of term' })).toBeInTheDocument()
    expect(panel.queryByRole('button', { name: 'Cancel now' })).toBeNull()
    expect(
      panel.getByText(
        'Only a manager or an admin can end a membership now or refund it; staff can cancel it at the end of the term.',
      ),
    ).toBeInTheDocument()
  })

  it('says payments are not connected instead of offering to start one', async () => {
    stubApi(api({ 'GET /practice/payments': NOT_CONNECTED }))
    renderRoute('/patients/2', { session: staffSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(panel.getByText(/^Payments are not connected:/)).toBeInTheDocument()
    expect(panel.queryByRole('button', { name: 'Start membership' })).toBeNull()
  })
})

describe('the membership at a glance on the profile', () => {
  it('shows the grandfathered version, the next bill, the perks left with the rollover cap, and the bank with its history, newest first', async () => {
    const rolling: Plan = {
      ...GLOW,
      perks: {
        ...GLOW.perks,
        allowances: [{ catalogue_item_id: 3, quantity: 1, rollover_cap: 2 }],
      },
    }
    stubApi(
      api({
        // New members join version 3; Grace keeps version 2.
        'GET /membership-plans': { data: [{ ...rolling, version: 3 }, GOLD] },
        'GET /patients/2/memberships': {
          data: [
            membership({
              plan: rolling,
              allowances: [{ catalogue_item_id: 3, name: 'Hydrafacial', remaining: 2 }],
            }),
          ],
        },
      }),
    )
    const { user } = renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(panel.getByText('Version 2')).toBeInTheDocument()
    expect(
      panel.getByText(/^Kept on version 2 \(grandfathered\): new members join version 3\./),
    ).toBeInTheDocument()
    expect(panel.getByText('Active')).toBeInTheDocument()
    expect(panel.getByText('Dec 1, 2026 · $99.00')).toBeInTheDocument()

    const perks = within(panel.getByRole('region', { name: 'Perks left this cycle' }))
    expect(
      perks.getByText('2 Hydrafacial left this month (1 a month, 1 rolled over)'),
    ).toBeInTheDocument()
    expect(perks.getByText('Up to 2 unused roll over to next month.')).toBeInTheDocument()
    expect(perks.getByText('10% off everything (member price)')).toBeInTheDocument()
    expect(perks.getByText('2× points at every visit')).toBeInTheDocument()
    expect(perks.getByText('$50.00 paid into the bank each month')).toBeInTheDocument()

    expect(
      within(panel.getByRole('region', { name: 'Bank' })).getByText('$150.00'),
    ).toBeInTheDocument()
    const history = within(panel.getByRole('region', { name: 'Bank history' }))
    const rows = () => history.getAllByRole('row').slice(1)
    expect(rows()).toHaveLength(5)
    expect(rows()[0]).toHaveTextContent('Used at the visit of Nov 20, 2026, which came to $25.00')
    const used = history.getByRole('row', { name: /Used at the visit of Oct 27, 2026/ })
    expect(within(used).getByRole('cell', { name: '−$30.00' })).toBeInTheDocument()
    expect(within(used).getByRole('cell', { name: '$95.00' })).toBeInTheDocument()
    const restored = history.getByRole('row', { name: /Put back: the visit of Oct 27, 2026/ })
    expect(within(restored).getByRole('cell', { name: '+$30.00' })).toBeInTheDocument()
    expect(history.queryByText('Paid in with cycle 1')).toBeNull()
    expect(history.getByText('The newest 5 of 7 entries.')).toBeInTheDocument()

    await user.click(history.getByRole('button', { name: 'Show all 7' }))
    expect(rows()).toHaveLength(7)
    const first = history.getByRole('row', { name: /Paid in with cycle 1/ })
    expect(within(first).getByRole('cell', { name: '+$80.00' })).toBeInTheDocument()
    expect(within(first).getByRole('cell', { name: '$80.00' })).toBeInTheDocument()
    await user.click(history.getByRole('button', { name: 'Show the newest 5' }))
    expect(rows()).toHaveLength(5)
  })

  it('shows no version for a member on the current one', async () => {
    stubApi(api({ 'GET /patients/2/memberships': { data: [membership()] } }))
    renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    await panel.findByText('1 of 1 Hydrafacial left this month')
    expect(panel.queryByText(/^Version /)).toBeNull()
    expect(panel.getByText('Unused ones do not roll over to next month.')).toBeInTheDocument()
  })

  it('says in words what unpaid means and what the desk does, and that the bank still pays', async () => {
    stubApi(
      api({
        'GET /patients/2/memberships': {
          data: [
            membership({ status: 'unpaid', failed_attempts: 5, next_payment_attempt_at: null }),
          ],
        },
      }),
    )
    renderRoute('/patients/2', { session: staffSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    const alert = panel.getByRole('alert')
    expect(alert).toHaveTextContent('Unpaid: perks are stopped')
    expect(alert).toHaveTextContent(
      'Every retry of the renewal was declined and no more are scheduled. Perks stop until $99.00 is paid; the bank stays the patient’s. Ask the patient for another card (“Update card” charges it at once), or charge the card on file now.',
    )
    expect(panel.getByText('$99.00 is due: no more automatic retries')).toBeInTheDocument()
    expect(
      panel.getByText(
        'Stopped while unpaid: no allowances, member price or extra points until it is paid. The bank can still pay.',
      ),
    ).toBeInTheDocument()
    // Staff see the bank: it is the patient's money, needed at the desk.
    expect(
      within(panel.getByRole('region', { name: 'Bank history' })).getAllByRole('row'),
    ).toHaveLength(6)
  })

  it('says a paused membership is paused, until when, and what comes back', async () => {
    stubApi(
      api({
        'GET /patients/2/memberships': {
          data: [
            membership({
              status: 'paused',
              resumes_at: '2027-02-01T12:00:00.000Z',
              next_payment_attempt_at: '2027-02-01T12:00:00.000Z',
            }),
          ],
        },
      }),
    )
    renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(panel.getByText('Paused', { exact: true })).toBeInTheDocument()
    expect(panel.getByText(/^Paused: billing starts again on Feb 1, 2027\./)).toBeInTheDocument()
    expect(panel.getByText('Feb 1, 2027 · $99.00, when billing resumes')).toBeInTheDocument()
    expect(panel.getByText(/^On hold while paused/)).toBeInTheDocument()
  })

  it("keeps showing the bank of a membership that is over while it holds the patient's money", async () => {
    stubApi(
      api({
        'GET /patients/2/memberships': {
          data: [
            membership({
              status: 'cancelled',
              ended_at: '2026-11-25T12:00:00.000Z',
              next_payment_attempt_at: null,
            }),
          ],
        },
      }),
    )
    renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    expect(
      panel.getByText(/^No membership now\. The last one, Glow Monthly, is cancelled since /),
    ).toBeInTheDocument()
    const bank = within(panel.getByRole('region', { name: 'Bank' }))
    expect(bank.getByText('$150.00')).toBeInTheDocument()
    expect(bank.getByText(/^Still the patient’s: it never expires/)).toBeInTheDocument()
    expect(panel.getByRole('region', { name: 'Bank history' })).toBeInTheDocument()
  })

  it('says why the bank could not be read, and shows the rest', async () => {
    stubApi(
      api({
        'GET /patients/2/memberships': { data: [membership()] },
        'GET /memberships/30/bank': apiError(500, 'The bank could not be read. Please try again.'),
      }),
    )
    renderRoute('/patients/2', { session: demoSession })
    const panel = within(await screen.findByRole('region', { name: 'Membership' }))
    const history = within(panel.getByRole('region', { name: 'Bank history' }))
    expect(history.getByRole('alert')).toHaveTextContent(
      'The bank could not be read. Please try again.',
    )
    expect(panel.getByText('1 of 1 Hydrafacial left this month')).toBeInTheDocument()
    expect(
      within(panel.getByRole('region', { name: 'Bank' })).getByText('$150.00'),
    ).toBeInTheDocument()
  })
})

describe('Settings → Payments', () => {
  it('lets an admin connect the payment account', async () => {
    let connected = false
    const calls = stubApi(
      api({
        'GET /practice/payments': () => (connected ? CONNECTED : NOT_CONNECTED),
        'POST /practice/payments/connect': () => {
          connected = true
          return CONNECTED
        },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const section = within(await screen.findByRole('region', { name: 'Payments' }))
    await user.click(section.getByRole('button', { name: 'Connect Stripe account' }))
    expect(await section.findByText('acct_test_1')).toBeInTheDocument()
    expect(section.getByText('Test gateway')).toBeInTheDocument()
    expect(calls.filter((c) => c.path === '/practice/payments/connect')).toHaveLength(1)
  })

  it('shows staff the account without the button, and who can connect it', async () => {
    stubApi(api({ 'GET /practice/payments': NOT_CONNECTED }))
    renderRoute('/settings', { session: staffSession })
    const section = within(await screen.findByRole('region', { name: 'Payments' }))
    expect(
      section.getByText("Only an admin can connect the practice's payment account."),
    ).toBeInTheDocument()
    expect(section.queryByRole('button', { name: 'Connect Stripe account' })).toBeNull()
  })
})

describe("the patient's card page", () => {
  const LINK = {
    practice_name: 'Glow Demo Med Spa',
    first_name: 'Grace',
    plan_name: 'Glow Monthly',
    status: 'past_due',
    amount_due_cents: 9900,
    card: { brand: 'Visa', last4: '0341', exp_month: 4, exp_year: 2030 },
  }

  it('shows what is due and pays with the new card', async () => {
    const calls = stubApi(
      api({
        'GET /membership-card/abc123': LINK,
        'PUT /membership-card/abc123': {
          status: 'active',
          charged: true,
          message: 'Thank you: $99.00 was paid and your membership is active.',
        },
      }),
    )
    const { user } = renderRoute('/membership-card/abc123')
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Glow Demo Med Spa' }),
    ).toBeInTheDocument()
    expect(screen.getByText('Hi Grace')).toBeInTheDocument()
    expect(screen.getByText('$99.00')).toBeInTheDocument()
    expect(screen.getByText('Visa •••• 0341, expires 04/30')).toBeInTheDocument()
    const form = within(screen.getByRole('form', { name: 'New card' }))
    await fillCard(user, form, '4242424242424242')
    await user.type(form.getByRole('textbox', { name: /^Cardholder name/ }), 'Grace Hopper')
    await user.click(form.getByRole('button', { name: 'Update card and pay' }))
    expect(
      await screen.findByText('Thank you: $99.00 was paid and your membership is active.'),
    ).toBeInTheDocument()
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      payment_method_token: 'tok_test_card',
    })
  })

  it('says when the link is no longer valid', async () => {
    stubApi({ 'GET /membership-card/old': apiError(404, 'Not found') })
    renderRoute('/membership-card/old')
    expect(
      await screen.findByText(
        'This link is no longer valid. Please ask the practice for a new one.',
      ),
    ).toBeInTheDocument()
  })
})

import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MembershipReport } from '#domain/membership-reports.ts'
import { demoPractice, demoSession } from '#tests/support/demo-session.ts'
import { type FakeCall, type FakeRoutes, stubApi } from '#tests/support/fake-api.ts'
import { NEXTECH_NOT_CHOSEN } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const staffSession = {
  ...demoSession,
  user: { ...demoSession.user, access_rights: 'Staff' as const },
}

const month = (
  name: string,
  opening: number,
  moves: Partial<
    Record<
      'new' | 'expansion' | 'contraction' | 'voluntary' | 'involuntary' | 'reactivation',
      number
    >
  >,
) => {
  const m = {
    month: name,
    opening_mrr_cents: opening,
    new_cents: moves.new ?? 0,
    expansion_cents: moves.expansion ?? 0,
    contraction_cents: moves.contraction ?? 0,
    voluntary_churn_cents: moves.voluntary ?? 0,
    involuntary_churn_cents: moves.involuntary ?? 0,
    reactivation_cents: moves.reactivation ?? 0,
  }
  return {
    ...m,
    closing_mrr_cents:
      opening +
      m.new_cents +
      m.expansion_cents -
      m.contraction_cents -
      m.voluntary_churn_cents -
      m.involuntary_churn_cents +
      m.reactivation_cents,
  }
}

/** Three members joined in September; one went unpaid in October and paid again; one left. */
const REPORT: MembershipReport = {
  from: '2026-09-01',
  to: '2026-11-27',
  today: '2026-11-27',
  active: 2,
  new: 3,
  paused: 0,
  past_due: 0,
  unpaid: 0,
  cancelled: 1,
  cancelled_by_reason: { patient: 1, staff: 0, failed_payment: 0 },
  members_at_start: 0,
  churned: 0,
  churn_rate: null,
  recovered: 0,
  not_recovered: 1,
  recovery_rate: 0,
  mrr_cents: 19_900,
  mrr_movement: [
    month('2026-09', 0, { new: 29_800 }),
    month('2026-10', 29_800, { involuntary: 9_900 }),
    month('2026-11', 19_900, { reactivation: 9_900, voluntary: 9_900 }),
  ],
  bank: {
    opening_cents: 0,
    paid_in_cents: 25_000,
    used_cents: 4_500,
    refunded_cents: 0,
    closing_cents: 20_500,
    members_cents: 20_500,
  },
  allowances_outstanding: [
    { catalogue_item_id: 3, name: 'Hydrafacial', units: 2, value_cents: 39_800 },
  ],
}

/** The same period as Staff are answered: the counts, no money field. */
const { mrr_cents: _m, mrr_movement: _v, bank: _b, ...COUNTS_BASE } = REPORT
const COUNTS: MembershipReport = {
  ...COUNTS_BASE,
  allowances_outstanding: [{ catalogue_item_id: 3, name: 'Hydrafacial', units: 2 }],
}

const EMPTY: MembershipReport = {
  ...REPORT,
  active: 0,
  new: 0,
  cancelled: 0,
  cancelled_by_reason: { patient: 0, staff: 0, failed_payment: 0 },
  not_recovered: 0,
  recovery_rate: null,
  mrr_cents: 0,
  mrr_movement: REPORT.mrr_movement?.map((m) => month(m.month, 0, {})),
  bank: {
    ...(REPORT.bank as NonNullable<MembershipReport['bank']>),
    paid_in_cents: 0,
    used_cents: 0,
    closing_cents: 0,
    members_cents: 0,
  },
  allowances_outstanding: [],
}

function api(report: (call: FakeCall) => MembershipReport): FakeRoutes {
  return {
    'GET /reports/memberships': report,
    'GET /practice': demoPractice,
    'GET /practice/integrations/nextech': NEXTECH_NOT_CHOSEN,
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
  sessionStorage.clear()
})

describe('the memberships dashboard', () => {
  it('shows members by status, the rates, MRR and its movement, the bank adding up and the allowances', async () => {
    const calls = stubApi(api(() => REPORT))
    const { user } = renderRoute('/memberships/dashboard', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships dashboard' })
    const members = within(screen.getByRole('region', { name: 'Members' }))
    expect(members.getByRole('group', { name: 'Active' })).toHaveTextContent('2')
    expect(screen.getByRole('group', { name: 'New' })).toHaveTextContent('3')
    expect(screen.getByRole('group', { name: 'Cancelled' })).toHaveTextContent(
      '11 by the patient, 0 by staff, 0 for failed payment.',
    )
    expect(screen.getByRole('group', { name: 'Recovery rate' })).toHaveTextContent(
      '0%0 of 1 past-due members paid again.',
    )
    expect(screen.getByRole('group', { name: 'Churn rate' })).toHaveTextContent(
      'No members at the start of the period.',
    )
    expect(screen.getByRole('group', { name: 'MRR' })).toHaveTextContent('$199.00')

    const chart = within(await screen.findByRole('region', { name: 'MRR movement by month' }))
    expect(
      chart.getByText(
        'Sep 2026 to Nov 2026: MRR went from $0.00 to $199.00, with $298.00 new, $99.00 reactivated, $0.00 expansion, $0.00 contraction, $99.00 voluntary churn and $99.00 involuntary churn.',
      ),
    ).toBeVisible()
    await user.click(chart.getByRole('button', { name: 'Show as table' }))
    const table = within(chart.getByRole('table', { name: 'MRR movement by month' }))
    const october = table.getByRole('row', { name: /Oct 2026/ })
    expect(
      within(october)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['$298.00', '$0.00', '$0.00', '$0.00', '$0.00', '−$99.00', '$0.00', '$199.00'])
    expect(chart.getByRole('button', { name: 'Show as chart' })).toHaveAttribute(
      'aria-pressed',
      'true',
    )

    const bank = within(screen.getByRole('region', { name: 'Membership bank' }))
    const line = (name: string) => within(bank.getByRole('row', { name: new RegExp(`^${name}`) }))
    expect(line('Opening balance').getByRole('cell')).toHaveTextContent('$0.00')
    expect(line('Paid in with cycles').getByRole('cell')).toHaveTextContent('+$250.00')
    expect(line('Used at visits').getByRole('cell')).toHaveTextContent('−$45.00')
    expect(line('Refunded').getByRole('cell')).toHaveTextContent(/^\$0\.00$/)
    expect(line('Closing balance').getByRole('cell')).toHaveTextContent('$205.00')
    expect(
      bank.getByText(/Opening balance \+ paid in − used − refunded = closing balance\./),
    ).toHaveTextContent('The members’ banks hold $205.00 today.')

    const allowances = within(screen.getByRole('region', { name: 'Allowances outstanding' }))
    const row = within(allowances.getByRole('row', { name: /Hydrafacial/ }))
    expect(row.getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['2', '$398.00'])
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeEnabled()
    // The period is the server's default: no from/to asked for.
    expect(calls.find((c) => c.path === '/reports/memberships')?.search).toBe('')
  })

  it('asks for the period chosen and keeps it in the address', async () => {
    const calls = stubApi(
      api((call) => {
        const search = new URLSearchParams(call.search)
        return {
          ...REPORT,
          from: search.get('from') ?? REPORT.from,
          to: search.get('to') ?? REPORT.to,
        }
      }),
    )
    const { user, router } = renderRoute('/memberships/dashboard', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships dashboard' })
    const period = () => within(screen.getByRole('form', { name: 'Period' }))
    await user.click(period().getByRole('combobox', { name: 'Period' }))
    await user.click(screen.getByRole('option', { name: 'Last 6 months' }))
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ from: '2026-06-01', to: '2026-11-27' }),
    )
    // The picker shows the period the address now holds.
    await waitFor(() =>
      expect(period().getByRole('combobox', { name: 'Period' })).toHaveValue('Last 6 months'),
    )
    await user.click(period().getByRole('combobox', { name: 'Period' }))
    await user.click(screen.getByRole('option', { name: 'Last month' }))
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/reports/memberships').at(-1)?.search).toBe(
        '?from=2026-10-01&to=2026-10-31',
      ),
    )
    expect(
      await screen.findByRole('table', {
        name: 'The members’ banks from Oct 1, 2026 to Oct 31, 2026',
      }),
    ).toBeVisible()
  })

  it('shows Staff the counts and no money anywhere', async () => {
    stubApi(api(() => COUNTS))
    renderRoute('/memberships/dashboard', { session: staffSession })
    await screen.findByRole('heading', { level: 1, name: 'Memberships dashboard' })
    expect(screen.getByRole('group', { name: 'Active' })).toHaveTextContent('2')
    expect(screen.queryByRole('group', { name: 'MRR' })).not.toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Membership bank' })).not.toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'MRR movement by month' })).not.toBeInTheDocument()
    const allowances = within(screen.getByRole('region', { name: 'Allowances outstanding' }))
    expect(allowances.queryByRole('columnheader', { name: 'Value' })).not.toBeInTheDocument()
    expect(document.body.textContent).not.toMatch(/\$\d/)
    expect(
      screen.getByText(
        'Money figures (monthly recurring revenue, the membership bank, the value of allowances) are for Managers and Admins.',
      ),
    ).toBeVisible()
  })

  it('says so when the period has no members', async () => {
    stubApi(api(() => EMPTY))
    renderRoute('/memberships/dashboard', { session: demoSession })
    expect(
      await screen.findByText(
        /No memberships in this period\. When patients join a plan, their numbers show here\./,
      ),
    ).toBeVisible()
    expect(screen.getByRole('link', { name: 'Go to the plans' })).toHaveAttribute(
      'href',
      '/memberships',
    )
    expect(screen.queryByRole('region', { name: 'Members' })).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeEnabled()
  })
})

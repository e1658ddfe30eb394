import { screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import {
  WORKLIST_LISTS,
  type WorklistList,
  type WorklistPage,
  type WorklistRow,
} from '#domain/reports.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { Worklist } from './worklist.tsx'

const row = (overrides: Partial<WorklistRow>): WorklistRow => ({
  patient_id: 2,
  first_name: 'Grace',
  last_name: 'Hopper',
  points: null,
  at: null,
  label: null,
  promotion_id: null,
  appointment_id: null,
  ...overrides,
})

const page = (list: WorklistList, data: WorklistRow[], total = data.length): WorklistPage => ({
  list,
  data,
  total,
  page: 1,
  pageSize: 10,
})

const empty = Object.fromEntries(WORKLIST_LISTS.map((list) => [list, page(list, [])])) as Record<
  WorklistList,
  WorklistPage
>

function show(first: Record<WorklistList, WorklistPage>, list: WorklistList) {
  const onChange = vi.fn()
  const load = vi.fn(async (l: WorklistList, n: number) => ({
    ...page(
      l,
      [row({ patient_id: 9, first_name: 'Ada', last_name: 'Lovelace', label: 'Glow' })],
      11,
    ),
    page: n,
  }))
  const rendered = renderInRouter(
    () => <Worklist first={first} list={list} page={1} onChange={onChange} load={load} />,
    '/',
  )
  return { ...rendered, onChange, load }
}

describe('the worklist’s membership lists', () => {
  it('lists members past due with the plan, the amount due and the next try, and pages', async () => {
    const first = {
      ...empty,
      'memberships-past-due': page(
        'memberships-past-due',
        [
          row({
            label: 'Glow Monthly',
            amount_cents: 9900,
            at: '2026-12-02T12:00:00.000Z',
            membership_id: 30,
          }),
        ],
        11,
      ),
    }
    const { user, onChange } = show(first, 'memberships-past-due')
    const region = await screen.findByRole('region', { name: 'Worklist' })
    const tab = within(region).getByRole('tab', { name: 'Memberships past due (11)' })
    expect(tab).toHaveAttribute('aria-selected', 'true')
    const panel = within(region).getByRole('tabpanel')
    const item = within(panel).getByRole('listitem')
    expect(within(item).getByRole('link', { name: 'Grace Hopper' })).toHaveAttribute(
      'href',
      '/patients/2',
    )
    expect(item).toHaveTextContent('Glow Monthly · $99.00 due · next try Dec 2, 2026')
    await user.click(within(panel).getByRole('button', { name: 'Memberships past due, page 2' }))
    expect(onChange).toHaveBeenCalledWith('memberships-past-due', 2)
  })

  it('leaves the amount out when the reader may not see money, and says when no retry is left', async () => {
    const first = {
      ...empty,
      'memberships-past-due': page('memberships-past-due', [row({ label: 'Glow Monthly' })]),
    }
    show(first, 'memberships-past-due')
    const item = await screen.findByRole('listitem')
    expect(item).toHaveTextContent('Glow Monthly · no retry left')
    expect(item).not.toHaveTextContent('$')
  })

  it('lists cards that expire at the end of this month with the card', async () => {
    const first = {
      ...empty,
      'cards-expiring': page('cards-expiring', [
        row({ label: 'Visa ending 4242', at: '2026-11-30T12:00:00.000Z', membership_id: 31 }),
      ]),
    }
    show(first, 'cards-expiring')
    const tab = await screen.findByRole('tab', { name: 'Cards expiring this month (1)' })
    expect(tab).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('listitem')).toHaveTextContent(
      'Grace HopperVisa ending 4242 expires on Nov 30, 2026',
    )
  })

  it('says so when no membership is past due and no card expires', async () => {
    const { unmount } = show(empty, 'memberships-past-due')
    expect(
      await screen.findByText('No membership is past due: every renewal is paid.'),
    ).toBeVisible()
    expect(screen.getByRole('tab', { name: 'Memberships past due (0)' })).toBeVisible()
    unmount()
    show(empty, 'cards-expiring')
    expect(
      await screen.findByText('No member’s card expires at the end of this month.'),
    ).toBeVisible()
  })
})

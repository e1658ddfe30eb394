import { waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { NEXTECH_SYNC_MESSAGES, type NextechReviewItem } from '#domain/nextech.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { findIntegrations, NEXTECH_BUSY, settingsApi } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const matchItem: NextechReviewItem = {
  id: 1,
  kind: 'patient',
  message: NEXTECH_SYNC_MESSAGES.several(2),
  nextech_patient: {
    id: 'nx-501',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    phone: '+15550101001',
  },
  candidates: [
    {
      id: 21,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      phone: null,
    },
    {
      id: 22,
      first_name: 'Augusta',
      last_name: 'King',
      email: null,
      phone: '+15550101001',
    },
  ],
  bill: null,
  created_at: '2026-06-01T08:00:00.000Z',
}

const reversalItem: NextechReviewItem = {
  id: 2,
  kind: 'reversal',
  message: 'Bill 9001 was voided in Nextech, but its 300 points were already redeemed.',
  nextech_patient: null,
  candidates: [{ id: 21, first_name: 'Ada', last_name: 'Lovelace', email: null, phone: null }],
  bill: { claim_id: '9001', text: 'Botox 20 units', points: 300, net_cents: 30000 },
  created_at: '2026-06-01T08:00:00.000Z',
}

const ceilingItem: NextechReviewItem = {
  id: 3,
  kind: 'ceiling',
  message: NEXTECH_SYNC_MESSAGES.ceiling(12000, 5000),
  nextech_patient: null,
  candidates: [{ id: 22, first_name: 'Augusta', last_name: 'King', email: null, phone: null }],
  bill: { claim_id: '9002', text: 'Full face laser', points: 12000, net_cents: 1200000 },
  created_at: '2026-06-01T08:00:00.000Z',
}

const LISTS = {
  'GET /practice/integrations/nextech/unmapped': { codes: [] },
  'GET /procedures': [],
  'GET /products': [],
}

/** The queue the server keeps: each action answers the items left. */
function reviewApi(items: NextechReviewItem[]) {
  let open = items
  return {
    'GET /practice/integrations/nextech/review': () => ({ items: open }),
    ...Object.fromEntries(
      items.map((item) => [
        `POST /practice/integrations/nextech/review/${item.id}`,
        () => {
          open = open.filter((other) => other.id !== item.id)
          return { items: open }
        },
      ]),
    ),
  }
}

const posted = (calls: FakeCall[]) =>
  calls
    .filter(
      (c) => c.method === 'POST' && c.path.startsWith('/practice/integrations/nextech/review/'),
    )
    .map((c) => ({ path: c.path, body: c.body }))

async function openQueue() {
  const integrations = await findIntegrations()
  const queue = within(integrations).getByRole('region', { name: 'Review queue' })
  await within(queue).findAllByRole('article')
  return queue
}

describe('Settings → Integrations: the review queue (Admin)', () => {
  it('shows each item with the Nextech patient, and each action posts its body', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, { ...LISTS, ...reviewApi([matchItem, reversalItem, ceilingItem]) }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const queue = await openQueue()

    const match = within(queue).getByRole('article', { name: 'Review Ada Lovelace' })
    expect(match).toHaveTextContent(NEXTECH_SYNC_MESSAGES.several(2))
    expect(match).toHaveTextContent('In Nextech: ada@example.com · (555) 010-1001')
    expect(within(match).getByRole('button', { name: 'Link to Ada Lovelace' })).toBeEnabled()
    expect(within(match).getByRole('button', { name: 'Link to Augusta King' })).toBeEnabled()
    expect(within(match).getByRole('button', { name: 'Create new patient' })).toBeEnabled()
    expect(within(match).getByRole('button', { name: 'Ignore' })).toBeEnabled()

    await user.click(within(match).getByRole('button', { name: 'Link to Augusta King' }))
    await waitFor(() => expect(within(queue).getAllByRole('article')).toHaveLength(2))
    expect(within(queue).queryByRole('article', { name: 'Review Ada Lovelace' })).toBeNull()

    const reversal = within(queue).getByRole('article', { name: 'Review bill 9001' })
    expect(reversal).toHaveTextContent('Bill 9001: Botox 20 units, $300.00, 300 points')
    expect(
      within(reversal)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Dismiss'])
    await user.click(within(reversal).getByRole('button', { name: 'Dismiss' }))
    await waitFor(() => expect(within(queue).getAllByRole('article')).toHaveLength(1))

    const ceiling = within(queue).getByRole('article', { name: 'Review bill 9002' })
    expect(ceiling).toHaveTextContent(NEXTECH_SYNC_MESSAGES.ceiling(12000, 5000))
    expect(within(ceiling).getByRole('button', { name: 'Ignore' })).toBeEnabled()
    await user.click(within(ceiling).getByRole('button', { name: 'Award 12,000 points' }))
    expect(await within(queue).findByText('Nothing to review.')).toBeVisible()

    expect(posted(calls)).toEqual([
      { path: '/practice/integrations/nextech/review/1', body: { action: 'link', patient_id: 22 } },
      { path: '/practice/integrations/nextech/review/2', body: { action: 'ignore' } },
      { path: '/practice/integrations/nextech/review/3', body: { action: 'award' } },
    ])
    // What the actions answered is what shows: the queue was read once.
    expect(
      calls.filter((c) => c.method === 'GET' && c.path === '/practice/integrations/nextech/review'),
    ).toHaveLength(1)
  })

  it.each([
    ['Create new patient', { action: 'create' }],
    ['Ignore', { action: 'ignore' }],
  ])('"%s" posts %o and the list shows what the server answered', async (label, body) => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, { ...LISTS, ...reviewApi([matchItem, ceilingItem]) }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const queue = await openQueue()
    const match = within(queue).getByRole('article', { name: 'Review Ada Lovelace' })
    await user.click(within(match).getByRole('button', { name: label }))
    await waitFor(() => expect(within(queue).getAllByRole('article')).toHaveLength(1))
    expect(within(queue).getByRole('article', { name: 'Review bill 9002' })).toBeVisible()
    expect(posted(calls)).toEqual([{ path: '/practice/integrations/nextech/review/1', body }])
  })

  it('a refusal shows under the item, which stays with its actions', async () => {
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        'GET /practice/integrations/nextech/review': { items: [matchItem] },
        'POST /practice/integrations/nextech/review/1': () =>
          apiError(404, NEXTECH_SYNC_MESSAGES.patientNotFound, 'NotFoundError'),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const queue = await openQueue()
    const match = within(queue).getByRole('article', { name: 'Review Ada Lovelace' })
    await user.click(within(match).getByRole('button', { name: 'Link to Ada Lovelace' }))
    expect(await within(match).findByRole('alert')).toHaveTextContent(
      NEXTECH_SYNC_MESSAGES.patientNotFound,
    )
    expect(within(match).getByRole('button', { name: 'Link to Ada Lovelace' })).toBeEnabled()
    expect(within(match).getByRole('button', { name: 'Create new patient' })).toBeEnabled()
  })

  it('an empty queue says there is nothing to review', async () => {
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        'GET /practice/integrations/nextech/review': { items: [] },
      }),
    )
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    const queue = within(integrations).getByRole('region', { name: 'Review queue' })
    expect(await within(queue).findByText('Nothing to review.')).toBeVisible()
    expect(within(queue).queryAllByRole('button')).toEqual([])
  })

  it('a queue that cannot be read says why and reads it again on "Try again"', async () => {
    let refuse = true
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        'GET /practice/integrations/nextech/review': () =>
          refuse
            ? apiError(409, NEXTECH_SYNC_MESSAGES.notConnected, 'ConflictError')
            : { items: [] },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    const queue = within(integrations).getByRole('region', { name: 'Review queue' })
    expect(await within(queue).findByRole('alert')).toHaveTextContent(
      NEXTECH_SYNC_MESSAGES.notConnected,
    )
    refuse = false
    await user.click(within(queue).getByRole('button', { name: 'Try again' }))
    expect(await within(queue).findByText('Nothing to review.')).toBeVisible()
    expect(within(queue).queryByRole('alert')).toBeNull()
  })
})

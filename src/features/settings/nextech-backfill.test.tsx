import { within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { NextechBackfill } from '#domain/nextech.ts'
import type { Session } from '#domain/session.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { findIntegrations, NEXTECH_BUSY, settingsApi } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const staffSession: Session = {
  ...demoSession,
  user: { ...demoSession.user, access_rights: 'Staff' },
}

const LISTS = {
  'GET /practice/integrations/nextech/review': { items: [] },
  'GET /practice/integrations/nextech/unmapped': { codes: [] },
  'GET /procedures': [],
  'GET /products': [],
}

const BACKFILL = '/practice/integrations/nextech/backfill'

function answer(changes: Partial<NextechBackfill> = {}): NextechBackfill {
  return {
    since: '2026-01-01',
    award_from: '2026-05-01',
    lines: 2,
    bills: 2,
    patients: 1,
    points: 350,
    applied: false,
    ...changes,
  }
}

const posts = (calls: FakeCall[]) =>
  calls.filter((c) => c.method === 'POST' && c.path === BACKFILL).map((c) => c.body)

async function openOlderBills() {
  const integrations = await findIntegrations()
  return within(integrations).getByRole('region', { name: 'Older bills' })
}

describe('Settings → Integrations: older bills (Admin)', () => {
  it('previews what the bills from a day earn, then awards them', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        [`POST ${BACKFILL}`]: (call: FakeCall) =>
          (call.body as { preview?: boolean }).preview
            ? answer()
            : answer({ applied: true, award_from: '2026-05-01' }),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const part = await openOlderBills()
    expect(part).toHaveTextContent(
      'Bills from Nextech earn points from the day the practice connected. To award bills made before that, choose the first day and preview what they earn.',
    )
    expect(within(part).queryByRole('button', { name: /^Award/ })).toBeNull()

    await user.type(within(part).getByLabelText('First day to award'), '2026-01-01')
    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(await within(part).findByRole('status')).toHaveTextContent(
      '2 bills of 1 patient, 350 points.',
    )
    expect(part).toHaveTextContent('Bills from Nextech earn points from May 1, 2026.')
    expect(posts(calls)).toEqual([{ since: '2026-01-01', preview: true }])

    await user.click(within(part).getByRole('button', { name: 'Award 350 points' }))
    expect(await within(part).findByText('Awarded 350 points for 2 bill lines.')).toBeVisible()
    expect(within(part).queryByRole('button', { name: /^Award/ })).toBeNull()
    expect(part).toHaveTextContent('Bills from Nextech earn points from Jan 1, 2026.')
    expect(posts(calls)).toEqual([{ since: '2026-01-01', preview: true }, { since: '2026-01-01' }])
  })

  it('says when no bill waits, and offers no award', async () => {
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        [`POST ${BACKFILL}`]: answer({ lines: 0, bills: 0, patients: 0, points: 0 }),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const part = await openOlderBills()
    await user.type(within(part).getByLabelText('First day to award'), '2026-01-01')
    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(await within(part).findByRole('status')).toHaveTextContent(
      'No bill before that day is waiting for points.',
    )
    expect(within(part).queryByRole('button', { name: /^Award/ })).toBeNull()
  })

  it('offers the award only for the day just previewed', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        [`POST ${BACKFILL}`]: (call: FakeCall) => {
          const body = call.body as { since: string }
          return body.since === '2026-01-01'
            ? answer()
            : answer({ since: body.since, lines: 5, bills: 4, patients: 3, points: 900 })
        },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const part = await openOlderBills()
    const day = within(part).getByLabelText('First day to award')
    await user.type(day, '2026-01-01')
    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(
      await within(part).findByRole('button', { name: 'Award 350 points' }),
    ).toBeInTheDocument()

    await user.clear(day)
    await user.type(day, '2025-10-01')
    expect(within(part).queryByRole('button', { name: /^Award/ })).toBeNull()
    expect(within(part).queryByRole('status')).toBeNull()

    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(await within(part).findByRole('status')).toHaveTextContent(
      '4 bills of 3 patients, 900 points.',
    )
    await user.click(within(part).getByRole('button', { name: 'Award 900 points' }))
    expect(posts(calls)).toEqual([
      { since: '2026-01-01', preview: true },
      { since: '2025-10-01', preview: true },
      { since: '2025-10-01' },
    ])
  })

  it('asks for a day before previewing', async () => {
    const calls = stubApi(settingsApi(NEXTECH_BUSY, LISTS))
    const { user } = renderRoute('/settings', { session: demoSession })
    const part = await openOlderBills()
    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(within(part).getByLabelText('First day to award')).toHaveAccessibleDescription(
      'Choose the first day whose bills should earn.',
    )
    expect(posts(calls)).toEqual([])
  })

  it('shows a refusal near the action and keeps the chosen day', async () => {
    const message = 'since must be a calendar date written YYYY-MM-DD.'
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...LISTS,
        [`POST ${BACKFILL}`]: () => apiError(400, message, 'ValidationError'),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const part = await openOlderBills()
    const day = within(part).getByLabelText('First day to award')
    await user.type(day, '2026-01-01')
    await user.click(within(part).getByRole('button', { name: 'Preview' }))
    expect(await within(part).findByRole('alert')).toHaveTextContent(message)
    expect(day).toHaveValue('2026-01-01')
    expect(within(part).queryByRole('button', { name: /^Award/ })).toBeNull()
  })

  it('is not offered before the practice is connected', async () => {
    stubApi(
      settingsApi(
        { ...NEXTECH_BUSY, connected: false, status: 'failing', connected_since: null },
        LISTS,
      ),
    )
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    expect(await within(integrations).findByText('Nothing to review.')).toBeVisible()
    expect(within(integrations).queryByRole('region', { name: 'Older bills' })).toBeNull()
  })

  it('Staff see nothing of it', async () => {
    const calls = stubApi(settingsApi(NEXTECH_BUSY))
    renderRoute('/settings', { session: staffSession })
    const integrations = await findIntegrations()
    expect(within(integrations).getByText(/^Last successful sync/)).toBeVisible()
    expect(within(integrations).queryByRole('region', { name: 'Older bills' })).toBeNull()
    expect(within(integrations).queryByLabelText('First day to award')).toBeNull()
    expect(within(integrations).queryByText(/Older bills|earn points from/)).toBeNull()
    expect(posts(calls)).toEqual([])
  })
})

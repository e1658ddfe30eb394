import { waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import {
  NEXTECH_SYNC_MESSAGES,
  type NextechRun,
  type NextechStatus,
  NO_NEXTECH_COUNTS,
} from '#domain/nextech.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import type { Session } from '#domain/session.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import {
  controlSyncPauses,
  findIntegrations,
  NEXTECH_BUSY,
  NEXTECH_CONNECTED,
  settingsApi,
} from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const staffSession: Session = {
  ...demoSession,
  user: { ...demoSession.user, access_rights: 'Staff' },
}

const EMPTY_LISTS = {
  'GET /practice/integrations/nextech/review': { items: [] },
  'GET /practice/integrations/nextech/unmapped': { codes: [] },
  'GET /procedures': [],
  'GET /products': [],
}

function run(id: number, changes: Partial<NextechRun> = {}): NextechRun {
  return {
    id,
    status: 'running',
    trigger: 'manual',
    counts: NO_NEXTECH_COUNTS,
    requests: { token: 1, Patient: 2 },
    error: null,
    started_at: '2026-06-01T09:00:00.000Z',
    finished_at: null,
    ...changes,
  }
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

const count = (calls: FakeCall[], method: string, path: string) =>
  calls.filter((call) => call.method === method && call.path === path).length

describe('Settings → Integrations: the Nextech sync', () => {
  it('says the health in words: the last sync, its lag and the last 24 hours', async () => {
    stubApi(settingsApi(NEXTECH_BUSY, EMPTY_LISTS))
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    const sync = within(integrations).getByRole('region', { name: 'Sync' })
    expect(within(sync).getByText(/^Last successful sync 5 minutes ago \(/)).toBeVisible()
    expect(within(sync).getByText('4 linked, 2 created, 7 updated, 1 to review')).toBeVisible()
    expect(within(sync).getByText('12 appointments')).toBeVisible()
    expect(within(sync).getByText('3 bills')).toBeVisible()
    expect(within(sync).getByText('1,250 points awarded, 100 points reversed')).toBeVisible()
  })

  it('says so when nothing was ever synced', async () => {
    const status: NextechStatus = {
      ...NEXTECH_CONNECTED,
      sync: { ...NEXTECH_CONNECTED.sync, last_sync_at: null, lag_seconds: null },
    }
    stubApi(settingsApi(status, EMPTY_LISTS))
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    expect(within(integrations).getByText('No successful sync yet.')).toBeVisible()
    expect(
      within(integrations).getByText('Nothing came from Nextech in the last 24 hours.'),
    ).toBeVisible()
  })

  it('Sync now: "Syncing…" while the run goes, then its counts, and the status read again', async () => {
    const pauses = controlSyncPauses()
    let status: NextechStatus = NEXTECH_CONNECTED
    const runs = [
      run(7),
      run(7, {
        status: 'done',
        counts: {
          ...NO_NEXTECH_COUNTS,
          patients_linked: 2,
          patients_created: 1,
          appointments: 3,
          bills: 1,
          points_awarded: 1250,
        },
        finished_at: '2026-06-01T09:00:05.000Z',
      }),
    ]
    const calls = stubApi(
      settingsApi(() => status, {
        ...EMPTY_LISTS,
        'POST /practice/integrations/nextech/sync': () => json({ run_id: 7 }, 202),
        'GET /practice/integrations/nextech/runs/7': () => {
          const answer = runs.shift() as NextechRun
          if (answer.status === 'done') {
            status = {
              ...NEXTECH_CONNECTED,
              sync: {
                ...NEXTECH_CONNECTED.sync,
                last_sync_at: '2026-06-01T09:00:05.000Z',
                lag_seconds: 2,
                counts: answer.counts,
              },
            }
          }
          return answer
        },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    await within(integrations).findByText('Nothing to review.')
    const statusReads = count(calls, 'GET', '/practice/integrations/nextech')

    await user.click(within(integrations).getByRole('button', { name: 'Sync now' }))
    expect(await within(integrations).findByText('Syncing…')).toBeVisible()
    // The run is still going: one look, then a pause the test ends.
    await waitFor(() => expect(pauses).toHaveLength(1))
    expect(count(calls, 'GET', '/practice/integrations/nextech/runs/7')).toBe(1)
    expect(within(integrations).queryByRole('status')).toBeNull()
    pauses[0]?.resolve()

    const finished = await within(integrations).findByRole('status')
    expect(finished).toHaveTextContent('Sync finished')
    expect(finished).toHaveTextContent(
      '2 patients linked, 1 patient created, 3 appointments, 1 bill, 1,250 points awarded.',
    )
    expect(within(integrations).queryByText('Syncing…')).toBeNull()
    expect(count(calls, 'GET', '/practice/integrations/nextech/runs/7')).toBe(2)
    // The status is read again: the health shows the run.
    expect(
      await within(integrations).findByText(/^Last successful sync less than a minute ago/),
    ).toBeVisible()
    expect(count(calls, 'GET', '/practice/integrations/nextech')).toBeGreaterThan(statusReads)
    expect(
      within(integrations).getByText('2 linked, 1 created, 0 updated, 0 to review'),
    ).toBeVisible()
    // The lists under it are read again too.
    await waitFor(() =>
      expect(count(calls, 'GET', '/practice/integrations/nextech/review')).toBe(2),
    )
    expect(calls.find((c) => c.path === '/practice/integrations/nextech/sync')?.body).toBe(
      undefined,
    )
  })

  it('a failed run shows its error in words', async () => {
    controlSyncPauses()
    stubApi(
      settingsApi(NEXTECH_CONNECTED, {
        ...EMPTY_LISTS,
        'POST /practice/integrations/nextech/sync': () => json({ run_id: 8 }, 202),
        'GET /practice/integrations/nextech/runs/8': run(8, {
          status: 'failed',
          error: 'Nextech could not be reached. Try again in a few minutes.',
        }),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    await user.click(within(integrations).getByRole('button', { name: 'Sync now' }))
    const failure = await within(integrations).findByRole('alert')
    expect(failure).toHaveTextContent('Sync failed')
    expect(failure).toHaveTextContent('Nextech could not be reached. Try again in a few minutes.')
    expect(within(integrations).queryByText('Syncing…')).toBeNull()
    expect(within(integrations).getByRole('button', { name: 'Sync now' })).toBeEnabled()
  })

  it('a refused Sync now says why near the button', async () => {
    stubApi(
      settingsApi(NEXTECH_CONNECTED, {
        ...EMPTY_LISTS,
        'POST /practice/integrations/nextech/sync': () =>
          json({ message: NEXTECH_SYNC_MESSAGES.notConnected }, 409),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    await user.click(within(integrations).getByRole('button', { name: 'Sync now' }))
    const sync = within(integrations).getByRole('region', { name: 'Sync' })
    expect(await within(sync).findByRole('alert')).toHaveTextContent(
      NEXTECH_SYNC_MESSAGES.notConnected,
    )
  })

  it('follows a run already going when the page opens, and reads the status after it', async () => {
    const pauses = controlSyncPauses()
    let status: NextechStatus = {
      ...NEXTECH_CONNECTED,
      sync: { ...NEXTECH_CONNECTED.sync, running_run_id: 9 },
    }
    const runs = [run(9, { trigger: 'schedule' }), run(9, { trigger: 'schedule', status: 'done' })]
    stubApi(
      settingsApi(() => status, {
        ...EMPTY_LISTS,
        'GET /practice/integrations/nextech/runs/9': () => {
          const answer = runs.shift() as NextechRun
          if (answer.status === 'done') status = NEXTECH_CONNECTED
          return answer
        },
      }),
    )
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    expect(await within(integrations).findByText('Syncing…')).toBeVisible()
    await waitFor(() => expect(pauses).toHaveLength(1))
    pauses[0]?.resolve()
    await waitFor(() => expect(within(integrations).queryByText('Syncing…')).toBeNull())
    expect(within(integrations).getByRole('button', { name: 'Sync now' })).toBeEnabled()
    // Nobody asked for this run here: its end is not announced.
    expect(within(integrations).queryByRole('status')).toBeNull()
  })

  it('a Staff member sees the health and what waits, with no action and no Admin call', async () => {
    const calls = stubApi(
      settingsApi({ ...NEXTECH_BUSY, sync: { ...NEXTECH_BUSY.sync, running_run_id: 4 } }),
    )
    renderRoute('/settings', { session: staffSession })
    const integrations = await findIntegrations()
    expect(within(integrations).getByText(/^Last successful sync 5 minutes ago/)).toBeVisible()
    expect(within(integrations).getByText('12 appointments')).toBeVisible()
    expect(within(integrations).getByText('A sync is running now.')).toBeVisible()
    expect(
      within(integrations).getByText('2 items of the sync wait for review by an admin.'),
    ).toBeVisible()
    expect(
      within(integrations).getByText('1 service code of synced bills has no catalogue item yet.'),
    ).toBeVisible()
    expect(within(integrations).getByText(PERMISSION_REFUSALS['practice.settings'])).toBeVisible()
    expect(within(integrations).queryAllByRole('button')).toEqual([])
    expect(within(integrations).queryAllByRole('combobox')).toEqual([])
    expect(within(integrations).queryAllByRole('checkbox')).toEqual([])
    expect(within(integrations).queryByRole('region', { name: 'Review queue' })).toBeNull()
    expect(
      calls.filter((c) =>
        /nextech\/(sync|runs|review|unmapped)|^\/(procedures|products)$/.test(c.path),
      ),
    ).toEqual([])
  })

  it('an Admin of a practice that has not connected yet gets no Sync now', async () => {
    stubApi(
      settingsApi(
        { ...NEXTECH_CONNECTED, connected: false, status: 'failing', connected_since: null },
        EMPTY_LISTS,
      ),
    )
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    expect(within(integrations).getByRole('button', { name: 'Test connection' })).toBeEnabled()
    expect(within(integrations).queryByRole('button', { name: 'Sync now' })).toBeNull()
    // It synced before: what waits is still shown.
    expect(await within(integrations).findByText('Nothing to review.')).toBeVisible()
  })

  it('before the first connection there is no queue and no code to read', async () => {
    const never: NextechStatus = {
      ...NEXTECH_CONNECTED,
      connected: false,
      status: 'untested',
      connected_since: null,
      last_checked_at: null,
      sync: { ...NEXTECH_CONNECTED.sync, last_sync_at: null, lag_seconds: null },
    }
    const calls = stubApi(settingsApi(never, EMPTY_LISTS))
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    expect(within(integrations).getByText('No successful sync yet.')).toBeVisible()
    expect(within(integrations).queryByRole('region', { name: 'Review queue' })).toBeNull()
    expect(
      within(integrations).queryByRole('region', { name: 'Unmapped service codes' }),
    ).toBeNull()
    expect(calls.filter((c) => /nextech\/(review|unmapped)/.test(c.path))).toEqual([])
  })
})

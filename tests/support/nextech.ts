import { screen } from '@testing-library/react'
import { vi } from 'vitest'
import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { type NextechStatus, NO_NEXTECH_COUNTS } from '#domain/nextech.ts'
import { nextechSyncCalls } from '#src/features/settings/nextech-sync.actors.ts'
import { type Deferred, deferred } from '#tests/support/deferred.ts'
import { demoPractice } from '#tests/support/demo-session.ts'
import type { FakeRoutes } from '#tests/support/fake-api.ts'

/** The Nextech connection of a practice without Nextech, as the server answers it. */
export const NEXTECH_NOT_CHOSEN: NextechStatus = {
  chosen: false,
  configured: false,
  connected: false,
  status: 'untested',
  practice_id: null,
  last_checked_at: null,
  connected_since: null,
  errors: [],
  sandbox: true,
  sync: {
    last_sync_at: null,
    lag_seconds: null,
    counts: NO_NEXTECH_COUNTS,
    review_count: 0,
    unmapped_count: 0,
    running_run_id: null,
  },
}

/** A practice connected to Nextech, synced five minutes ago, with nothing waiting. */
export const NEXTECH_CONNECTED: NextechStatus = {
  ...NEXTECH_NOT_CHOSEN,
  chosen: true,
  configured: true,
  connected: true,
  status: 'connected',
  practice_id: '1001',
  last_checked_at: '2026-06-01T08:55:00.000Z',
  connected_since: '2026-05-01T09:00:00.000Z',
  sandbox: false,
  sync: {
    ...NEXTECH_NOT_CHOSEN.sync,
    last_sync_at: '2026-06-01T08:55:00.000Z',
    lag_seconds: 300,
  },
}

/** A practice whose sync brought things in the last 24 hours, with items waiting. */
export const NEXTECH_BUSY: NextechStatus = {
  ...NEXTECH_CONNECTED,
  sync: {
    last_sync_at: '2026-06-01T08:55:00.000Z',
    lag_seconds: 300,
    counts: {
      patients_linked: 4,
      patients_created: 2,
      patients_updated: 7,
      patients_to_review: 1,
      appointments: 12,
      bills: 3,
      points_awarded: 1250,
      points_reversed: 100,
    },
    review_count: 2,
    unmapped_count: 1,
    running_run_id: null,
  },
}

/**
 * The calls Settings makes before the Integrations section shows (rules, practice, Nextech's
 * status), plus `routes`, for `stubApi`.
 */
export function settingsApi(
  status: NextechStatus | (() => NextechStatus),
  routes: FakeRoutes = {},
) {
  return {
    'GET /practice/rules': DEFAULT_PROGRAMME_RULES,
    'GET /practice': demoPractice,
    'GET /practice/integrations/nextech': typeof status === 'function' ? () => status() : status,
    ...routes,
  } satisfies FakeRoutes
}

/** The Integrations section of Settings, once it is on screen. */
export async function findIntegrations(): Promise<HTMLElement> {
  return screen.findByRole('region', { name: 'Integrations' })
}

/**
 * Replaces the pause between two looks at a running sync: each pause waits until the test ends
 * it (`pauses[n].resolve()`), so no test sleeps or depends on the clock.
 */
export function controlSyncPauses(): Deferred<void>[] {
  const pauses: Deferred<void>[] = []
  vi.spyOn(nextechSyncCalls, 'wait').mockImplementation(() => {
    const pause = deferred<void>()
    pauses.push(pause)
    return pause.promise
  })
  return pauses
}

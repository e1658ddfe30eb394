import type { NextechStatus } from '#domain/nextech.ts'

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
}

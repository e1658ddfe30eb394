import { Alert, Badge, Button, Divider, Group, Stack, Text } from '@mantine/core'
import { useCallback, useState } from 'react'
import type { NextechStatus, NextechTestAnswer } from '#domain/nextech.ts'
import { NEXTECH_SANDBOX_LOGIN, NEXTECH_SETUP_MESSAGES } from '#domain/nextech.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { SectionCard } from '#src/ui/section-card.tsx'
import { NextechOlderBills } from './nextech-backfill.tsx'
import { NextechReviewQueue } from './nextech-review-queue.tsx'
import { NextechServiceCodes } from './nextech-service-codes.tsx'
import { plural, useNextechList } from './nextech-shared.tsx'
import { type NextechSyncCalls, nextechSyncCalls } from './nextech-sync.actors.ts'
import { NextechSyncHealth } from './nextech-sync-health.tsx'

/** Props of {@link NextechConnectionSection}. */
export type NextechConnectionSectionProps = {
  status: NextechStatus
  /** Runs "Test connection": the outcome in words, or the sentence of a refused call. */
  onTest?: (() => Promise<NextechTestAnswer | string>) | undefined
  /**
   * Why this person may not test (not an Admin): Test connection, Sync now, the review queue's
   * actions and the mapping of service codes then do not show, only the sync's health in words.
   */
  readOnlyNote?: string | undefined
  /** The sync's calls (Admin); the API's unless a test gives its own. */
  calls?: NextechSyncCalls
}

const BADGES = {
  connected: { color: 'green', label: 'Connected' },
  failing: { color: 'red', label: 'Not connected' },
  untested: { color: 'gray', label: 'Not tested yet' },
} as const

/**
 * Settings → Integrations: the Nextech connection of a practice that chose Nextech (its status,
 * since when it works, the last failure in words) and "Test connection", which signs the API user
 * in at Microsoft and reads a patient, as the sync will. Under it, the sync: its health for
 * everyone; "Sync now", the review queue and the unmapped service codes for an Admin.
 */
export function NextechConnectionSection({
  status,
  onTest,
  readOnlyNote,
  calls = nextechSyncCalls,
}: NextechConnectionSectionProps) {
  const [testing, setTesting] = useState(false)
  const [outcome, setOutcome] = useState<NextechTestAnswer | null>(null)
  const badge = BADGES[status.status]
  // A refusal the status already shows as its last failure is not said twice.
  const shownOutcome =
    outcome && (outcome.ok || !status.errors.includes(outcome.message)) ? outcome : null

  const test = async () => {
    if (!onTest) return
    setTesting(true)
    setOutcome(null)
    try {
      const answer = await onTest()
      setOutcome(typeof answer === 'string' ? { ok: false, message: answer } : answer)
    } finally {
      setTesting(false)
    }
  }

  return (
    <SectionCard id="settings-integrations" title="Integrations" align="stretch">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text fw={600}>Nextech</Text>
        {status.chosen && (
          <Badge color={badge.color} variant="light">
            {badge.label}
          </Badge>
        )}
      </Group>
      {!status.chosen ? (
        <Text c="dimmed">{NEXTECH_SETUP_MESSAGES.notChosen}</Text>
      ) : (
        <Stack gap="xs">
          {!status.configured && <Text>{NEXTECH_SETUP_MESSAGES.incomplete}</Text>}
          {status.practice_id && <Text size="sm">Practice ID: {status.practice_id}</Text>}
          {status.connected_since && (
            <Text size="sm">Working since {formatDateTime(status.connected_since)}</Text>
          )}
          {status.last_checked_at && (
            <Text size="sm" c="dimmed">
              Last checked {formatDateTime(status.last_checked_at)}
            </Text>
          )}
          {status.errors.map((error) => (
            <Alert key={error} color="red" title="Last failure">
              {error}
            </Alert>
          ))}
          {status.sandbox && (
            <Text size="sm" c="dimmed">
              This server talks to the built-in Nextech sandbox, not to Nextech. Its API user:
              client ID {NEXTECH_SANDBOX_LOGIN.client_id}, username {NEXTECH_SANDBOX_LOGIN.username}
              , password {NEXTECH_SANDBOX_LOGIN.password}, practice ID{' '}
              {NEXTECH_SANDBOX_LOGIN.nx_practice_id}.
            </Text>
          )}
        </Stack>
      )}
      {shownOutcome && (
        <Alert
          color={shownOutcome.ok ? 'green' : 'red'}
          role={shownOutcome.ok ? 'status' : 'alert'}
        >
          {shownOutcome.message}
        </Alert>
      )}
      {status.chosen && onTest && !readOnlyNote && (
        <Group>
          <Button onClick={() => void test()} loading={testing} disabled={!status.configured}>
            Test connection
          </Button>
        </Group>
      )}
      {status.chosen && (
        <>
          <Divider />
          {readOnlyNote ? (
            <NextechSyncSummary status={status} calls={calls} />
          ) : (
            <NextechSyncAdmin status={status} calls={calls} />
          )}
        </>
      )}
      {status.chosen && readOnlyNote && (
        <Text size="sm" c="dimmed">
          {readOnlyNote}
        </Text>
      )}
    </SectionCard>
  )
}

/** The sync for a member who is not an Admin: its health and what waits, in words. */
function NextechSyncSummary({ status, calls }: { status: NextechStatus; calls: NextechSyncCalls }) {
  const { review_count, unmapped_count } = status.sync
  return (
    <>
      <NextechSyncHealth status={status} canManage={false} calls={calls} onRunEnded={noop} />
      {(review_count > 0 || unmapped_count > 0) && (
        <Stack gap={2}>
          {review_count > 0 && (
            <Text size="sm">
              {plural(review_count, 'item')} of the sync {review_count === 1 ? 'waits' : 'wait'} for
              review by an admin.
            </Text>
          )}
          {unmapped_count > 0 && (
            <Text size="sm">
              {plural(unmapped_count, 'service code')} of synced bills{' '}
              {unmapped_count === 1 ? 'has' : 'have'} no catalogue item yet.
            </Text>
          )}
        </Stack>
      )}
    </>
  )
}

const noop = () => {}

/**
 * The sync for an Admin: its health and Sync now, then the review queue and the service codes,
 * read again when a followed sync ends or the connection changes, and, while connected, the
 * award of older bills.
 */
function NextechSyncAdmin({ status, calls }: { status: NextechStatus; calls: NextechSyncCalls }) {
  const [runsEnded, setRunsEnded] = useState(0)
  const onRunEnded = useCallback(() => setRunsEnded((n) => n + 1), [])
  const { last_sync_at, review_count, unmapped_count } = status.sync
  // Before the first connection nothing has been synced: there is no queue and no code yet.
  const synced = status.connected || last_sync_at !== null || review_count > 0 || unmapped_count > 0
  const generation = `${status.connected}/${runsEnded}`
  const review = useNextechList(calls.listReview, generation, synced)
  const codes = useNextechList(calls.listCodes, generation, synced)
  // The picker's catalogue is read once there is a code to map.
  const catalogue = useNextechList(
    calls.listCatalogue,
    'catalogue',
    synced && (codes.value?.length ?? 0) > 0,
  )
  return (
    <>
      <NextechSyncHealth status={status} canManage calls={calls} onRunEnded={onRunEnded} />
      {synced && (
        <>
          <NextechReviewQueue list={review} calls={calls} />
          <NextechServiceCodes list={codes} catalogue={catalogue} calls={calls} />
        </>
      )}
      {/* Older bills can only be awarded while connected (the server refuses otherwise). */}
      {status.connected && <NextechOlderBills calls={calls} />}
    </>
  )
}

import { Alert, Box, Button, Group, Loader, SimpleGrid, Stack, Text } from '@mantine/core'
import { useRouter } from '@tanstack/react-router'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { NextechCounts, NextechRun, NextechStatus } from '#domain/nextech.ts'
import { pointsText } from '#domain/points.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { apiErrorMessage } from '#src/lib/http.ts'
import { useAction } from '#src/lib/use-action.ts'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { NextechPart, plural } from './nextech-shared.tsx'
import type { NextechSyncCalls } from './nextech-sync.actors.ts'

/** How long to wait between two looks at a running sync. */
export const NEXTECH_RUN_POLL_MS = 2000

/** The lag of the last sync in words: "less than a minute ago", "5 minutes ago", "2 days ago". */
export function lagInWords(seconds: number): string {
  if (seconds < 60) return 'less than a minute ago'
  if (seconds < 3600) return `${plural(Math.floor(seconds / 60), 'minute')} ago`
  if (seconds < 86_400) return `${plural(Math.floor(seconds / 3600), 'hour')} ago`
  return `${plural(Math.floor(seconds / 86_400), 'day')} ago`
}

/** The counts of the last 24 hours, one line each: patients, appointments, bills, points. */
export function countsInWords(counts: NextechCounts): { label: string; value: string }[] {
  return [
    {
      label: 'Patients',
      value: `${counts.patients_linked.toLocaleString('en-US')} linked, ${counts.patients_created.toLocaleString('en-US')} created, ${counts.patients_updated.toLocaleString('en-US')} updated, ${counts.patients_to_review.toLocaleString('en-US')} to review`,
    },
    { label: 'Appointments', value: plural(counts.appointments, 'appointment') },
    { label: 'Bills', value: plural(counts.bills, 'bill') },
    {
      label: 'Points',
      value: `${pointsText(counts.points_awarded)} awarded, ${pointsText(counts.points_reversed)} reversed`,
    },
  ]
}

/** What one run changed, in one sentence of what was not zero. */
export function runInWords(counts: NextechCounts): string {
  const parts = [
    counts.patients_linked && `${plural(counts.patients_linked, 'patient')} linked`,
    counts.patients_created && `${plural(counts.patients_created, 'patient')} created`,
    counts.patients_updated && `${plural(counts.patients_updated, 'patient')} updated`,
    counts.patients_to_review && `${plural(counts.patients_to_review, 'patient')} to review`,
    counts.appointments && plural(counts.appointments, 'appointment'),
    counts.bills && plural(counts.bills, 'bill'),
    counts.points_awarded && `${pointsText(counts.points_awarded)} awarded`,
    counts.points_reversed && `${pointsText(counts.points_reversed)} reversed`,
  ].filter((part): part is string => typeof part === 'string')
  return parts.length === 0 ? 'Nothing new in Nextech.' : `${parts.join(', ')}.`
}

const isQuiet = (counts: NextechCounts) => Object.values(counts).every((n) => n === 0)

/** Where "Sync now" stands: nothing asked, asked, a run followed, a run ended, or a refusal. */
type SyncState =
  | { phase: 'idle' }
  | { phase: 'starting' }
  | { phase: 'running'; runId: number }
  | { phase: 'ended'; run: NextechRun; announce: boolean }
  | { phase: 'refused'; message: string }

/**
 * The sync's health in Settings → Integrations: the last successful sync and its lag, the counts
 * of the last 24 hours, each in words; for an Admin of a connected practice, "Sync now", which
 * follows the run ("Syncing…") to its counts or its failure, then reads the status again. A run
 * already going when the page opens is followed too, quietly unless it fails.
 */
export function NextechSyncHealth({
  status,
  canManage,
  calls,
  onRunEnded,
}: {
  status: NextechStatus
  /** An Admin: may start a sync and follow it. */
  canManage: boolean
  calls: NextechSyncCalls
  /** A followed run ended: the lists under it read again. */
  onRunEnded: () => void
}) {
  const router = useRouter()
  const action = useAction()
  const [sync, setSync] = useState<SyncState>({ phase: 'idle' })
  const alive = useRef(true)
  // Runs this view follows or followed, and those whose end "Sync now" asked to be told.
  const followed = useRef(new Set<number>())
  const announced = useRef(new Set<number>())
  const following = useRef<number | null>(null)

  useEffect(() => {
    alive.current = true
    return () => {
      alive.current = false
    }
  }, [])

  const follow = useCallback(
    async (runId: number) => {
      followed.current.add(runId)
      following.current = runId
      setSync({ phase: 'running', runId })
      const watch = async (): Promise<SyncState | null> => {
        for (;;) {
          let run: NextechRun
          try {
            run = await calls.getRun(runId)
          } catch (caught) {
            return { phase: 'refused', message: await apiErrorMessage(caught) }
          }
          if (run.status !== 'running') {
            return { phase: 'ended', run, announce: announced.current.has(runId) }
          }
          await calls.wait(NEXTECH_RUN_POLL_MS)
          if (!alive.current) return null
        }
      }
      const ended = await watch()
      following.current = null
      if (!ended || !alive.current) return
      setSync(ended)
      onRunEnded()
      await router.invalidate()
    },
    [calls, router, onRunEnded],
  )

  const running = status.sync.running_run_id
  useEffect(() => {
    if (!canManage || running === null || followed.current.has(running)) return
    void follow(running)
  }, [canManage, running, follow])

  const syncNow = async () => {
    setSync({ phase: 'starting' })
    let runId: number | undefined
    const refused = await action.run(
      async () => {
        runId = await calls.startSync()
      },
      { invalidate: false },
    )
    if (!alive.current) return
    if (refused !== undefined || runId === undefined) {
      setSync({ phase: 'refused', message: refused ?? 'The sync did not start.' })
      return
    }
    announced.current.add(runId)
    // The server named the run this view already follows: its end will be told.
    if (following.current === runId) {
      setSync({ phase: 'running', runId })
      return
    }
    await follow(runId)
  }

  const busy = sync.phase === 'starting' || sync.phase === 'running'
  const { last_sync_at, lag_seconds, counts } = status.sync

  return (
    <NextechPart id="nextech-sync" title="Sync">
      <Text size="sm">
        {last_sync_at === null
          ? 'No successful sync yet.'
          : lag_seconds === null
            ? `Last successful sync on ${formatDateTime(last_sync_at)}.`
            : `Last successful sync ${lagInWords(lag_seconds)} (${formatDateTime(last_sync_at)}).`}
      </Text>
      <Stack gap="xs">
        <Text size="sm" fw={600}>
          In the last 24 hours
        </Text>
        {isQuiet(counts) ? (
          <Text size="sm" c="dimmed">
            Nothing came from Nextech in the last 24 hours.
          </Text>
        ) : (
          <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="sm" verticalSpacing="xs">
            {countsInWords(counts).map((line) => (
              <LabelledValue key={line.label} label={line.label} value={line.value} />
            ))}
          </SimpleGrid>
        )}
      </Stack>
      <Group gap="sm" align="center" wrap="wrap">
        {canManage && status.connected && (
          <Button variant="default" onClick={() => void syncNow()} loading={busy}>
            Sync now
          </Button>
        )}
        <Box aria-live="polite">
          {busy ? (
            <Group gap="xs" wrap="nowrap">
              <Loader size="xs" aria-hidden />
              <Text size="sm">Syncing…</Text>
            </Group>
          ) : (
            !canManage && running !== null && <Text size="sm">A sync is running now.</Text>
          )}
        </Box>
      </Group>
      {sync.phase === 'ended' && sync.run.status === 'done' && sync.announce && (
        <Alert color="green" role="status" title="Sync finished">
          {runInWords(sync.run.counts)}
        </Alert>
      )}
      {sync.phase === 'ended' && sync.run.status === 'failed' && (
        <Alert color="red" role="alert" title="Sync failed">
          {sync.run.error ?? 'The sync stopped without saying why.'}
        </Alert>
      )}
      {sync.phase === 'refused' && (
        <Alert color="red" role="alert">
          {sync.message}
        </Alert>
      )}
    </NextechPart>
  )
}

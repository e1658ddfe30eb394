import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { NextechStatus, NextechTestAnswer } from '#domain/nextech.ts'
import { NEXTECH_SANDBOX_LOGIN, NEXTECH_SETUP_MESSAGES } from '#domain/nextech.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { SectionCard } from '#src/ui/section-card.tsx'

/** Props of {@link NextechConnectionSection}. */
export type NextechConnectionSectionProps = {
  status: NextechStatus
  /** Runs "Test connection": the outcome in words, or the sentence of a refused call. */
  onTest?: (() => Promise<NextechTestAnswer | string>) | undefined
  /** Why this person may not test (not an Admin); the button then does not show. */
  readOnlyNote?: string | undefined
}

const BADGES = {
  connected: { color: 'green', label: 'Connected' },
  failing: { color: 'red', label: 'Not connected' },
  untested: { color: 'gray', label: 'Not tested yet' },
} as const

/**
 * Settings → Integrations: the Nextech connection of a practice that chose Nextech (its status,
 * since when it works, the last failure in words) and "Test connection", which signs the API user
 * in at Microsoft and reads a patient, as the sync will.
 */
export function NextechConnectionSection({
  status,
  onTest,
  readOnlyNote,
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
      {status.chosen && readOnlyNote && (
        <Text size="sm" c="dimmed">
          {readOnlyNote}
        </Text>
      )}
    </SectionCard>
  )
}

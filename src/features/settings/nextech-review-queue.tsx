import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { NextechReviewAction, NextechReviewItem } from '#domain/nextech.ts'
import { formatPhone } from '#domain/phone.ts'
import { pointsText } from '#domain/points.ts'
import { formatCents } from '#src/lib/format.ts'
import { useAction } from '#src/lib/use-action.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { LoadFailure, type NextechList, NextechPart } from './nextech-shared.tsx'
import type { NextechSyncCalls } from './nextech-sync.actors.ts'

const KINDS = {
  patient: 'Patient to match',
  reversal: 'Points already spent',
  ceiling: 'Points above the limit',
} as const

const fullName = (person: { first_name: string; last_name: string }) =>
  `${person.first_name} ${person.last_name}`

/** "ada@example.com · (555) 010-1002", or a sentence when Nextech has neither. */
function contact(person: { email: string | null; phone: string | null }): string {
  const parts = [person.email, person.phone ? formatPhone(person.phone) : null].filter(Boolean)
  return parts.length === 0 ? 'No e-mail or phone' : parts.join(' · ')
}

/** Who or what an item is about, to name its card. */
function subject(item: NextechReviewItem): string {
  if (item.nextech_patient) return fullName(item.nextech_patient)
  if (item.bill) return `bill ${item.bill.claim_id}`
  return `item ${item.id}`
}

/**
 * The review queue (Admin): what the sync would not guess, each with its sentence, the Nextech
 * patient and the bill, and the ways to resolve it. After an action the list is what the server
 * answered; a refusal shows under the item's buttons.
 */
export function NextechReviewQueue({
  list,
  calls,
}: {
  list: NextechList<NextechReviewItem[]>
  calls: NextechSyncCalls
}) {
  const items = list.value
  return (
    <NextechPart id="nextech-review" title="Review queue">
      {list.error && <LoadFailure message={list.error} onRetry={list.retry} />}
      {items === null ? (
        !list.error && (
          <Text size="sm" c="dimmed">
            Loading the review queue…
          </Text>
        )
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing to review.
        </Text>
      ) : (
        <Stack gap="sm">
          {items.map((item) => (
            <ReviewCard key={item.id} item={item} calls={calls} onItems={list.setValue} />
          ))}
        </Stack>
      )}
    </NextechPart>
  )
}

function ReviewCard({
  item,
  calls,
  onItems,
}: {
  item: NextechReviewItem
  calls: NextechSyncCalls
  onItems: (items: NextechReviewItem[]) => void
}) {
  const action = useAction()
  // The button whose action is under way: it spins, the others wait.
  const [doing, setDoing] = useState<string | null>(null)

  const resolve = async (key: string, body: NextechReviewAction) => {
    setDoing(key)
    let remaining: NextechReviewItem[] | undefined
    await action.run(async () => {
      remaining = await calls.resolveReview(item.id, body)
    })
    setDoing(null)
    if (remaining) onItems(remaining)
  }

  const button = (key: string, label: string, body: NextechReviewAction, primary = false) => (
    <Button
      key={key}
      size="xs"
      variant={primary ? 'filled' : 'default'}
      loading={doing === key}
      disabled={doing !== null && doing !== key}
      onClick={() => void resolve(key, body)}
    >
      {label}
    </Button>
  )

  return (
    <Paper withBorder radius="md" p="sm" component="article" aria-label={`Review ${subject(item)}`}>
      <Stack gap="xs">
        <Group gap="xs" justify="space-between" wrap="wrap">
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {item.nextech_patient ? fullName(item.nextech_patient) : subject(item)}
          </Text>
          <Badge
            variant="light"
            // Mantine's light yellow and orange are too pale to read (WCAG AA).
            color={item.kind === 'patient' ? 'glow' : 'gray'}
          >
            {KINDS[item.kind]}
          </Badge>
        </Group>
        <Text size="sm">{item.message}</Text>
        {item.nextech_patient && (
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            In Nextech: {contact(item.nextech_patient)}
          </Text>
        )}
        {item.bill && (
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            Bill {item.bill.claim_id}: {item.bill.text}, {formatCents(item.bill.net_cents)},{' '}
            {pointsText(item.bill.points)}
          </Text>
        )}
        {item.kind !== 'patient' && item.candidates.length > 0 && (
          <Text size="sm" c="dimmed">
            Patient: {item.candidates.map(fullName).join(', ')}
          </Text>
        )}
        {item.kind === 'patient' && item.candidates.length > 0 && (
          <Stack gap={6}>
            {item.candidates.map((candidate) => (
              <Group key={candidate.id} gap="xs" wrap="wrap">
                {button(`link-${candidate.id}`, `Link to ${fullName(candidate)}`, {
                  action: 'link',
                  patient_id: candidate.id,
                })}
                <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {contact(candidate)}
                </Text>
              </Group>
            ))}
          </Stack>
        )}
        <Group gap="xs" wrap="wrap">
          {item.kind === 'patient' && button('create', 'Create new patient', { action: 'create' })}
          {item.kind === 'patient' && button('ignore', 'Ignore', { action: 'ignore' })}
          {item.kind === 'reversal' && button('ignore', 'Dismiss', { action: 'ignore' })}
          {item.kind === 'ceiling' &&
            button(
              'award',
              item.bill ? `Award ${pointsText(item.bill.points)}` : 'Award the points',
              { action: 'award' },
              true,
            )}
          {item.kind === 'ceiling' && button('ignore', 'Ignore', { action: 'ignore' })}
        </Group>
        <FailureAlert>{action.error}</FailureAlert>
      </Stack>
    </Paper>
  )
}

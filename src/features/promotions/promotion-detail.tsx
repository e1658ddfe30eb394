import { Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { PROMOTION_STATUS_LABELS, type PromotionDetail } from '#domain/promotions.ts'
import {
  offerDates,
  offerTerms,
  offerValue,
  STATUS_COLORS,
} from '#src/features/promotions/promotion-list.tsx'
import { formatCents } from '#src/lib/format.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'

/** An action of the offer's page. */
export type OfferAction = 'publish' | 'send' | 'end' | 'duplicate' | 'archive'

/** What each action asks first (ending and archiving cannot be undone). */
const CONFIRM: Record<OfferAction, { title: string; body: string; label: string; color?: string }> =
  {
    publish: {
      title: 'Publish this offer?',
      body: 'Patients can claim it from its start (at once when it has none).',
      label: 'Publish',
    },
    send: {
      title: 'Send this offer to patients?',
      body: 'Every patient with an e-mail who is subscribed and not archived, and was not sent it yet, gets an e-mail with a personal link to claim it.',
      label: 'Send to patients',
    },
    end: {
      title: 'End this offer now?',
      body: 'No one can claim it any more, and claims not yet redeemed expire. This cannot be undone.',
      label: 'End offer',
      color: 'red',
    },
    duplicate: {
      title: 'Duplicate this offer?',
      body: 'A new draft with the same terms; its dates are kept only where they are still ahead.',
      label: 'Duplicate',
    },
    archive: {
      title: 'Archive this offer?',
      body: 'It leaves the lists but its claims and its numbers stay.',
      label: 'Archive',
      color: 'red',
    },
  }

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz="xl" fw={700}>
        {value}
      </Text>
    </Card>
  )
}

/**
 * An offer's page: its status, terms and limits, its funnel (sent, claimed, redeemed, expired,
 * the redemption rate and the revenue of the visits where it was redeemed) and, for a manager,
 * the actions its status allows, each asked first.
 */
export function PromotionDetailView({
  offer,
  canManage,
  procedureNames,
  onEdit,
  onAction,
}: {
  offer: PromotionDetail
  canManage: boolean
  /** The catalogue's procedure names, for the offer's value. */
  procedureNames?: ReadonlyMap<number, string>
  onEdit: () => void
  onAction: (action: OfferAction) => Promise<string | undefined>
}) {
  const [asking, setAsking] = useState<OfferAction>()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const { funnel } = offer
  const actions: OfferAction[] = [
    ...(offer.status === 'draft' ? (['publish'] as const) : []),
    ...(offer.status === 'live' ? (['send'] as const) : []),
    ...(offer.status === 'live' || offer.status === 'scheduled' ? (['end'] as const) : []),
    'duplicate',
    ...(offer.status === 'draft' || offer.status === 'ended' ? (['archive'] as const) : []),
  ]
  const editable =
    offer.status === 'draft' || offer.status === 'scheduled' || offer.status === 'live'
  const asked = asking ? CONFIRM[asking] : undefined
  const count = (n: number) => n.toLocaleString('en-US')

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4} miw={0}>
          <Group gap="xs">
            <Badge color={STATUS_COLORS[offer.status]} variant="light" size="lg">
              {PROMOTION_STATUS_LABELS[offer.status]}
            </Badge>
            {offer.code && (
              <Badge color="gray" variant="outline" size="lg">
                Code {offer.code}
              </Badge>
            )}
          </Group>
          <Text>{offerDates(offer)}</Text>
          {offerValue(offer, procedureNames) && (
            <Text fw={500} data-testid="offer-value">
              {offerValue(offer, procedureNames)}
            </Text>
          )}
          <Text c="dimmed">
            {offerTerms(offer)} ·{' '}
            {offer.max_redemptions === null
              ? 'no total limit'
              : `at most ${count(offer.max_redemptions)} in all`}{' '}
            ·{' '}
            {offer.per_patient_limit === 1
              ? 'once per patient'
              : `${count(offer.per_patient_limit)} times per patient`}
          </Text>
        </Stack>
        {canManage && (
          <Group gap="xs">
            {editable && (
              <Button variant="default" onClick={onEdit}>
                Edit
              </Button>
            )}
            {actions.map((action) => (
              <Button
                key={action}
                variant={action === 'publish' || action === 'send' ? 'filled' : 'default'}
                color={CONFIRM[action].color}
                onClick={() => {
                  setFailure(undefined)
                  setAsking(action)
                }}
              >
                {CONFIRM[action].label}
              </Button>
            ))}
          </Group>
        )}
      </Group>
      {offer.description && <Text style={{ whiteSpace: 'pre-wrap' }}>{offer.description}</Text>}
      <Stack gap="sm" component="section" aria-labelledby="offer-funnel-title">
        <Title order={2} size="h4" id="offer-funnel-title">
          Funnel
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
          <Figure label="Sent" value={count(funnel.sent)} />
          <Figure label="Claimed" value={count(funnel.claimed)} />
          <Figure label="Redeemed" value={count(funnel.redeemed)} />
          <Figure label="Expired" value={count(funnel.expired)} />
          <Figure label="Redemption rate" value={`${Math.round(funnel.redemption_rate * 100)}%`} />
          {funnel.revenue_cents !== undefined && (
            <Figure label="Revenue" value={formatCents(funnel.revenue_cents)} />
          )}
        </SimpleGrid>
        <Text size="sm" c="dimmed">
          {funnel.revenue_cents !== undefined
            ? 'The rate is redeemed over claimed; the revenue is the total of the visits where the offer was redeemed.'
            : 'The rate is redeemed over claimed.'}
        </Text>
      </Stack>
      <AppModal
        opened={asked !== undefined}
        onClose={() => setAsking(undefined)}
        title={asked?.title}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack gap="md">
          <Text>{asked?.body}</Text>
          <DialogActions
            failure={failure}
            busy={busy}
            actionLabel={asked?.label ?? ''}
            color={asked?.color}
            onCancel={() => setAsking(undefined)}
            onAction={async () => {
              if (!asking) return
              setBusy(true)
              const refusal = await onAction(asking)
              setBusy(false)
              if (refusal) setFailure(refusal)
              else setAsking(undefined)
            }}
          />
        </Stack>
      </AppModal>
    </Stack>
  )
}

import { Badge, Button, Group, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { WalletCalls } from './api.ts'
import { Outcome } from './outcome.tsx'
import { Section } from './section.tsx'
import { type SectionProps, useWalletAction } from './wallet-action.ts'

/** The offers the patient can claim, claimed ones marked, and why others cannot be yet. */
export function OffersSection({
  wallet,
  calls,
  ...props
}: SectionProps & { calls: Pick<WalletCalls, 'claim'> }) {
  const action = useWalletAction(props)
  const [claiming, setClaiming] = useState<number | null>(null)
  return (
    <Section title="Offers">
      {wallet.offers.length === 0 ? (
        <Text>No offers right now. New ones will appear here.</Text>
      ) : (
        <ul className="wallet-list">
          {wallet.offers.map((offer) => (
            <li key={offer.promotion_id}>
              <Stack gap={4} py="sm">
                <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
                  <Text fw={600} component="h3" size="md">
                    {offer.title}
                  </Text>
                  {offer.claimed && (
                    <Badge color="green" variant="light">
                      Claimed
                    </Badge>
                  )}
                </Group>
                <Text size="sm">{offer.detail}</Text>
                {offer.description && (
                  <Text size="sm" c="dimmed">
                    {offer.description}
                  </Text>
                )}
                {offer.claimed ? (
                  <Text size="sm">Show your wallet at your next visit.</Text>
                ) : offer.can_claim ? (
                  <Group>
                    <Button
                      size="sm"
                      loading={action.busy && claiming === offer.promotion_id}
                      disabled={action.busy && claiming !== offer.promotion_id}
                      aria-label={`Claim ${offer.title}`}
                      onClick={() => {
                        setClaiming(offer.promotion_id)
                        void action.run(() => calls.claim(offer.promotion_id))
                      }}
                    >
                      Claim
                    </Button>
                  </Group>
                ) : (
                  offer.reason && <Text size="sm">{offer.reason}</Text>
                )}
              </Stack>
            </li>
          ))}
        </ul>
      )}
      <Outcome message={action.message} error={action.error} />
    </Section>
  )
}

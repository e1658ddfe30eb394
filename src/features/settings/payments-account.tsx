import { Alert, Button, SimpleGrid, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import { MEMBERSHIP_MESSAGES, type PaymentAccount } from '#domain/memberships.ts'
import { formatDate } from '#src/lib/format.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { SectionCard } from '#src/ui/section-card.tsx'

const PROVIDERS = { stripe: 'Stripe', test: 'Test gateway' } as const

/**
 * Settings → Payments: whether the practice's own payment account (Stripe Connect), which its
 * patients' memberships are paid to, is connected: the provider, the account and since when. An
 * Admin connects it; everyone else reads, with the sentence that says who can.
 */
export function PaymentsAccountSection({
  account,
  readOnlyNote,
  onConnect,
}: {
  /** The account; a sentence when it could not be read. */
  account: PaymentAccount | string
  /** Why this person cannot connect it; undefined for an Admin. */
  readOnlyNote?: string | undefined
  /** Connects the account; resolves to the refusal's sentence, if any. */
  onConnect: () => Promise<string | undefined>
}) {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  return (
    <SectionCard id="payments" title="Payments" align="flex-start">
      {typeof account === 'string' ? (
        <FailureAlert>{account}</FailureAlert>
      ) : account.connected ? (
        <Stack gap="sm" w="100%">
          <Text>Connected: membership payments go to the practice’s own account.</Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" w="100%">
            <LabelledValue
              label="Provider"
              value={account.provider ? PROVIDERS[account.provider] : '—'}
            />
            <LabelledValue label="Account" value={account.account_id ?? '—'} />
            <LabelledValue
              label="Connected since"
              value={account.connected_at ? formatDate(account.connected_at) : '—'}
            />
          </SimpleGrid>
        </Stack>
      ) : (
        <Stack gap="sm" align="flex-start">
          <Alert color="orange" variant="light">
            {MEMBERSHIP_MESSAGES.notConnected}
          </Alert>
          {readOnlyNote ? (
            <Text size="sm" c="dimmed">
              {readOnlyNote}
            </Text>
          ) : (
            <>
              <Text size="sm">
                Patients pay their memberships to the practice, not to Glow Rewards: connect the
                practice’s own Stripe account to take their cards.
              </Text>
              <FailureAlert>{failure}</FailureAlert>
              <Button
                loading={busy}
                onClick={async () => {
                  setBusy(true)
                  setFailure(undefined)
                  setFailure(await onConnect())
                  setBusy(false)
                }}
              >
                Connect Stripe account
              </Button>
            </>
          )}
        </Stack>
      )}
    </SectionCard>
  )
}

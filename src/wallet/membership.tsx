import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Stack,
  Text,
} from '@mantine/core'
import { useForm } from '@mantine/form'
import { lazy, Suspense, useState } from 'react'
import { WALLET_MESSAGES, type WalletMembership } from '#domain/wallet.ts'
import type { WalletCalls } from './api.ts'
import { longDate, money } from './format.ts'
import { Outcome } from './outcome.tsx'
import { Section } from './section.tsx'
import { type SectionProps, useWalletAction } from './wallet-action.ts'

// The card form (and the test gateway's or Stripe's fields) loads only when it is opened.
const CardForm = lazy(() => import('./card-form.tsx'))

const STATUS: Record<WalletMembership['status'], { label: string; color: string }> = {
  active: { label: 'Active', color: 'green' },
  past_due: { label: 'Past due', color: 'red' },
  unpaid: { label: 'Unpaid', color: 'red' },
  paused: { label: 'Paused', color: 'orange' },
  cancelled: { label: 'Cancelled', color: 'gray' },
  ended: { label: 'Ended', color: 'gray' },
}

const PER: Record<WalletMembership['interval'], string> = {
  month: 'a month',
  quarter: 'a quarter',
  year: 'a year',
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="sm" c="dimmed" component="dt">
        {label}
      </Text>
      <Text component="dd" m={0}>
        {children}
      </Text>
    </div>
  )
}

/**
 * The patient's membership: plan, status, next bill, perks left, member price, bank and card; a
 * past-due one leads with what is owed and "Update card"; pause and cancel as the plan allows,
 * cancelling after a confirmation that says when it ends.
 */
export function MembershipSection({
  wallet,
  calls,
  ...props
}: SectionProps & { calls: Pick<WalletCalls, 'updateCard' | 'pause' | 'cancel'> }) {
  const membership = wallet.membership
  if (!membership) {
    return (
      <Section title="Membership">
        <Text>{WALLET_MESSAGES.noMembership}</Text>
      </Section>
    )
  }
  return <MembershipDetails membership={membership} wallet={wallet} calls={calls} {...props} />
}

function MembershipDetails({
  membership,
  wallet,
  calls,
  ...props
}: SectionProps & {
  membership: WalletMembership
  calls: Pick<WalletCalls, 'updateCard' | 'pause' | 'cancel'>
}) {
  const action = useWalletAction(props)
  const [cardOpen, setCardOpen] = useState(false)
  const [confirmCancel, setConfirmCancel] = useState(false)
  const [cardSaved, setCardSaved] = useState<string | null>(null)
  const pauseForm = useForm({ mode: 'controlled', initialValues: { cycles: '1' } })
  const status = STATUS[membership.status]
  const owing =
    (membership.status === 'past_due' || membership.status === 'unpaid') &&
    membership.amount_due_cents > 0
  const card = membership.card
  const cycles = Array.from({ length: Math.max(1, membership.pause_max_cycles) }, (_, i) =>
    String(i + 1),
  )
  const intervalWord = membership.interval === 'month' ? 'month' : membership.interval

  return (
    <Section title="Membership">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <Text fw={600} size="lg" component="h3">
          {membership.plan_name}
        </Text>
        <Badge color={status.color} variant="light">
          {status.label}
        </Badge>
      </Group>
      <Text>{membership.status_text}</Text>
      {owing && (
        <Alert color="red" role="alert" title="Payment past due">
          {money(membership.amount_due_cents)} is due. Update your card to pay it and keep your
          perks.
        </Alert>
      )}
      <Stack component="dl" gap="xs" m={0}>
        <Fact label="Price">
          {money(membership.price_cents)} {PER[membership.interval]}
        </Fact>
        {membership.next_bill_at && (
          <Fact label={owing ? 'Next try' : 'Next bill'}>{longDate(membership.next_bill_at)}</Fact>
        )}
        {membership.cancel_at && <Fact label="Ends on">{longDate(membership.cancel_at)}</Fact>}
        {membership.resumes_at && (
          <Fact label="Billing starts again">{longDate(membership.resumes_at)}</Fact>
        )}
        {membership.perks_left.length > 0 && (
          <Fact label={`Perks left this ${intervalWord}`}>
            {membership.perks_left.map((perk) => `${perk.remaining} ${perk.name}`).join(', ')}
          </Fact>
        )}
        {membership.discount_text && <Fact label="Member price">{membership.discount_text}</Fact>}
        <Fact label="Bank">{money(membership.bank_cents)}</Fact>
        <Fact label="Card">
          {card
            ? `${card.brand} ending in ${card.last4}, expires ${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`
            : 'No card on file'}
        </Fact>
      </Stack>

      {membership.can_update_card &&
        (cardOpen ? (
          <Paper withBorder p="md" radius="md">
            <Suspense fallback={<Loader size="sm" aria-label="Loading the card form" />}>
              <CardForm
                owing={owing ? membership.amount_due_cents : 0}
                updateCard={calls.updateCard}
                onDone={(answer) => {
                  props.onWallet(answer.wallet)
                  setCardSaved(answer.message)
                  setCardOpen(false)
                }}
                onSignedOut={props.onSignedOut}
                onCancel={() => setCardOpen(false)}
              />
            </Suspense>
          </Paper>
        ) : (
          <Button
            variant={owing ? 'filled' : 'default'}
            onClick={() => {
              setCardSaved(null)
              setCardOpen(true)
            }}
          >
            Update card
          </Button>
        ))}

      {membership.can_pause && (
        <form
          noValidate
          aria-label="Pause membership"
          onSubmit={pauseForm.onSubmit((values) => {
            void action.run(() => calls.pause(Number(values.cycles)))
          })}
        >
          <Group align="flex-end" gap="sm">
            <NativeSelect
              label={`Pause for (${intervalWord}s)`}
              data={cycles}
              {...pauseForm.getInputProps('cycles')}
            />
            <Button type="submit" variant="default" loading={action.busy}>
              Pause membership
            </Button>
          </Group>
        </form>
      )}

      {membership.can_cancel &&
        (confirmCancel ? (
          <Paper withBorder p="md" radius="md" bg="yellow.0">
            <Stack gap="sm">
              <Text fw={600} component="h3">
                Cancel your membership?
              </Text>
              <Text size="sm">
                {membership.cancel_effective_at
                  ? `If you cancel now, your membership ends on ${longDate(membership.cancel_effective_at)}. You keep its perks until then.`
                  : 'Your membership ends at the end of its term.'}
              </Text>
              <Text size="sm">{membership.cancel_rules_text}</Text>
              <Group gap="sm">
                <Button
                  color="red"
                  loading={action.busy}
                  onClick={async () => {
                    if (await action.run(() => calls.cancel())) setConfirmCancel(false)
                  }}
                >
                  Yes, cancel my membership
                </Button>
                <Button variant="default" onClick={() => setConfirmCancel(false)}>
                  Keep my membership
                </Button>
              </Group>
            </Stack>
          </Paper>
        ) : (
          <Stack gap={4}>
            <Text size="sm" c="dimmed">
              {membership.cancel_rules_text}
            </Text>
            <Group>
              <Button variant="subtle" color="red" onClick={() => setConfirmCancel(true)}>
                Cancel membership
              </Button>
            </Group>
          </Stack>
        ))}
      <Outcome message={cardSaved ?? action.message} error={action.error} />
    </Section>
  )
}

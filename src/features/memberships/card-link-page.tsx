import { Alert, Button, SimpleGrid, Stack, Text } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useRef, useState } from 'react'
import { MEMBERSHIP_MESSAGES, money, STATUS_LABELS } from '#domain/memberships.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import {
  CardEntry,
  type CardEntryValues,
  cardErrors,
  cardInput,
  EMPTY_CARD,
} from './card-entry.tsx'
import { cardText } from './membership-texts.ts'
import type { CardLink, MembershipCalls, StripeCardFields } from './memberships.actors.ts'

/**
 * The page a patient opens from the e-mail or text sent after a declined renewal, without
 * signing in: the practice, the plan, what is due and the card on file, then a new card that is
 * put on file and charged at once. A link that is unknown or used up says so.
 */
export function CardLinkPage({
  token,
  link,
  calls,
}: {
  token: string
  /** What the link shows; null when it is no longer valid. */
  link: CardLink | null
  calls: Pick<MembershipCalls, 'mode' | 'payByLink'>
}) {
  const fields = useRef<StripeCardFields | null>(null)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const [done, setDone] = useState<{ message: string; charged: boolean } | null>(null)
  const form = useForm<CardEntryValues>({
    mode: 'controlled',
    initialValues: EMPTY_CARD,
    validate: (values) => cardErrors(calls.mode, values),
    validateInputOnBlur: true,
  })

  if (!link) {
    return (
      <PublicPage title="Update your card">
        <Alert color="yellow" role="alert">
          {MEMBERSHIP_MESSAGES.linkInvalid}
        </Alert>
      </PublicPage>
    )
  }

  const due = link.amount_due_cents > 0
  return (
    <PublicPage title={link.practice_name} width={520}>
      <Stack gap="md">
        <Text size="lg" fw={600}>
          Hi {link.first_name}
        </Text>
        <Text>
          {due
            ? `The last payment of your ${link.plan_name} membership did not go through. Enter a card to pay it and keep your membership.`
            : `Enter a new card for your ${link.plan_name} membership.`}
        </Text>
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <LabelledValue label="Plan" value={link.plan_name} />
          <LabelledValue label="Status" value={STATUS_LABELS[link.status]} />
          <LabelledValue label="Amount due" value={money(link.amount_due_cents)} />
          <LabelledValue label="Card on file" value={cardText(link.card)} />
        </SimpleGrid>
        {done ? (
          <Alert color="green" role="status" title={done.charged ? 'Paid' : 'Card saved'}>
            {done.message}
          </Alert>
        ) : (
          <form
            noValidate
            aria-label="New card"
            onSubmit={form.onSubmit(async (values) => {
              setBusy(true)
              setFailure(null)
              const answer = await calls.payByLink(token, cardInput(values), fields.current)
              setBusy(false)
              if (answer.ok) setDone(answer.value)
              else setFailure(answer.message)
            })}
          >
            <Stack gap="md">
              <CardEntry
                mode={calls.mode}
                values={form.values}
                inputProps={(field) => form.getInputProps(field)}
                onChange={(field, value) => form.setFieldValue(field, value)}
                fields={fields}
              />
              <FailureAlert>{failure}</FailureAlert>
              <Button type="submit" loading={busy} fullWidth>
                {due ? 'Update card and pay' : 'Update card'}
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    </PublicPage>
  )
}

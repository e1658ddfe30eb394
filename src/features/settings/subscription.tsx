import {
  Alert,
  Button,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef, useState } from 'react'
import * as v from 'valibot'
import { CardholderNameSchema, createCardSchema } from '#domain/sign-up/billing-information.ts'
import {
  cardExpiry,
  cardLabel,
  SUBSCRIPTION_MESSAGES,
  type SubscriptionAnswer,
  subscriptionDate,
} from '#domain/subscription.ts'
import { formatCents } from '#src/lib/format.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { type CardFieldValues, TestCardFields } from '#src/ui/card-fields.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import {
  loadStripeJs,
  type StripeCardFields,
  type SubscriptionCalls,
  stripeCardFields,
  subscriptionCalls,
} from './subscription.actors.ts'

// Stripe.js and its Elements load only in Stripe mode, and only when the card change opens.
const StripeCardElements = lazy(() => import('#src/ui/stripe-card-elements.tsx'))

const TERM_NAMES = { month: 'Monthly', year: 'Yearly' } as const
const PER_TERM = { month: 'a month', year: 'a year' } as const

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={500} component="div">
        {children}
      </Text>
    </Stack>
  )
}

/** "Renews on 12 Dec 2026 for $99.00", "Ends on 12 Dec 2026" or "Ended on 12 Dec 2026". */
function renewalText(subscription: SubscriptionAnswer): string {
  if (subscription.status === 'canceled' && subscription.cancels_at) {
    return `Ended on ${subscriptionDate(subscription.cancels_at)}`
  }
  if (subscription.cancels_at) return `Ends on ${subscriptionDate(subscription.cancels_at)}`
  if (subscription.renews_at) {
    const amount =
      subscription.next_amount === null ? '' : ` for ${formatCents(subscription.next_amount)}`
    return `Renews on ${subscriptionDate(subscription.renews_at)}${amount}`
  }
  return 'Not set up yet'
}

/** What the promo code does to the renewals, as the Terms put it: only as stated when issued. */
function couponText(subscription: SubscriptionAnswer): string | null {
  const coupon = subscription.coupon
  if (!coupon) return null
  const off =
    coupon.percent_off !== null
      ? `${coupon.percent_off}% off`
      : `${formatCents(coupon.amount_off ?? 0)} off`
  return coupon.duration === 'once'
    ? `Promo code ${coupon.id} (${off}) applied to the first term only.`
    : `Promo code ${coupon.id} (${off}) applies to every renewal.`
}

/**
 * The subscription in Settings (Admin): the plans and term chosen at sign-up, the card
 * on file, the next renewal and its amount after the coupon, or the date it ends. The Admin
 * changes the card (the sign-up's card fields and tokeniser), sets the subscription to end at the
 * end of the term after a confirmation that says the date, and keeps it again before that date.
 */
export function SubscriptionSection({ calls = subscriptionCalls }: { calls?: SubscriptionCalls }) {
  const [subscription, setSubscription] = useState<SubscriptionAnswer | null>(null)
  const [loadError, setLoadError] = useState<{ message: string; refused: boolean } | null>(null)
  const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null)
  const [dialog, setDialog] = useState<'card' | 'cancel' | null>(null)
  const [busy, setBusy] = useState(false)

  const load = useCallback(async () => {
    setLoadError(null)
    const answer = await calls.load()
    if (answer.ok) setSubscription(answer.value)
    else setLoadError({ message: answer.message, refused: answer.refused === true })
  }, [calls])
  useEffect(() => {
    void load()
  }, [load])

  const act = async (call: () => ReturnType<SubscriptionCalls['cancel']>, done: string) => {
    setBusy(true)
    setNotice(null)
    const answer = await call()
    setBusy(false)
    if (answer.ok) {
      setSubscription(answer.value)
      setNotice({ ok: true, message: done })
    } else {
      setNotice({ ok: false, message: answer.message })
    }
    return answer.ok
  }

  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="subscription">
      <Stack gap="md">
        <Title order={2} size="h4" id="subscription">
          Subscription
        </Title>
        {!subscription && !loadError && (
          <Group gap="sm" role="status">
            <Loader size="sm" />
            <Text>Loading the subscription…</Text>
          </Group>
        )}
        {loadError && (
          <Alert color="red" role="alert">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{loadError.message}</Text>
              {!loadError.refused && (
                <Button variant="light" size="xs" onClick={() => void load()}>
                  Try again
                </Button>
              )}
            </Stack>
          </Alert>
        )}
        {subscription && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
              <Row label="Plan">
                <Stack gap={0}>
                  {subscription.plans.map((plan) => (
                    <span key={plan.id}>
                      {plan.name}: {formatCents(plan.amount)} {PER_TERM[subscription.term]}
                    </span>
                  ))}
                </Stack>
              </Row>
              <Row label="Term">{TERM_NAMES[subscription.term]}</Row>
              <Row label="Card on file">
                {subscription.card
                  ? `${cardLabel(subscription.card)} (expires ${cardExpiry(subscription.card)})`
                  : 'No card on file'}
              </Row>
              <Row label={subscription.cancels_at ? 'End of subscription' : 'Next renewal'}>
                {renewalText(subscription)}
              </Row>
            </SimpleGrid>
            {couponText(subscription) && (
              <Text size="sm" c="dimmed">
                {couponText(subscription)}
              </Text>
            )}
            {subscription.status === 'none' && (
              <Alert color="blue">{SUBSCRIPTION_MESSAGES.none}</Alert>
            )}
            {subscription.status === 'past_due' && (
              <Alert color="yellow">
                The last payment did not go through. Change the card on file to pay the renewal.
              </Alert>
            )}
            {subscription.cancel_at_period_end && subscription.cancels_at && (
              <Alert color="yellow">
                The subscription will not renew. Everything keeps working until{' '}
                {subscriptionDate(subscription.cancels_at)}; keep the subscription before then to go
                on renewing.
              </Alert>
            )}
            {notice && (
              <Alert color={notice.ok ? 'green' : 'red'} role={notice.ok ? 'status' : 'alert'}>
                {notice.message}
              </Alert>
            )}
            {subscription.status !== 'none' && subscription.status !== 'canceled' && (
              <Group gap="sm">
                <Button variant="default" onClick={() => setDialog('card')}>
                  Change card
                </Button>
                {subscription.cancel_at_period_end ? (
                  <Button
                    loading={busy}
                    onClick={() =>
                      void act(
                        calls.resume,
                        'The subscription is kept: it renews at the end of the term.',
                      )
                    }
                  >
                    Keep subscription
                  </Button>
                ) : (
                  <Button color="red" variant="light" onClick={() => setDialog('cancel')}>
                    Cancel at end of term
                  </Button>
                )}
              </Group>
            )}
          </>
        )}
      </Stack>
      <AppModal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={dialog === 'cancel'}
        onClose={() => setDialog(null)}
        title="Cancel at end of term"
      >
        {subscription?.current_period_end && (
          <Stack gap="md">
            <Text>
              The subscription will end on{' '}
              <strong>{subscriptionDate(subscription.current_period_end)}</strong>, at the end of
              the term already paid. It will not renew and the card will not be charged again; fees
              already paid are not refunded.
            </Text>
            <Text>
              Until then everything keeps working, and you can keep the subscription at any time
              before that date. After it, the practice can export its data for 30 days.
            </Text>
            {notice && !notice.ok && (
              <Alert color="red" role="alert">
                {notice.message}
              </Alert>
            )}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={() => setDialog(null)}>
                Go back
              </Button>
              <Button
                color="red"
                loading={busy}
                onClick={async () => {
                  const ends = subscriptionDate(subscription.current_period_end ?? '')
                  const ok = await act(calls.cancel, `The subscription is set to end on ${ends}.`)
                  if (ok) setDialog(null)
                }}
              >
                Cancel at end of term
              </Button>
            </Group>
          </Stack>
        )}
      </AppModal>
      <AppModal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={dialog === 'card'}
        onClose={() => setDialog(null)}
        title="Change card"
      >
        {dialog === 'card' && (
          <ChangeCardForm
            calls={calls}
            onCancel={() => setDialog(null)}
            onChanged={(answer) => {
              setSubscription(answer)
              setDialog(null)
              setNotice({
                ok: true,
                message: answer.card
                  ? `The card on file is now ${cardLabel(answer.card)}.`
                  : 'The card on file was changed.',
              })
            }}
          />
        )}
      </AppModal>
    </Paper>
  )
}

type CardForm = CardFieldValues & { name: string }

/** The test gateway's fields are all checked here; with Stripe, its Elements check the card. */
const resolvers = {
  test: schemaResolver(createCardSchema()),
  stripe: schemaResolver(v.object({ name: CardholderNameSchema })),
}

/**
 * The new card: the sign-up's card fields (Stripe Elements in Stripe mode) and the cardholder's
 * name. A refused card shows the provider's message and keeps what was typed.
 */
function ChangeCardForm({
  calls,
  onCancel,
  onChanged,
}: {
  calls: SubscriptionCalls
  onCancel: () => void
  onChanged: (answer: SubscriptionAnswer) => void
}) {
  const stripe = calls.mode === 'stripe'
  const fields = useRef<StripeCardFields | null>(null)
  const [saving, setSaving] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<CardForm>({
    mode: 'controlled',
    initialValues: { number: '', exp_month: '', exp_year: '', cvv: '', name: '' },
    validate: (values) => (stripe ? resolvers.stripe(values) : resolvers.test(values)),
    validateInputOnBlur: true,
  })
  const inputProps = (path: keyof CardForm) => ({
    ...form.getInputProps(path),
    errorProps: { role: 'alert' },
  })
  return (
    <form
      noValidate
      aria-label="New card"
      onSubmit={form.onSubmit(async (values) => {
        setSaving(true)
        setFailure(null)
        const answer = await calls.changeCard(
          {
            number: values.number.replace(/\s/g, ''),
            exp_month: values.exp_month,
            exp_year: values.exp_year,
            cvc: values.cvv,
            name: values.name.trim(),
          },
          fields.current,
        )
        setSaving(false)
        if (answer.ok) onChanged(answer.value)
        else setFailure(answer.message)
      })}
    >
      <Stack gap="md">
        <Text size="sm">
          The renewals are charged to this card from now on. It is checked with your bank now.
        </Text>
        {stripe ? (
          <Suspense fallback={<Loader size="sm" />}>
            <StripeCardElements
              load={loadStripeJs}
              onReady={(card) => {
                fields.current = card && stripeCardFields(card.stripe, card.cardNumber)
              }}
            />
          </Suspense>
        ) : (
          <TestCardFields
            values={form.values}
            inputProps={(field) => inputProps(field)}
            onChange={(field, value) => form.setFieldValue(field, value)}
          />
        )}
        <TextInput
          label="Cardholder name"
          withAsterisk
          autoComplete="cc-name"
          {...inputProps('name')}
        />
        <FailureAlert>{failure}</FailureAlert>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Go back
          </Button>
          <Button type="submit" loading={saving}>
            Save card
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

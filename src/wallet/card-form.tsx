import '@mantine/core/styles/ScrollArea.css'
import '@mantine/core/styles/Popover.css'
import '@mantine/core/styles/ActionIcon.css'
import '@mantine/core/styles/Combobox.css'
import '@mantine/core/styles/PasswordInput.css'
import '@mantine/core/styles/SimpleGrid.css'
import { Button, Group, Loader, Stack, Text, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { lazy, Suspense, useRef, useState } from 'react'
import * as v from 'valibot'
import { CardholderNameSchema, createCardSchema } from '#domain/sign-up/billing-information.ts'
import type { WalletCardAnswer } from '#domain/wallet.ts'
import {
  loadStripeJs,
  paymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from '#src/api/stripe-fields.ts'
import { TestCardFields } from '#src/ui/card-fields.tsx'
import {
  testCardToken,
  type WalletCallError,
  type WalletCalls,
  type WalletCardFields,
  WalletSignedOutError,
} from './api.ts'
import { money } from './format.ts'
import { Outcome } from './outcome.tsx'

// Stripe.js and its Elements load only with a Stripe key, when this form opens.
const StripeCardElements = lazy(() => import('#src/ui/stripe-card-elements.tsx'))

const EMPTY: WalletCardFields = { number: '', exp_month: '', exp_year: '', cvv: '', name: '' }

const resolvers = {
  test: schemaResolver(createCardSchema()),
  stripe: schemaResolver(v.object({ name: CardholderNameSchema })),
}

/** A Stripe refusal while making the token, with Stripe's sentence. */
class CardTokenRefused extends Error {}

/**
 * The new card of the patient's membership: the test gateway's fields (Stripe Elements with a
 * Stripe key, so the card never touches our page) and the cardholder's name. The card becomes a
 * one-time token, then `PUT /api/wallet/me/card` puts it on file; a past-due membership is charged
 * once. A refusal keeps what was typed; the same card sent again reuses its token, so a retry
 * after a lost answer cannot charge twice.
 */
export default function CardForm({
  owing,
  updateCard,
  onDone,
  onSignedOut,
  onCancel,
}: {
  /** Cents due now (0 when nothing is owed). */
  owing: number
  updateCard: WalletCalls['updateCard']
  onDone: (answer: WalletCardAnswer) => void
  onSignedOut: () => void
  onCancel: () => void
}) {
  const mode = paymentsMode()
  const fields = useRef<StripeCardFields | null>(null)
  const lastToken = useRef<{ card: string; token: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const form = useForm<WalletCardFields>({
    mode: 'controlled',
    initialValues: EMPTY,
    validate: (values) =>
      Object.fromEntries(
        Object.entries(
          mode === 'stripe' ? resolvers.stripe(values) : resolvers.test(values),
        ).filter((entry) => Boolean(entry[1])),
      ),
    validateInputOnBlur: true,
  })

  async function tokenOf(values: WalletCardFields): Promise<string> {
    const key = JSON.stringify(values)
    if (mode === 'test' && lastToken.current?.card === key) return lastToken.current.token
    let token: string
    if (mode === 'stripe') {
      if (!fields.current)
        throw new CardTokenRefused(
          'The card fields are still loading. Please wait a moment and try again.',
        )
      const made = await fields.current.createToken({ name: values.name.trim() })
      if (made.error || !made.token) {
        throw new CardTokenRefused(
          made.error?.message ?? 'Your card could not be read. Please check it.',
        )
      }
      token = made.token.id
    } else {
      token = await testCardToken(values)
    }
    lastToken.current = { card: key, token }
    return token
  }

  return (
    <form
      noValidate
      aria-label="New card"
      onSubmit={form.onSubmit(async (values) => {
        setBusy(true)
        setError(null)
        try {
          const answer = await updateCard(await tokenOf(values))
          onDone(answer)
        } catch (failure) {
          if (failure instanceof WalletSignedOutError) onSignedOut()
          else setError((failure as WalletCallError | CardTokenRefused).message)
        } finally {
          setBusy(false)
        }
      })}
    >
      <Stack gap="sm">
        <Text fw={600} component="h3">
          New card
        </Text>
        {owing > 0 && <Text size="sm">Saving the card pays the {money(owing)} due, once.</Text>}
        {mode === 'stripe' ? (
          <Suspense fallback={<Loader size="sm" aria-label="Loading the card fields" />}>
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
            inputProps={(field) => ({
              ...form.getInputProps(field),
              errorProps: { role: 'alert' },
            })}
            onChange={(field, value) => form.setFieldValue(field, value)}
          />
        )}
        <TextInput
          label="Cardholder name"
          withAsterisk
          autoComplete="cc-name"
          {...form.getInputProps('name')}
          errorProps={{ role: 'alert' }}
        />
        <Outcome message={null} error={error} />
        <Group gap="sm">
          <Button type="submit" loading={busy}>
            {owing > 0 ? `Save card and pay ${money(owing)}` : 'Save card'}
          </Button>
          <Button variant="default" onClick={onCancel} disabled={busy}>
            Close
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

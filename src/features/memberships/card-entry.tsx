import { Loader, TextInput } from '@mantine/core'
import { schemaResolver } from '@mantine/form'
import { lazy, type RefObject, Suspense } from 'react'
import * as v from 'valibot'
import { CardholderNameSchema, createCardSchema } from '#domain/sign-up/billing-information.ts'
import { type CardFieldValues, TestCardFields } from '#src/ui/card-fields.tsx'
import {
  type CardInput,
  loadStripeJs,
  type PaymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from './memberships.actors.ts'

// Stripe.js and its Elements load only in Stripe mode, and only when a card form opens.
const StripeCardElements = lazy(() => import('#src/ui/stripe-card-elements.tsx'))

/** The card as its fields hold it, and the cardholder's name. */
export type CardEntryValues = CardFieldValues & { name: string }

/** Empty card fields. */
export const EMPTY_CARD: CardEntryValues = {
  number: '',
  exp_month: '',
  exp_year: '',
  cvv: '',
  name: '',
}

const resolvers = {
  test: schemaResolver(createCardSchema()),
  stripe: schemaResolver(v.object({ name: CardholderNameSchema })),
}

/**
 * The card's field errors: with the test gateway every field is checked here (the sign-up's
 * rules); with Stripe, its Elements check the card and only the name is checked here.
 */
export function cardErrors(mode: PaymentsMode, values: CardEntryValues): Record<string, string> {
  const errors = mode === 'stripe' ? resolvers.stripe(values) : resolvers.test(values)
  return Object.fromEntries(
    Object.entries(errors).filter((entry): entry is [string, string] => Boolean(entry[1])),
  )
}

/** The card in the shape the tokeniser takes. */
export function cardInput(values: CardEntryValues): CardInput {
  return {
    number: values.number.replace(/\s/g, ''),
    exp_month: values.exp_month,
    exp_year: values.exp_year,
    cvc: values.cvv,
    name: values.name.trim(),
  }
}

/**
 * The card fields of the sign-up and of Settings' card change (the test gateway's, or Stripe
 * Elements in Stripe mode) and the cardholder's name, bound to the form that holds them.
 */
export function CardEntry({
  mode,
  values,
  inputProps,
  onChange,
  fields,
}: {
  mode: PaymentsMode
  values: CardEntryValues
  /** The form's props of a field (error, blur, focus). */
  inputProps: (field: keyof CardEntryValues) => object
  onChange: (field: keyof CardEntryValues, value: string) => void
  /** Receives the mounted Stripe Elements (Stripe mode). */
  fields: RefObject<StripeCardFields | null>
}) {
  return (
    <>
      {mode === 'stripe' ? (
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
          values={values}
          inputProps={(field) => ({ ...inputProps(field), errorProps: { role: 'alert' } })}
          onChange={(field, value) => onChange(field, value)}
        />
      )}
      <TextInput
        label="Cardholder name"
        withAsterisk
        autoComplete="cc-name"
        {...inputProps('name')}
        errorProps={{ role: 'alert' }}
        value={values.name}
        onChange={(event) => onChange('name', event.currentTarget.value)}
      />
    </>
  )
}

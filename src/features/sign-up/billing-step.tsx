import {
  Alert,
  Anchor,
  Button,
  Center,
  Checkbox,
  Grid,
  Loader,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { lazy, type ReactNode, Suspense, useEffect, useRef, useState } from 'react'
import * as v from 'valibot'
import {
  BILLING_MESSAGES,
  type BillingInformation,
  BillingInformationSchema,
  billingAddressEntries,
  CardholderNameSchema,
  PromoCodeSchema,
} from '#domain/sign-up/billing-information.ts'
import type { BillingDraft, PaidCard } from '#domain/sign-up/progress.ts'
import {
  selectPaymentLocked,
  selectSignature,
  selectStateOptions,
} from '#machines/sign-up/sign-up.selectors.ts'
import { maskCardNumber } from '#src/lib/masks.ts'
import { TestCardFields } from '#src/ui/card-fields.tsx'
import { lockedProps } from '#src/ui/locked.tsx'
import type { StepProps } from './client-details-step.tsx'
import { type SignUpActorRef, StepForm, StepHeading } from './form-helpers.tsx'
import { PlanChoice } from './plan-choice.tsx'
import { PriceSummary } from './price-summary.tsx'
import {
  loadStripeJs,
  type PaymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from './sign-up.actors.ts'

// Stripe.js and its Elements load only in Stripe mode, and only when the billing step shows.
const StripeCardElements = lazy(() => import('#src/ui/stripe-card-elements.tsx'))

/** The billing form as the inputs hold it (selects hold text). */
type BillingForm = {
  card: { number: string; exp_month: string; exp_year: string; cvv: string; name: string }
  billing_address_1: string
  billing_address_2: string
  billing_city: string
  billing_state: string
  billing_zip: string
  promo_code: string
  terms: boolean
  business_agreement: boolean
}

const agreementEntries = {
  promo_code: PromoCodeSchema,
  terms: v.literal(true, BILLING_MESSAGES.terms),
  business_agreement: v.literal(true, BILLING_MESSAGES.businessAgreement),
}

/** Stripe mode: the number, expiry and CVC are Stripe's fields; the form checks the rest. */
const StripeBillingSchema = v.object({
  card: v.object({ name: CardholderNameSchema }),
  ...billingAddressEntries,
  ...agreementEntries,
})

/** After payment: the card is locked; the address and agreements are all that is left. */
const PaidBillingSchema = v.object({ ...billingAddressEntries, ...agreementEntries })

const resolvers = {
  full: schemaResolver(BillingInformationSchema, { sync: true }),
  stripe: schemaResolver(StripeBillingSchema, { sync: true }),
  paid: schemaResolver(PaidBillingSchema, { sync: true }),
}

const text = (value: string | number | undefined) => (value === undefined ? '' : String(value))

function initialValues(actorRef: SignUpActorRef): BillingForm {
  const draft = actorRef.getSnapshot().context.drafts.billing
  return {
    card: {
      number: maskCardNumber(draft.card?.number ?? ''),
      exp_month: text(draft.card?.exp_month),
      exp_year: text(draft.card?.exp_year),
      cvv: draft.card?.cvv ?? '',
      name: draft.card?.name ?? '',
    },
    billing_address_1: draft.billing_address_1 ?? '',
    billing_address_2: draft.billing_address_2 ?? '',
    billing_city: draft.billing_city ?? '',
    billing_state: draft.billing_state ?? '',
    billing_zip: draft.billing_zip ?? '',
    promo_code: draft.promo_code ?? '',
    terms: draft.terms ?? false,
    // Only a signed agreement is accepted.
    business_agreement:
      (draft.business_agreement ?? false) && actorRef.getSnapshot().context.signature !== null,
  }
}

/**
 * The card the machine gets when the card fields are not the form's own (Stripe mode, or already
 * paid): the payment reads the card from Stripe's fields, or is already made.
 */
function cardOutsideForm(values: BillingForm, paid: PaidCard | null): BillingInformation['card'] {
  return {
    number: '',
    cvv: '',
    exp_month: paid?.exp_month ?? Number(values.card.exp_month || 0),
    exp_year: paid?.exp_year ?? Number(values.card.exp_year || 0),
    name: paid?.name ?? values.card.name.trim(),
  }
}

/** The billing address fields as the practice's address (step 2) fills them. */
type PracticeAddress = Pick<
  BillingForm,
  'billing_address_1' | 'billing_address_2' | 'billing_city' | 'billing_state' | 'billing_zip'
>

/** The practice's address from step 2 as billing address values, or null before step 2. */
function selectPracticeAddress(snapshot: ReturnType<SignUpActorRef['getSnapshot']>) {
  const practice = snapshot.context.practiceDetails ?? snapshot.context.drafts.accountSetup
  if (!practice?.practice_address) return null
  const address: PracticeAddress = {
    billing_address_1: practice.practice_address ?? '',
    billing_address_2: practice.practice_address_2 ?? '',
    billing_city: practice.city ?? '',
    billing_state: practice.state ?? '',
    billing_zip: practice.practice_zip ?? '',
  }
  return address
}

function sameAddress(a: PracticeAddress | null, b: PracticeAddress | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** An error text screen readers announce (a checkbox has no error props of its own). */
function announced(error: ReactNode): ReactNode {
  return error ? <span role="alert">{error}</span> : undefined
}

/** Props of {@link BillingStep}. */
export type BillingStepProps = StepProps & {
  /** `test`: our own card fields; `stripe`: Stripe Elements. */
  paymentsMode: PaymentsMode
  /** Stripe mode: receives the mounted card fields (null when they unmount). */
  onStripeFieldsChange?: ((fields: StripeCardFields | null) => void) | undefined
  /** Hidden while a document (terms, agreement) is open; the form keeps what was typed. */
  hidden?: boolean
}

/**
 * Step 3, Billing Information: the plan, term, EHR add-on and promo code with a live price
 * summary; the card (our masked fields with the test gateway, Stripe Elements with Stripe) and
 * billing address; the Terms and Conditions and the Business Associates Agreement. After
 * payment the card, billing and plan choices are locked.
 */
export function BillingStep({
  actorRef,
  focusHeading,
  paymentsMode,
  onStripeFieldsChange,
  hidden = false,
}: BillingStepProps) {
  const loading = useSelector(actorRef, (s) => s.matches({ billing: 'loadingPlans' }))
  const failed = useSelector(actorRef, (s) => s.matches({ billing: 'plansFailed' }))
  const locked = useSelector(actorRef, selectPaymentLocked)
  const paidCard = useSelector(actorRef, (s) => s.context.paidCard)
  const regions = useSelector(actorRef, selectStateOptions)
  const signature = useSelector(actorRef, selectSignature)
  const [initial] = useState(() => initialValues(actorRef))
  const stripe = paymentsMode === 'stripe'
  const resolve = locked ? resolvers.paid : stripe ? resolvers.stripe : resolvers.full

  const form = useForm<BillingForm>({
    mode: 'controlled',
    initialValues: initial,
    validate: (values) => resolve(values),
    validateInputOnBlur: true,
    onValuesChange: (values) => {
      actorRef.send({ type: 'form.draft', step: 'billing', values: values as BillingDraft })
    },
  })

  // Signing the agreement accepts it. The form's setter changes identity on every render:
  // the effect reads the latest one and runs only when the signature changes.
  const signedAt = signature ? `${signature.signer_name}\n${signature.date}` : null
  const seenSignature = useRef(signedAt)
  const setField = useRef(form.setFieldValue)
  setField.current = form.setFieldValue
  useEffect(() => {
    if (signedAt === seenSignature.current) return
    seenSignature.current = signedAt
    setField.current('business_agreement', signedAt !== null)
  }, [signedAt])

  // "Billing address same as practice address": ticking copies the practice's
  // address from step 2, unticking empties the fields; it reads ticked while they are the same.
  const practiceAddress = useSelector(actorRef, selectPracticeAddress, sameAddress)
  const sameAsPractice =
    practiceAddress !== null &&
    Object.entries(practiceAddress).every(
      ([name, value]) => form.values[name as keyof PracticeAddress] === value,
    )

  const submit = (values: BillingForm) => {
    if (locked || stripe) {
      const rest = v.parse(locked ? PaidBillingSchema : StripeBillingSchema, values)
      const { card: _card, ...address } = { card: null, ...rest }
      actorRef.send({
        type: 'billing.continue',
        values: { ...address, card: cardOutsideForm(values, paidCard) },
      })
      return
    }
    actorRef.send({ type: 'billing.continue', values: v.parse(BillingInformationSchema, values) })
  }

  const inputProps = (path: Parameters<typeof form.getInputProps>[0]) => ({
    ...form.getInputProps(path),
    ...lockedProps(locked),
    errorProps: { role: 'alert' },
  })

  return (
    <StepForm form={form} onContinue={submit} hidden={hidden}>
      <Stack gap="lg">
        <StepHeading focusOnMount={focusHeading}>Billing Information</StepHeading>
        {loading && (
          <Center role="status" py="xl">
            <Loader size="sm" mr="sm" />
            <Text>Loading plans…</Text>
          </Center>
        )}
        {failed && (
          <Button variant="light" onClick={() => actorRef.send({ type: 'plans.retry' })}>
            Try again
          </Button>
        )}
        {!loading && !failed && (
          <Grid gap="xl">
            <Grid.Col span={{ base: 12, md: 7 }}>
              <PlanChoice
                actorRef={actorRef}
                promoCode={form.values.promo_code}
                promoFieldError={(form.errors.promo_code as string | undefined) ?? null}
                onPromoCodeChange={(code) => form.setFieldValue('promo_code', code)}
                validatePromoCode={() => !form.validateField('promo_code').hasError}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 5 }}>
              <PriceSummary actorRef={actorRef} />
            </Grid.Col>
          </Grid>
        )}

        <Stack gap="md">
          <Title order={3} size="h4">
            Card
          </Title>
          {locked && paidCard && (
            <Alert color="green" role="status">
              Paid with the card ending in {paidCard.last4}. The card, billing address and plan are
              locked.
            </Alert>
          )}
          {!locked && stripe && (
            <Suspense fallback={<Loader size="sm" />}>
              <StripeCardElements
                load={loadStripeJs}
                onReady={(card) =>
                  onStripeFieldsChange?.(card && stripeCardFields(card.stripe, card.cardNumber))
                }
              />
            </Suspense>
          )}
          {!stripe && (
            <TestCardFields
              values={form.values.card}
              inputProps={(field) => inputProps(`card.${field}`)}
              onChange={(field, value) => form.setFieldValue(`card.${field}`, value)}
              paidLast4={locked && paidCard ? paidCard.last4 : null}
              locked={locked}
            />
          )}
          <TextInput
            label="Cardholder name"
            withAsterisk
            autoComplete="cc-name"
            {...inputProps('card.name')}
            value={locked && paidCard ? paidCard.name : form.values.card.name}
          />
        </Stack>

        <Stack gap="md">
          <Title order={3} size="h4">
            Billing address
          </Title>
          <Checkbox
            label="Billing address same as practice address"
            checked={sameAsPractice}
            disabled={locked || practiceAddress === null}
            onChange={(event) => {
              const copy = event.currentTarget.checked && practiceAddress
              for (const [name, value] of Object.entries(practiceAddress ?? {})) {
                form.setFieldValue(name as keyof PracticeAddress, copy ? value : '')
              }
            }}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              label="Billing address"
              withAsterisk
              autoComplete="billing address-line1"
              {...inputProps('billing_address_1')}
            />
            <TextInput
              label="Billing address line 2"
              autoComplete="billing address-line2"
              {...inputProps('billing_address_2')}
            />
            <TextInput
              label="Billing city"
              withAsterisk
              autoComplete="billing address-level2"
              {...inputProps('billing_city')}
            />
            <SimpleGrid cols={2} spacing="md">
              <Select
                label="Billing state"
                allowDeselect={false}
                withAsterisk
                placeholder="Choose"
                searchable
                data={regions.map((region) => ({ value: region.code, label: region.name }))}
                {...inputProps('billing_state')}
                value={form.values.billing_state || null}
                onChange={(value) => form.setFieldValue('billing_state', value ?? '')}
              />
              <TextInput
                label="Billing zip"
                withAsterisk
                autoComplete="billing postal-code"
                {...inputProps('billing_zip')}
              />
            </SimpleGrid>
          </SimpleGrid>
        </Stack>

        <Stack gap="xs">
          <Checkbox
            label={
              <AgreeTo onOpen={() => actorRef.send({ type: 'terms.open' })}>
                Terms and Conditions
              </AgreeTo>
            }
            {...form.getInputProps('terms', { type: 'checkbox' })}
            error={announced(form.errors.terms)}
          />
          <Checkbox
            label={
              <AgreeTo onOpen={() => actorRef.send({ type: 'agreement.open' })}>
                Business Associates Agreement
              </AgreeTo>
            }
            description={signature ? undefined : 'Sign the agreement to accept it.'}
            {...form.getInputProps('business_agreement', { type: 'checkbox' })}
            onChange={(event) => {
              // Accepting a legal document needs its signature: without one, ticking opens the
              // agreement to sign, and signing ticks the box.
              if (event.currentTarget.checked && !signature) {
                actorRef.send({ type: 'agreement.open' })
                return
              }
              form.setFieldValue('business_agreement', event.currentTarget.checked)
            }}
            error={announced(form.errors.business_agreement)}
          />
          {signature && (
            <Text size="sm" c="dimmed">
              Agreement signed by {signature.signer_name} on {signature.date}
            </Text>
          )}
        </Stack>
      </Stack>
    </StepForm>
  )
}

/** A consent's label: "I agree to the" and the document's name, which opens it to read. */
function AgreeTo({ onOpen, children }: { onOpen: () => void; children: string }) {
  return (
    <>
      I agree to the{' '}
      <Anchor component="button" type="button" inherit onClick={onOpen}>
        {children}
      </Anchor>
    </>
  )
}

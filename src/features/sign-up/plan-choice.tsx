import {
  Button,
  Card,
  Checkbox,
  Group,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { useSelector } from '@xstate/react'
import { useState } from 'react'
import { EHR_PRICE_PER_MONTH, formatUsd, type Term } from '#domain/pricing.ts'
import {
  selectPaymentLocked,
  selectPlanChoice,
  selectPricing,
  selectPromo,
  selectTermOptions,
} from '#machines/sign-up/sign-up.selectors.ts'
import { lockedProps } from '#src/ui/locked.tsx'
import type { SignUpActorRef } from './form-helpers.tsx'

/** Props of {@link PlanChoice}. */
export type PlanChoiceProps = {
  actorRef: SignUpActorRef
  /** The promo code field's value, error and change handler (from the step's form). */
  promoCode: string
  promoFieldError: string | null
  onPromoCodeChange: (code: string) => void
  /** Checks the promo field's own rule; true when Apply may go ahead. */
  validatePromoCode: () => boolean
}

/**
 * The plan part of the billing step: the Lite plan (always included) with its term, the EHR
 * add-on (checked and disabled with Nextech), and the promo code with Apply. After payment every
 * choice is disabled.
 */
export function PlanChoice({
  actorRef,
  promoCode,
  promoFieldError,
  onPromoCodeChange,
  validatePromoCode,
}: PlanChoiceProps) {
  const choice = useSelector(actorRef, selectPlanChoice)
  const termOptions = useSelector(actorRef, selectTermOptions)
  const pricing = useSelector(actorRef, selectPricing)
  const promo = useSelector(actorRef, selectPromo)
  const locked = useSelector(actorRef, selectPaymentLocked)
  const yearly = choice.term === 'year'
  // The code a term change took off, shown beside the box until the person acts on it.
  const [dropped, setDropped] = useState<string | null>(null)

  return (
    <Stack gap="md">
      <Title order={3} size="h4">
        Your plan
      </Title>
      <div role="radiogroup" aria-labelledby="billing-term-label">
        <Text id="billing-term-label" size="sm" fw={500}>
          Billing term
        </Text>
        <SegmentedControl
          mt={4}
          fullWidth
          data={termOptions.map((option) => ({ value: option.value, label: option.label }))}
          value={choice.term}
          disabled={choice.termLocked}
          onChange={(term) => {
            // A new term resets the deduction: the box says why the code went.
            if (promo.coupon) setDropped(promo.coupon.id)
            actorRef.send({ type: 'plan.termChange', term: term as Term })
          }}
        />
      </div>
      <Card padding="md" shadow="none">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <div>
            <Text fw={700}>Lite</Text>
            <Text size="sm" c="dimmed">
              Rewards and membership programme for your clients
            </Text>
          </div>
          <Text fw={700} ta="right" style={{ whiteSpace: 'nowrap' }}>
            {formatUsd(pricing.basic.perMonth)}
            <Text span size="sm" c="dimmed" fw={400}>
              {' '}
              / month
            </Text>
          </Text>
        </Group>
      </Card>
      <Checkbox
        label={`Add the EHR integration (${formatUsd(EHR_PRICE_PER_MONTH[choice.term], { whole: true })} per month${
          yearly ? ' on a 1-year plan' : ''
        })`}
        description={
          choice.ehrForced
            ? 'Included: the Nextech integration needs the EHR plan.'
            : `${formatUsd(EHR_PRICE_PER_MONTH.month, { whole: true })} monthly, or ${formatUsd(EHR_PRICE_PER_MONTH.year, { whole: true })} per month on a 1-year plan.`
        }
        checked={choice.ehr}
        disabled={choice.ehrLocked}
        onChange={(event) =>
          actorRef.send({ type: 'plan.ehrToggle', checked: event.currentTarget.checked })
        }
      />
      <Group align="flex-start" gap="sm" wrap="nowrap">
        <TextInput
          label="Promo code"
          style={{ flex: 1 }}
          value={promoCode}
          {...lockedProps(locked)}
          autoComplete="off"
          error={promoFieldError ?? promo.error}
          errorProps={{ role: 'alert' }}
          data-path="promo_code"
          onChange={(event) => {
            setDropped(null)
            onPromoCodeChange(event.currentTarget.value)
          }}
        />
        <Button
          variant="light"
          mt={25}
          loading={promo.checking}
          disabled={locked || promoCode.trim() === ''}
          onClick={() => {
            setDropped(null)
            if (validatePromoCode()) actorRef.send({ type: 'promo.apply', code: promoCode })
          }}
        >
          Apply
        </Button>
      </Group>
      {dropped && !promo.coupon && (
        <Text size="sm" role="status">
          {dropped} no longer applies after the term change: press Apply again.
        </Text>
      )}
      {promo.coupon && (
        <Group gap="xs">
          <Text size="sm" c="var(--mantine-color-green-light-color)" role="status">
            Promo code {promo.coupon.id} applied
          </Text>
          {!locked && (
            <Button
              variant="subtle"
              size="compact-sm"
              onClick={() => actorRef.send({ type: 'promo.clear' })}
            >
              Remove
            </Button>
          )}
        </Group>
      )}
    </Stack>
  )
}

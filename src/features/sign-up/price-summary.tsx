import { Card, Divider, Group, Stack, Text, Title } from '@mantine/core'
import { useSelector } from '@xstate/react'
import { formatUsd, type PriceLine } from '#domain/pricing.ts'
import { selectPricing, selectPromo } from '#machines/sign-up/sign-up.selectors.ts'
import type { SignUpActorRef } from './form-helpers.tsx'

function Line({ label, amount, strong }: { label: string; amount: string; strong?: boolean }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm">
      <Text size="sm" fw={strong ? 700 : 400}>
        {label}
      </Text>
      <Text size="sm" fw={strong ? 700 : 500} style={{ fontVariantNumeric: 'tabular-nums' }}>
        {amount}
      </Text>
    </Group>
  )
}

function perMonthNote(line: PriceLine, yearly: boolean): string | null {
  if (!yearly) return null
  return `${formatUsd(line.perMonth)} per month, billed yearly`
}

/**
 * The live price summary of the billing step: the Lite plan of the chosen
 * term, the EHR add-on when chosen, the promo deduction and the sub-total. Screen readers hear
 * the sub-total change.
 */
export function PriceSummary({ actorRef }: { actorRef: SignUpActorRef }) {
  const pricing = useSelector(actorRef, selectPricing)
  const { coupon } = useSelector(actorRef, selectPromo)
  const yearly = pricing.term === 'year'
  const period = yearly ? 'year' : 'month'
  const basicNote = perMonthNote(pricing.basic, yearly)
  const ehrNote = pricing.ehr ? perMonthNote(pricing.ehr, yearly) : null
  return (
    <Card
      component="section"
      aria-labelledby="price-summary-title"
      bg="var(--mantine-color-glow-light)"
    >
      <Stack gap="xs">
        <Title id="price-summary-title" order={3} size="h5">
          Price summary
        </Title>
        <Line
          label={`Lite plan (${yearly ? 'Yearly' : 'Monthly'})`}
          amount={formatUsd(pricing.basic.billed)}
        />
        {basicNote && (
          <Text size="xs" c="dimmed">
            {basicNote}
          </Text>
        )}
        {pricing.ehr && (
          <>
            <Line label="EHR integration" amount={formatUsd(pricing.ehr.billed)} />
            {ehrNote && (
              <Text size="xs" c="dimmed">
                {ehrNote}
              </Text>
            )}
          </>
        )}
        <Divider />
        <Line label="Subscription" amount={formatUsd(pricing.subscription)} />
        <Line
          label={coupon ? `Promo deduction (${coupon.id})` : 'Promo deduction'}
          amount={`−${formatUsd(pricing.deduction)}`}
        />
        <Divider />
        <div aria-live="polite" aria-atomic="true">
          <Line label={`Sub-total per ${period}`} amount={formatUsd(pricing.subTotal)} strong />
        </div>
      </Stack>
    </Card>
  )
}

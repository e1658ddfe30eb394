import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useSelector } from '@xstate/react'
import type { ReactNode } from 'react'
import { CARD_TYPES, type CardType, cardTypeName } from '#domain/cards.ts'
import { formatUsd } from '#domain/pricing.ts'
import { COUNTRIES, type CountryCode, regionsFor } from '#domain/regions.ts'
import {
  selectCountry,
  selectPlanChoice,
  selectPromo,
  selectReview,
} from '#machines/sign-up/sign-up.selectors.ts'
import type { StepProps } from './client-details-step.tsx'
import { StepHeading } from './form-helpers.tsx'
import classes from './sign-up.module.css'

type Entry = [label: string, value: ReactNode]

function ReviewCard({ title, entries }: { title: string; entries: Entry[] }) {
  return (
    <Card component="section" padding="md" shadow="none" aria-label={title}>
      <Title order={3} size="h5" mb="xs">
        {title}
      </Title>
      <dl className={classes.review}>
        {entries
          .filter(([, value]) => value !== '' && value !== null && value !== undefined)
          .map(([label, value]) => (
            <div key={label} className={classes.reviewRow}>
              <Text component="dt" size="sm" c="dimmed">
                {label}
              </Text>
              <Text component="dd" size="sm" fw={500}>
                {value}
              </Text>
            </div>
          ))}
      </dl>
    </Card>
  )
}

function regionName(country: CountryCode, code: string | undefined): string {
  if (!code) return ''
  return regionsFor(country).find((region) => region.code === code)?.name ?? code
}

function cardName(type: string | null): string {
  return type && (CARD_TYPES as readonly string[]).includes(type)
    ? cardTypeName(type as CardType)
    : 'Card'
}

/**
 * Step 4, Confirmation: everything the wizard gathered, for a last look before Submit. The card
 * shows only its last four digits; the password, the Nextech password and the CVV are masked.
 */
export function ConfirmationStep({ actorRef, focusHeading }: StepProps) {
  const review = useSelector(actorRef, selectReview)
  const choice = useSelector(actorRef, selectPlanChoice)
  const { coupon } = useSelector(actorRef, selectPromo)
  const country = useSelector(actorRef, selectCountry)
  const person = review.clientDetails
  const practice = review.practice
  const address = review.billingAddress
  const card = review.card
  const { pricing } = review
  const yearly = choice.term === 'year'

  return (
    <Stack gap="md">
      <StepHeading focusOnMount={focusHeading}>Confirmation</StepHeading>
      <Text size="sm" c="dimmed">
        Please check your details. Submit creates your practice's account.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <ReviewCard
          title="Client Information"
          entries={[
            ['Name', [person.title, person.name, person.last_name].filter(Boolean).join(' ')],
            ['Phone number', [person.country_code, person.phone].filter(Boolean).join(' ')],
            ['Email', person.email],
            ['Password', review.passwordMasked],
            ['Position', person.position],
          ]}
        />
        <ReviewCard
          title="Account Setup"
          entries={[
            ['Practice name', practice.practice_name],
            ['Office name', practice.office_name],
            ['Website', practice.url],
            ['Practice phone', practice.practice_phone],
            ['Practice email', practice.practice_email],
            [
              'Address',
              [
                practice.practice_address,
                practice.practice_address_2,
                practice.city,
                `${regionName(country, practice.state)} ${practice.practice_zip ?? ''}`.trim(),
                COUNTRIES.find((c) => c.code === country)?.name,
              ]
                .filter(Boolean)
                .join(', '),
            ],
            ['Health record', practice.e_record === 'nextech' ? 'Nextech' : 'No integration'],
            ...(practice.e_record === 'nextech' && practice.nextech
              ? ([
                  ['Client ID', practice.nextech.client_id],
                  ['Username', practice.nextech.username],
                  ['Nextech password', review.nextechPasswordMasked],
                  ['NX Practice ID', practice.nextech.nx_practice_id],
                ] as Entry[])
              : []),
          ]}
        />
        <ReviewCard
          title="Plan"
          entries={[
            ['Lite plan', `${yearly ? 'Yearly' : 'Monthly'}, ${formatUsd(pricing.basic.billed)}`],
            ['EHR integration', pricing.ehr ? formatUsd(pricing.ehr.billed) : 'Not included'],
            ['Promo code', coupon?.id ?? ''],
            ['Promo deduction', coupon ? `−${formatUsd(pricing.deduction)}` : ''],
            [`Sub-total per ${yearly ? 'year' : 'month'}`, formatUsd(pricing.subTotal)],
          ]}
        />
        <ReviewCard
          title="Billing Information"
          entries={[
            ['Card', card ? `${cardName(card.type)} •••• ${card.last4}` : ''],
            ['Expires', card ? `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}` : ''],
            ['CVV', review.cvvMasked],
            ['Cardholder name', card?.name ?? ''],
            [
              'Billing address',
              address
                ? [
                    address.billing_address_1,
                    address.billing_address_2,
                    address.billing_city,
                    `${regionName(country, address.billing_state)} ${address.billing_zip}`,
                  ]
                    .filter(Boolean)
                    .join(', ')
                : '',
            ],
            [
              'Business Associates Agreement',
              review.signature
                ? `Signed by ${review.signature.signer_name} on ${review.signature.date}`
                : 'Accepted',
            ],
            ['Terms and Conditions', 'Accepted'],
          ]}
        />
      </SimpleGrid>
    </Stack>
  )
}

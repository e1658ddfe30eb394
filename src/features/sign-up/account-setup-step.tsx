import { Alert, Stack, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { useState } from 'react'
import * as v from 'valibot'
import { type CountryCode, DEFAULT_COUNTRY } from '#domain/regions.ts'
import {
  EMPTY_NEXTECH,
  type PracticeDetailsInput,
  PracticeDetailsSchema,
} from '#domain/sign-up/practice-details.ts'
import { selectStateOptions } from '#machines/sign-up/sign-up.selectors.ts'
import { PracticeDetailsFields } from '#src/ui/practice-details-fields.tsx'
import type { StepProps } from './client-details-step.tsx'
import { type SignUpActorRef, StepForm, StepHeading } from './form-helpers.tsx'

type PracticeForm = Omit<PracticeDetailsInput, 'country' | 'e_record' | 'nextech'> & {
  country: CountryCode
  e_record: string
  nextech: typeof EMPTY_NEXTECH
}

function initialValues(actorRef: SignUpActorRef): PracticeForm {
  const { context } = actorRef.getSnapshot()
  const draft = context.drafts.accountSetup
  return {
    practice_name: draft.practice_name ?? '',
    office_name: draft.office_name ?? '',
    url: draft.url ?? '',
    practice_phone: draft.practice_phone ?? '',
    practice_email: draft.practice_email ?? '',
    practice_address: draft.practice_address ?? '',
    practice_address_2: draft.practice_address_2 ?? '',
    city: draft.city ?? '',
    practice_zip: draft.practice_zip ?? '',
    state: draft.state ?? '',
    country: (draft.country as CountryCode | undefined) ?? context.country ?? DEFAULT_COUNTRY,
    e_record: draft.e_record ?? '',
    nextech: { ...EMPTY_NEXTECH, ...draft.nextech },
  }
}

/**
 * Step 2, Account Setup: the practice (name, office, web address, phone, e-mail, address with the
 * state list of its country: the 50 states and DC, or Canada's 13 provinces and territories) and
 * the health record choice; Nextech shows its four credentials and forces the EHR plan.
 */
export function AccountSetupStep({ actorRef, focusHeading }: StepProps) {
  const regions = useSelector(actorRef, selectStateOptions)
  const [initial] = useState(() => initialValues(actorRef))

  const form = useForm<PracticeForm>({
    mode: 'controlled',
    initialValues: initial,
    validate: schemaResolver(PracticeDetailsSchema, { sync: true }),
    validateInputOnBlur: true,
    onValuesChange: (values) => {
      actorRef.send({
        type: 'form.draft',
        step: 'accountSetup',
        values: values as PracticeDetailsInput,
      })
    },
  })

  return (
    <StepForm
      form={form}
      onContinue={(values) =>
        actorRef.send({
          type: 'accountSetup.continue',
          values: v.parse(PracticeDetailsSchema, values),
        })
      }
    >
      <Stack gap="md">
        <StepHeading focusOnMount={focusHeading}>Account Setup</StepHeading>
        <Text size="sm" c="dimmed">
          Your practice as your clients know it.
        </Text>
        <PracticeDetailsFields
          form={form}
          regions={regions}
          nextechNote={
            <Alert color="glow" variant="light">
              The Nextech integration comes with the EHR plan, which is added to your subscription
              on the next step.
            </Alert>
          }
          onCountryChange={(country) => actorRef.send({ type: 'practice.countryChange', country })}
        />
      </Stack>
    </StepForm>
  )
}

import { Alert, Group, Radio, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { useRef, useState } from 'react'
import * as v from 'valibot'
import { COUNTRIES, type CountryCode, DEFAULT_COUNTRY, isRegionOf } from '#domain/regions.ts'
import {
  EMPTY_NEXTECH,
  type PracticeDetailsInput,
  PracticeDetailsSchema,
} from '#domain/sign-up/practice-details.ts'
import { selectStateOptions } from '#machines/sign-up/sign-up.selectors.ts'
import { maskDigits } from '#src/lib/masks.ts'
import { PasswordField } from '#src/ui/password-field.tsx'
import type { StepProps } from './client-details-step.tsx'
import {
  focusFirstInvalid,
  type SignUpActorRef,
  STEP_FORM_ID,
  StepHeading,
} from './form-helpers.tsx'

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

// Practice phones are digits only; the mask keeps at most 15 of them (spec section 9).
const PRACTICE_PHONE_MAX_DIGITS = 15

/**
 * Step 2, Account Setup: the practice (name, office, web address, phone, e-mail, address with the
 * state list of its country: the 50 states and DC, or Canada's 13 provinces and territories) and
 * the health record choice; Nextech shows its four credentials and forces the EHR plan.
 */
export function AccountSetupStep({ actorRef, focusHeading }: StepProps) {
  const regions = useSelector(actorRef, selectStateOptions)
  const formRef = useRef<HTMLFormElement>(null)
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
  const canada = form.values.country === 'CA'
  const nextech = form.values.e_record === 'nextech'

  return (
    <form
      id={STEP_FORM_ID}
      ref={formRef}
      noValidate
      onSubmit={form.onSubmit(
        (values) =>
          actorRef.send({
            type: 'accountSetup.continue',
            values: v.parse(PracticeDetailsSchema, values),
          }),
        (errors) => focusFirstInvalid(formRef.current, errors),
      )}
    >
      <Stack gap="md">
        <StepHeading focusOnMount={focusHeading}>Account Setup</StepHeading>
        <Text size="sm" c="dimmed">
          Your practice as your clients know it.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput
            label="Practice name"
            withAsterisk
            autoComplete="organization"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('practice_name')}
          />
          <TextInput
            label="Office name"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('office_name')}
          />
          <TextInput
            label="Website"
            withAsterisk
            placeholder="www.your-practice.com"
            inputMode="url"
            autoComplete="url"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('url')}
          />
          <TextInput
            label="Practice phone"
            withAsterisk
            type="tel"
            inputMode="tel"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('practice_phone')}
            onChange={(event) =>
              form.setFieldValue(
                'practice_phone',
                maskDigits(event.currentTarget.value, PRACTICE_PHONE_MAX_DIGITS),
              )
            }
          />
          <TextInput
            label="Practice email"
            withAsterisk
            type="email"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('practice_email')}
          />
          <Select
            label="Country"
            withAsterisk
            data={COUNTRIES.map((country) => ({ value: country.code, label: country.name }))}
            allowDeselect={false}
            {...form.getInputProps('country')}
            onChange={(value) => {
              const country = (value ?? DEFAULT_COUNTRY) as CountryCode
              form.setFieldValue('country', country)
              // A state of the other country would be wrong here: choose again.
              if (!isRegionOf(country, form.getValues().state)) form.setFieldValue('state', '')
              actorRef.send({ type: 'practice.countryChange', country })
            }}
          />
          <TextInput
            label="Address"
            withAsterisk
            autoComplete="address-line1"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('practice_address')}
          />
          <TextInput
            label="Address line 2"
            autoComplete="address-line2"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('practice_address_2')}
          />
          <TextInput
            label="City"
            withAsterisk
            autoComplete="address-level2"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('city')}
          />
          <SimpleGrid cols={2} spacing="md">
            <Select
              label={canada ? 'Province or territory' : 'State'}
              allowDeselect={false}
              withAsterisk
              placeholder="Choose"
              searchable
              data={regions.map((region) => ({ value: region.code, label: region.name }))}
              errorProps={{ role: 'alert' }}
              {...form.getInputProps('state')}
              value={form.values.state || null}
              onChange={(value) => form.setFieldValue('state', value ?? '')}
            />
            <TextInput
              label={canada ? 'Postal code' : 'Zip code'}
              withAsterisk
              autoComplete="postal-code"
              errorProps={{ role: 'alert' }}
              {...form.getInputProps('practice_zip')}
            />
          </SimpleGrid>
        </SimpleGrid>
        <Radio.Group
          label="Health record"
          withAsterisk
          errorProps={{ role: 'alert' }}
          {...form.getInputProps('e_record')}
        >
          <Group gap="lg" mt="xs">
            <Radio value="no_integration" label="No integration" />
            <Radio value="nextech" label="Nextech" />
          </Group>
        </Radio.Group>
        {nextech && (
          <Stack gap="md">
            <Alert color="glow" variant="light">
              The Nextech integration comes with the EHR plan, which is added to your subscription
              on the next step.
            </Alert>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
              <TextInput
                label="Client ID"
                withAsterisk
                errorProps={{ role: 'alert' }}
                {...form.getInputProps('nextech.client_id')}
              />
              <TextInput
                label="Username"
                withAsterisk
                autoComplete="off"
                errorProps={{ role: 'alert' }}
                {...form.getInputProps('nextech.username')}
              />
              <PasswordField
                label="Nextech password"
                withAsterisk
                autoComplete="off"
                {...form.getInputProps('nextech.password')}
              />
              <TextInput
                label="NX Practice ID"
                withAsterisk
                errorProps={{ role: 'alert' }}
                {...form.getInputProps('nextech.nx_practice_id')}
              />
            </SimpleGrid>
          </Stack>
        )}
      </Stack>
    </form>
  )
}

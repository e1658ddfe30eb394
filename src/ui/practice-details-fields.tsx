import { Group, Radio, Select, SimpleGrid, Stack } from '@mantine/core'
import type { GetInputPropsReturnType } from '@mantine/form'
import type { ReactNode } from 'react'
import { PRACTICE_SETTINGS_MESSAGES } from '#domain/practice-settings.ts'
import {
  COUNTRIES,
  type CountryCode,
  DEFAULT_COUNTRY,
  isRegionOf,
  type Region,
} from '#domain/regions.ts'
import { maskDigits } from '#src/lib/masks.ts'
import { FormFields, TextField, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'

/** The fields this component shows, by their path in the form's values. */
export type PracticeFieldPath =
  | 'practice_name'
  | 'office_name'
  | 'url'
  | 'practice_phone'
  | 'practice_email'
  | 'country'
  | 'practice_address'
  | 'practice_address_2'
  | 'city'
  | 'state'
  | 'practice_zip'
  | 'e_record'
  | 'nextech.client_id'
  | 'nextech.username'
  | 'nextech.password'
  | 'nextech.nx_practice_id'

/**
 * What the fields need of the form that holds them: a Mantine form whose values have the
 * practice's fields (the wizard's step and Settings each add their own).
 */
export interface PracticeFieldsForm {
  values: { country?: string | undefined; state: string; e_record: string }
  getValues(): { state: string }
  getInputProps(path: PracticeFieldPath): GetInputPropsReturnType
  setFieldValue(path: 'practice_phone' | 'country' | 'state', value: string): void
}

/** Props of {@link PracticeDetailsFields}. */
export type PracticeDetailsFieldsProps = {
  form: PracticeFieldsForm
  /** The states or provinces the State select offers (those of the chosen country). */
  regions: readonly Region[]
  /**
   * Which Nextech credentials the server already keeps (Settings): such a field may stay empty,
   * and its hint says the stored one is kept. Nothing is stored during the sign-up.
   */
  storedCredentials?: { username: boolean; password: boolean }
  /** Shown above the Nextech fields when Nextech is chosen (the wizard's note on the EHR plan). */
  nextechNote?: ReactNode
  /** Told after the country changed, once the fields have followed it. */
  onCountryChange?: (country: CountryCode) => void
}

// Practice phones are digits only; the mask keeps at most 15 of them.
const PRACTICE_PHONE_MAX_DIGITS = 15

const NOTHING_STORED = { username: false, password: false }

const PRACTICE_FIELDS: TextFieldSpec<PracticeFieldPath>[] = [
  {
    path: 'practice_name',
    label: 'Practice name',
    withAsterisk: true,
    autoComplete: 'organization',
  },
  { path: 'office_name', label: 'Office name' },
  {
    path: 'url',
    label: 'Website',
    withAsterisk: true,
    placeholder: 'www.your-practice.com',
    inputMode: 'url',
    autoComplete: 'url',
  },
]

const ADDRESS_FIELDS: TextFieldSpec<PracticeFieldPath>[] = [
  { path: 'practice_address', label: 'Address', withAsterisk: true, autoComplete: 'address-line1' },
  { path: 'practice_address_2', label: 'Address line 2', autoComplete: 'address-line2' },
  { path: 'city', label: 'City', withAsterisk: true, autoComplete: 'address-level2' },
]

/**
 * The practice's details as the sign-up wizard's Account Setup step and Settings both ask for
 * them: name, office, web address, phone, e-mail, the address with the state list of its country
 * (the 50 states and DC, or Canada's 13 provinces and territories), the health record choice, and
 * the four Nextech credentials when Nextech is chosen.
 */
export function PracticeDetailsFields({
  form,
  regions,
  storedCredentials = NOTHING_STORED,
  nextechNote,
  onCountryChange,
}: PracticeDetailsFieldsProps) {
  const canada = form.values.country === 'CA'
  const nextech = form.values.e_record === 'nextech'
  const hint = (stored: boolean) => (stored ? PRACTICE_SETTINGS_MESSAGES.credentialKept : undefined)
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <FormFields form={form} fields={PRACTICE_FIELDS} />
        <TextField
          label="Practice phone"
          withAsterisk
          type="tel"
          inputMode="tel"
          {...form.getInputProps('practice_phone')}
          onChange={(event) =>
            form.setFieldValue(
              'practice_phone',
              maskDigits(event.currentTarget.value, PRACTICE_PHONE_MAX_DIGITS),
            )
          }
        />
        <TextField
          label="Practice email"
          withAsterisk
          type="email"
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
            onCountryChange?.(country)
          }}
        />
        <FormFields form={form} fields={ADDRESS_FIELDS} />
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
          <TextField
            label={canada ? 'Postal code' : 'Zip code'}
            withAsterisk
            autoComplete="postal-code"
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
          {nextechNote}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextField
              label="Client ID"
              withAsterisk
              {...form.getInputProps('nextech.client_id')}
            />
            <TextField
              label="Username"
              withAsterisk={!storedCredentials.username}
              autoComplete="off"
              description={hint(storedCredentials.username)}
              {...form.getInputProps('nextech.username')}
            />
            <PasswordField
              label="Nextech password"
              withAsterisk={!storedCredentials.password}
              // 'new-password': browsers ignore 'off' on a password field and would fill in the
              // person's own password for this site, which is not the Nextech one.
              autoComplete="new-password"
              description={hint(storedCredentials.password)}
              {...form.getInputProps('nextech.password')}
            />
            <TextField
              label="NX Practice ID"
              withAsterisk
              {...form.getInputProps('nextech.nx_practice_id')}
            />
          </SimpleGrid>
        </Stack>
      )}
    </>
  )
}

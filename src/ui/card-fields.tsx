import { Select, SimpleGrid, TextInput } from '@mantine/core'
import { EXPIRY_MONTHS, EXPIRY_YEARS } from '#domain/regions.ts'
import { maskCardNumber, maskCvv } from '#src/lib/masks.ts'
import { lockedProps } from '#src/ui/locked.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'

/** The card fields as the inputs hold them (selects hold text). */
export type CardFieldValues = { number: string; exp_month: string; exp_year: string; cvv: string }

/** Props of {@link TestCardFields}. */
export type TestCardFieldsProps = {
  values: CardFieldValues
  /** The form's props of a field (error, blur, focus); the value and change are set here. */
  inputProps: (field: keyof CardFieldValues) => object
  onChange: (field: keyof CardFieldValues, value: string) => void
  /** After payment: the number reads as its last four digits and nothing can be changed. */
  paidLast4?: string | null | undefined
  locked?: boolean | undefined
}

/**
 * The card number, expiry and CVV of the test gateway (Stripe mode uses Stripe Elements instead):
 * the number masked in groups and hidden like a password, the CVV digits only. The sign-up's
 * billing step and the card change in Settings both use it.
 */
export function TestCardFields({
  values,
  inputProps,
  onChange,
  paidLast4 = null,
  locked = false,
}: TestCardFieldsProps) {
  return (
    <>
      {paidLast4 ? (
        // Paid: the last four digits, readable; the full number is gone.
        <TextInput
          label="Card number"
          withAsterisk
          value={`•••• •••• •••• ${paidLast4}`}
          {...lockedProps(true)}
        />
      ) : (
        <PasswordField
          label="Card number"
          withAsterisk
          inputMode="numeric"
          autoComplete="cc-number"
          {...inputProps('number')}
          value={values.number}
          onChange={(event) => onChange('number', maskCardNumber(event.currentTarget.value))}
        />
      )}
      <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="md">
        <Select
          label="Expiration month"
          allowDeselect={false}
          withAsterisk
          placeholder="MM"
          data={EXPIRY_MONTHS.map((month) => ({
            value: String(month),
            label: String(month).padStart(2, '0'),
          }))}
          {...inputProps('exp_month')}
          value={values.exp_month || null}
          onChange={(value) => onChange('exp_month', value ?? '')}
        />
        <Select
          label="Expiration year"
          allowDeselect={false}
          withAsterisk
          placeholder="YYYY"
          data={EXPIRY_YEARS.map((year) => String(year))}
          {...inputProps('exp_year')}
          value={values.exp_year || null}
          onChange={(value) => onChange('exp_year', value ?? '')}
        />
        <TextInput
          label="CVV"
          withAsterisk
          type="password"
          inputMode="numeric"
          autoComplete="cc-csc"
          {...inputProps('cvv')}
          value={locked ? '' : values.cvv}
          onChange={(event) => onChange('cvv', maskCvv(event.currentTarget.value))}
        />
      </SimpleGrid>
    </>
  )
}

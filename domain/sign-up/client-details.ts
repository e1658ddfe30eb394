import * as v from 'valibot'
import {
  confirmationMatches,
  EmailSchema,
  FIELD_MESSAGES,
  FirstNameSchema,
  LastNameSchema,
  PasswordConfirmSchema,
  PhoneCountryCodeSchema,
  PositionSchema,
  TitleSchema,
  WizardPasswordSchema,
  WizardPhoneSchema,
} from '#domain/fields.ts'

/**
 * The entries of step 1 that Get Code needs: who the person is and where the code goes. The
 * confirmation code itself is checked by the phone verification (ConfirmCodeSchema).
 */
const clientDetailsEntries = {
  title: TitleSchema,
  /** The first name; the spec's model calls it `name`. */
  name: FirstNameSchema,
  last_name: LastNameSchema,
  country_code: PhoneCountryCodeSchema,
  phone: WizardPhoneSchema,
  email: EmailSchema,
  password: WizardPasswordSchema,
  password_confirm: PasswordConfirmSchema,
  position: PositionSchema,
}

/**
 * Step 1 (Client Information): title, first and last name, phone with its country code,
 * e-mail, password twice and position, with the wizard's messages. The confirm password must
 * match ('Passwords should match', on `password_confirm`). A valid step enables Get Code;
 * Continue also needs the verified phone.
 */
export const ClientDetailsSchema = v.pipe(
  v.object(clientDetailsEntries),
  confirmationMatches('password_confirm', FIELD_MESSAGES.passwordConfirm.mismatch),
)
export type ClientDetails = v.InferOutput<typeof ClientDetailsSchema>
/** Step 1 as the form holds it. */
export type ClientDetailsInput = v.InferInput<typeof ClientDetailsSchema>

/** Step 1 without the passwords: what may be kept in the browser. */
export type ClientDetailsSafe = Omit<ClientDetails, 'password' | 'password_confirm'>

/** Drops the passwords from step 1's values. */
export function withoutPasswords<T extends { password?: unknown; password_confirm?: unknown }>(
  values: T,
): Omit<T, 'password' | 'password_confirm'> {
  const { password: _password, password_confirm: _confirm, ...rest } = values
  return rest
}

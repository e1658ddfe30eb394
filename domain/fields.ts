import * as v from 'valibot'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from '#domain/common-passwords.ts'

/**
 * Field rules shared by the sign-up wizard and personnel registration, as
 * valibot schemas with the spec's exact messages. Each schema reports one problem at a time in
 * the order a person fixes them: an empty field says "Please fill …" and nothing else.
 */

/** Every message of this module; the spec's own texts where it gives one. */
export const FIELD_MESSAGES = {
  firstName: {
    required: 'Please fill first name field',
    minLength: 'First name should contain minimum 2 characters',
    pattern: "First name should contain only letters, -, ` and '",
  },
  lastName: {
    required: 'Please fill last name field',
    minLength: 'Last name should contain minimum 2 characters',
    pattern: "Last name should contain only letters, -, ` and '",
  },
  phone: {
    required: 'Please fill phone number field',
    digits: 'Phone number should contain only numbers',
    length: 'Phone number should contain only 7 or 10 digits',
    personnelLength: 'Phone number should contain 8 to 21 characters',
  },
  email: {
    required: 'Please fill email field',
    pattern: 'Please enter a valid email',
  },
  password: {
    required: 'Please fill password field',
    strong: 'At least 8 characters in length, lowercase letters, uppercase letters, numbers.',
    strongWizard:
      'At least 8 characters in length, lowercase letters, uppercase letters, numbers and special characters.',
  },
  passwordConfirm: {
    required: 'Please fill confirm password field',
    /** The same text on every form, the reset form's included. */
    mismatch: AUTH_MESSAGES.passwordsDoNotMatch,
  },
  position: { required: 'Please fill position field' },
  confirmCode: {
    required: 'Please fill confirmation code field',
    minLength: 'Confirmation code should contain minimum 6 characters',
  },
} as const

/** Whether a text is empty once surrounding spaces are removed. */
export function isBlank(text: string): boolean {
  return text.trim().length === 0
}

/** A string that must not be blank; `message` is also the answer to a missing value. */
export function requiredString(message: string) {
  return v.pipe(
    v.string(message),
    v.check((text) => !isBlank(text), message),
  )
}

/** A rule that only speaks once the field has content (the required rule speaks first). */
export function whenFilled(rule: (text: string) => boolean, message: string) {
  return v.check<string, string>((text) => isBlank(text) || rule(text), message)
}

/** The longest free text a field takes (practice name, address, city, ids, user names...). */
export const FREE_TEXT_MAX_LENGTH = 200

/** The longest first or last name. */
export const NAME_MAX_LENGTH = 100

/**
 * Characters that cannot be seen or that turn the direction of the text around: control
 * characters, the soft hyphen, zero-width spaces and joiners, the word joiner and invisible
 * operators, the byte-order mark, and the bidirectional marks, embeddings, overrides and
 * isolates. In a name they only serve to make one thing look like another.
 */
export const INVISIBLE_CHARACTERS =
  /[\p{Cc}\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u

/** Ours: the texts of the length and invisible-character rules. */
export const TEXT_MESSAGES = {
  tooLong: (max: number) => `Please use at most ${max} characters.`,
  invisible: 'Please remove invisible or text-direction characters.',
} as const

/** Whether a text is free of {@link INVISIBLE_CHARACTERS}. */
export function isVisibleText(text: string): boolean {
  return !INVISIBLE_CHARACTERS.test(text)
}

/**
 * The rules every free-text field adds to its own: at most `max` characters, and (unless
 * `anyCharacter`, for secrets such as a password) no invisible or text-direction characters.
 */
export function bounded<TSchema extends v.GenericSchema<unknown, string>>(
  schema: TSchema,
  max: number = FREE_TEXT_MAX_LENGTH,
  { anyCharacter = false }: { anyCharacter?: boolean } = {},
) {
  return v.pipe(
    schema,
    v.maxLength(max, TEXT_MESSAGES.tooLong(max)),
    v.check((text: string) => anyCharacter || isVisibleText(text), TEXT_MESSAGES.invisible),
  )
}

/** Letters of any script, hyphen, backtick and apostrophe (names). */
const NAME_PATTERN = /^[\p{L}\-`']+$/u

/** Minimum length of first and last names. */
export const NAME_MIN_LENGTH = 2

function personNameSchema(messages: { required: string; minLength: string; pattern: string }) {
  return v.pipe(
    requiredString(messages.required),
    whenFilled((text) => text.length >= NAME_MIN_LENGTH, messages.minLength),
    whenFilled((text) => NAME_PATTERN.test(text), messages.pattern),
    v.maxLength(NAME_MAX_LENGTH, TEXT_MESSAGES.tooLong(NAME_MAX_LENGTH)),
  )
}

/** First name: required, at least 2 characters, only letters, -, ` and '. */
export const FirstNameSchema = personNameSchema(FIELD_MESSAGES.firstName)

/** Last name: required, at least 2 characters, only letters, -, ` and '. */
export const LastNameSchema = personNameSchema(FIELD_MESSAGES.lastName)

/** The phone input mask keeps at most this many digits. */
export const PHONE_MASK_MAX_DIGITS = 15

/** A phone has exactly 7 or 10 digits, whatever else it contains. */
function hasSevenOrTenDigits(text: string): boolean {
  const digits = text.replace(/\D/g, '').length
  return digits === 7 || digits === 10
}

/** Phone (personnel registration): digits only, 7 or 10 of them. */
export const PhoneSchema = v.pipe(
  requiredString(FIELD_MESSAGES.phone.required),
  whenFilled((text) => /^\d+$/.test(text), FIELD_MESSAGES.phone.digits),
  whenFilled(hasSevenOrTenDigits, FIELD_MESSAGES.phone.length),
)

/** Phone (sign-up wizard): digits with an optional leading plus sign, 7 or 10 digits. */
export const WizardPhoneSchema = v.pipe(
  requiredString(FIELD_MESSAGES.phone.required),
  whenFilled((text) => /^\+?\d+$/.test(text), FIELD_MESSAGES.phone.digits),
  whenFilled(hasSevenOrTenDigits, FIELD_MESSAGES.phone.length),
)

/**
 * Phone (personnel registration with its extra rule of 8 to 21 characters). Together with the 7
 * or 10 digits rule only 10-digit numbers pass, which is what the personnel form accepts.
 */
export const PersonnelPhoneSchema = v.pipe(
  PhoneSchema,
  whenFilled((text) => text.length >= 8 && text.length <= 21, FIELD_MESSAGES.phone.personnelLength),
)

/** The phone country codes offered; the product serves the US and Canada, both `+1`. */
export const PHONE_COUNTRY_CODES = ['+1'] as const
/**
 * Whether `digits` is a North American Numbering Plan number: 10 digits (or 11 starting with the
 * country code 1), an area code and an exchange code that start with 2-9 and are not N11 (211,
 * 311, ... 911 are service codes), and an area code that is not 37X or 96X (reserved).
 */
export function isNanpNumber(digits: string): boolean {
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits
  if (!/^\d{10}$/.test(national)) return false
  const area = national.slice(0, 3)
  const exchange = national.slice(3, 6)
  const valid = (code: string) => /^[2-9]\d\d$/.test(code) && code.slice(1) !== '11'
  return valid(area) && valid(exchange) && !/^(37|96)/.test(area)
}

/** The phone country code every form starts with. */
export const DEFAULT_PHONE_COUNTRY_CODE = '+1'
/** The phone country code selector's value. */
export const PhoneCountryCodeSchema = v.picklist(PHONE_COUNTRY_CODES)

/** E-mail: required and well-formed. */
export const EmailSchema = v.pipe(
  requiredString(FIELD_MESSAGES.email.required),
  whenFilled((text) => v.is(v.pipe(v.string(), v.email()), text), FIELD_MESSAGES.email.pattern),
)

/** Minimum password length. */
export const PASSWORD_MIN_LENGTH = 8

/** At least 8 characters, a digit, an uppercase and a lowercase letter, no whitespace. */
const STRONG_PASSWORD = /^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?!.*\s).{8,}$/

/** Whether a password passes the strength rule above. */
export function isStrongPassword(password: string): boolean {
  return STRONG_PASSWORD.test(password)
}

/**
 * Password with the personnel wording. The rule is the spec's: at least 8 characters, a digit,
 * an uppercase and a lowercase letter, no whitespace.
 */
export const PasswordSchema = v.pipe(
  v.string(FIELD_MESSAGES.password.required),
  v.nonEmpty(FIELD_MESSAGES.password.required),
  v.check<string, string>(
    (text) => text === '' || isStrongPassword(text),
    FIELD_MESSAGES.password.strong,
  ),
  v.check<string, string>((text) => !isCommonPassword(text), COMMON_PASSWORD_MESSAGE),
)

/**
 * Password with the wizard wording. The spec gives one strength rule and changes only the
 * wording in the wizard (it adds "and special characters"), so the rule is the same.
 */
export const WizardPasswordSchema = v.pipe(
  v.string(FIELD_MESSAGES.password.required),
  v.nonEmpty(FIELD_MESSAGES.password.required),
  v.check<string, string>(
    (text) => text === '' || isStrongPassword(text),
    FIELD_MESSAGES.password.strongWizard,
  ),
  v.check<string, string>((text) => !isCommonPassword(text), COMMON_PASSWORD_MESSAGE),
)

/** Confirm password: required; the form's object schema checks that it matches. */
export const PasswordConfirmSchema = v.pipe(
  v.string(FIELD_MESSAGES.passwordConfirm.required),
  v.nonEmpty(FIELD_MESSAGES.passwordConfirm.required),
)

/** An object holding `password` and a confirmation of it under `TKey`. */
type PasswordPair<TKey extends string> = { password: string } & { [K in TKey]: string }

/**
 * The match rule of a form with a password typed twice, for the form's object pipe: the field
 * `confirmKey` must equal `password`, else `message` is reported on `confirmKey`. It runs even
 * while other fields are invalid (a forwarded partial check).
 */
export function confirmationMatches<TKey extends string, TInput extends PasswordPair<TKey>>(
  confirmKey: TKey,
  message: string,
) {
  type Fields = Record<string, string>
  const rule = v.forward<Fields, v.PartialCheckIssue<Fields>, [string]>(
    v.partialCheck<Fields, [['password'], [string]], Fields, string>(
      [['password'], [confirmKey]],
      (input) => input.password === input[confirmKey],
      message,
    ),
    [confirmKey],
  )
  // The rule reads only the two fields, so it serves any object that holds them; valibot's path
  // types cannot be checked against a generic object, hence the widening.
  return rule as unknown as v.BaseValidation<
    TInput,
    TInput,
    v.PartialCheckIssue<PasswordPair<TKey>>
  >
}

/** The positions offered at sign-up. */
export const POSITIONS = ['Staff', 'Provider'] as const
export type Position = (typeof POSITIONS)[number]
/** Position: Staff or Provider, required. */
export const PositionSchema = v.picklist(POSITIONS, FIELD_MESSAGES.position.required)

/** Minimum length of the SMS confirmation code. */
export const CONFIRM_CODE_MIN_LENGTH = 6

/** Confirmation code: required, at least 6 characters. */
export const ConfirmCodeSchema = v.pipe(
  requiredString(FIELD_MESSAGES.confirmCode.required),
  whenFilled(
    (text) => text.trim().length >= CONFIRM_CODE_MIN_LENGTH,
    FIELD_MESSAGES.confirmCode.minLength,
  ),
)

/** Whether a confirmation code passes its rule (enables Verify Code). */
export function isConfirmCodeValid(code: string): boolean {
  return v.is(ConfirmCodeSchema, code)
}

/** Titles offered before a person's name; the field is optional. */
export const TITLES = ['Mr.', 'Mrs.', 'Ms.', 'Dr.'] as const
/** Title: optional free text (the form offers {@link TITLES}). */
export const TitleSchema = v.optional(v.pipe(v.string(), v.maxLength(20)), '')

/** The first message of a failed validation, or null when the value passes. */
export function firstIssue(schema: v.GenericSchema, value: unknown): string | null {
  const result = v.safeParse(schema, value)
  return result.success ? null : (result.issues[0]?.message ?? null)
}

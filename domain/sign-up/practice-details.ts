import * as v from 'valibot'
import {
  bounded,
  EmailSchema,
  FIELD_MESSAGES,
  FREE_TEXT_MAX_LENGTH,
  requiredString,
  whenFilled,
} from '#domain/fields.ts'
import { COUNTRY_CODES, type CountryCode, DEFAULT_COUNTRY, isRegionOf } from '#domain/regions.ts'

/** Step 2's messages; the spec's own texts where it gives one (zip, Client ID). */
export const PRACTICE_MESSAGES = {
  practiceName: {
    required: 'Please fill practice name field',
    minLength: 'Practice name should contain minimum 2 characters',
  },
  url: { required: 'Please fill URL field', pattern: 'Please enter a valid URL' },
  practicePhone: {
    required: 'Please fill practice phone field',
    digits: FIELD_MESSAGES.phone.digits,
  },
  practiceEmail: {
    required: 'Please fill practice email field',
    pattern: FIELD_MESSAGES.email.pattern,
  },
  address: {
    required: 'Please fill address field',
    minLength: 'Address should contain minimum 4 characters',
  },
  address2: { minLength: 'Address 2 should contain minimum 4 characters' },
  city: {
    required: 'Please fill city field',
    minLength: 'City should contain minimum 3 characters',
  },
  zip: { required: 'Please fill zip code field', pattern: 'Incorrect zip code entered!' },
  state: {
    required: 'Please fill state field',
    notInCountry: 'Please choose a state or province from the list',
  },
  country: { required: 'Please fill country field' },
  eRecord: { required: 'Please fill health record field' },
  nextech: {
    clientId: 'Please fill Client ID field',
    username: 'Please fill Username field',
    password: 'Please fill Password field',
    nxPracticeId: 'Please fill NX Practice ID field',
  },
  ehrRequired: 'The Nextech integration needs the EHR plan',
} as const

/** The health record integrations a practice can choose. */
export const E_RECORDS = ['no_integration', 'nextech'] as const
export type ERecord = (typeof E_RECORDS)[number]

/** US: 5 digits, or 5+4 with a hyphen. */
export const US_ZIP_PATTERN = /^\d{5}(-\d{4})?$/
/** Canada: letter-digit-letter, an optional space or hyphen, digit-letter-digit. */
export const CANADA_ZIP_PATTERN = /^[A-Za-z]\d[A-Za-z][ -]?\d[A-Za-z]\d$/

/** Whether a zip is a US zip or a Canadian postal code; with a country, that country's. */
export function isValidZip(zip: string, country?: CountryCode): boolean {
  if (country === 'US') return US_ZIP_PATTERN.test(zip)
  if (country === 'CA') return CANADA_ZIP_PATTERN.test(zip)
  return US_ZIP_PATTERN.test(zip) || CANADA_ZIP_PATTERN.test(zip)
}

/** A domain with an optional scheme, port and path: `clinic.com`, `https://www.clinic.com/spa`. */
const URL_PATTERN =
  /^(https?:\/\/)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(:\d{1,5})?([/?#]\S*)?$/i

/** Whether a text is a web address of a domain (spec: "URL required, domain pattern"). */
export function isValidPracticeUrl(url: string): boolean {
  return URL_PATTERN.test(url.trim())
}

/** The Nextech credentials, each required when the practice chooses Nextech. */
const NextechDraftSchema = v.object({
  client_id: v.optional(bounded(v.string()), ''),
  username: v.optional(bounded(v.string()), ''),
  password: v.optional(bounded(v.string(), FREE_TEXT_MAX_LENGTH, { anyCharacter: true }), ''),
  nx_practice_id: v.optional(bounded(v.string()), ''),
})
export type NextechSettings = v.InferOutput<typeof NextechDraftSchema>

/** Empty Nextech fields, the form's starting values. */
export const EMPTY_NEXTECH: NextechSettings = {
  client_id: '',
  username: '',
  password: '',
  nx_practice_id: '',
}

const practiceEntries = {
  practice_name: bounded(
    v.pipe(
      requiredString(PRACTICE_MESSAGES.practiceName.required),
      whenFilled((text) => text.trim().length >= 2, PRACTICE_MESSAGES.practiceName.minLength),
    ),
  ),
  office_name: v.optional(bounded(v.string()), ''),
  url: bounded(
    v.pipe(
      requiredString(PRACTICE_MESSAGES.url.required),
      whenFilled(isValidPracticeUrl, PRACTICE_MESSAGES.url.pattern),
    ),
  ),
  practice_phone: v.pipe(
    requiredString(PRACTICE_MESSAGES.practicePhone.required),
    whenFilled((text) => /^\d+$/.test(text), PRACTICE_MESSAGES.practicePhone.digits),
  ),
  practice_email: v.pipe(
    requiredString(PRACTICE_MESSAGES.practiceEmail.required),
    whenFilled((text) => v.is(EmailSchema, text), PRACTICE_MESSAGES.practiceEmail.pattern),
  ),
  practice_address: bounded(
    v.pipe(
      requiredString(PRACTICE_MESSAGES.address.required),
      whenFilled((text) => text.trim().length >= 4, PRACTICE_MESSAGES.address.minLength),
    ),
  ),
  practice_address_2: v.optional(
    bounded(
      v.pipe(
        v.string(),
        whenFilled((text) => text.trim().length >= 4, PRACTICE_MESSAGES.address2.minLength),
      ),
    ),
    '',
  ),
  city: bounded(
    v.pipe(
      requiredString(PRACTICE_MESSAGES.city.required),
      whenFilled((text) => text.trim().length >= 3, PRACTICE_MESSAGES.city.minLength),
    ),
  ),
  practice_zip: v.pipe(
    requiredString(PRACTICE_MESSAGES.zip.required),
    whenFilled((text) => isValidZip(text), PRACTICE_MESSAGES.zip.pattern),
  ),
  state: bounded(requiredString(PRACTICE_MESSAGES.state.required)),
  country: v.optional(
    v.picklist(COUNTRY_CODES, PRACTICE_MESSAGES.country.required),
    DEFAULT_COUNTRY,
  ),
  e_record: v.picklist(E_RECORDS, PRACTICE_MESSAGES.eRecord.required),
  // Kept while the form switches between the choices; dropped on output unless Nextech.
  nextech: v.pipe(
    v.nullish(NextechDraftSchema),
    v.transform((value) => value ?? { ...EMPTY_NEXTECH }),
  ),
}

type PracticeEntriesInput = v.InferOutput<v.ObjectSchema<typeof practiceEntries, undefined>>

/** A Nextech credential is required when the practice chooses Nextech (a forward check). */
function nextechRequired(field: keyof NextechSettings, message: string) {
  type Selection = Pick<PracticeEntriesInput, 'e_record' | 'nextech'>
  return v.forward(
    v.partialCheck<PracticeEntriesInput, [['e_record'], ['nextech']], Selection, string>(
      [['e_record'], ['nextech']],
      (input) => input.e_record !== 'nextech' || (input.nextech?.[field] ?? '').trim() !== '',
      message,
    ),
    ['nextech', field],
  )
}

/**
 * Step 2 (Account Setup): the practice's name, web address, phone, e-mail and address (US zip
 * or Canadian postal code matching the country, a state or province of that country) and the
 * health record choice. With Nextech its four credentials are required, each reported on its
 * own field (`nextech.client_id`, …). The output carries `nextech: null` unless Nextech.
 */
export const PracticeDetailsSchema = v.pipe(
  v.object(practiceEntries),
  v.forward(
    v.partialCheck(
      [['country'], ['practice_zip']],
      (input) => isValidZip(input.practice_zip, input.country),
      PRACTICE_MESSAGES.zip.pattern,
    ),
    ['practice_zip'],
  ),
  v.forward(
    v.partialCheck(
      [['country'], ['state']],
      (input) => isRegionOf(input.country, input.state),
      PRACTICE_MESSAGES.state.notInCountry,
    ),
    ['state'],
  ),
  nextechRequired('client_id', PRACTICE_MESSAGES.nextech.clientId),
  nextechRequired('username', PRACTICE_MESSAGES.nextech.username),
  nextechRequired('password', PRACTICE_MESSAGES.nextech.password),
  nextechRequired('nx_practice_id', PRACTICE_MESSAGES.nextech.nxPracticeId),
  v.transform((input) => ({
    ...input,
    nextech: input.e_record === 'nextech' && input.nextech ? input.nextech : null,
  })),
)
export type PracticeDetails = v.InferOutput<typeof PracticeDetailsSchema>
/** Step 2 as the form holds it. */
export type PracticeDetailsInput = v.InferInput<typeof PracticeDetailsSchema>

/** Whether the practice's health record choice forces the EHR plan. */
export function forcesEhr(practice: { e_record?: string | null } | null | undefined): boolean {
  return practice?.e_record === 'nextech'
}

/** Step 2 without the Nextech password: what may be kept in the browser. */
export function withoutNextechPassword<T extends { nextech?: NextechSettings | null }>(
  values: T,
): T {
  if (!values.nextech) return values
  return { ...values, nextech: { ...values.nextech, password: '' } }
}

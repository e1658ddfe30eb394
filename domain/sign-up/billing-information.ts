import * as v from 'valibot'
import {
  cardLengths,
  checkCardNumber,
  cvvLengths,
  detectCardType,
  normalizeCardNumber,
} from '#domain/cards.ts'
import {
  bounded,
  NAME_MAX_LENGTH,
  requiredString,
  TEXT_MESSAGES,
  whenFilled,
} from '#domain/fields.ts'
import { EXPIRY_YEAR_MAX, EXPIRY_YEAR_MIN } from '#domain/regions.ts'

/** Step 3's messages: the rules come from the product, the words are ours. */
export const BILLING_MESSAGES = {
  cardholder: {
    required: 'Please fill cardholder name field',
    minLength: 'Cardholder name should contain minimum 2 characters',
    pattern: "Cardholder name should contain only letters, spaces, -, _, ` and '",
  },
  cardNumber: {
    required: 'Please fill card number field',
    digits: 'Card number should contain only numbers',
    invalid: 'Card number is invalid',
  },
  expMonth: {
    required: 'Please fill expiration month field',
    range: 'Expiration month should be from 1 to 12',
  },
  expYear: {
    required: 'Please fill expiration year field',
    range: `Expiration year should be from ${EXPIRY_YEAR_MIN} to ${EXPIRY_YEAR_MAX}`,
  },
  expired: 'Card expiration date should be in the future',
  cvv: {
    required: 'Please fill CVV field',
    digits: 'CVV should contain only numbers',
  },
  billingAddress: {
    required: 'Please fill billing address field',
    minLength: 'Billing address should contain minimum 3 characters',
  },
  billingCity: {
    required: 'Please fill billing city field',
    minLength: 'Billing city should contain minimum 3 characters',
  },
  billingState: { required: 'Please fill billing state field' },
  billingZip: {
    required: 'Please fill billing zip field',
    length: 'Billing zip should contain 5 to 9 characters',
  },
  promoCode: { minLength: 'Promo code should contain minimum 6 characters' },
  terms: 'Please accept the Terms and Conditions',
  businessAgreement: 'Please accept the Business Associates Agreement',
  signature: {
    signature: 'Please fill signature field',
    signerName: 'Please fill signer name field',
  },
} as const

/** "15", "13, 16 or 19": a list of lengths in words. */
function listLengths(lengths: readonly number[]): string {
  if (lengths.length <= 1) return String(lengths[0] ?? '')
  return `${lengths.slice(0, -1).join(', ')} or ${lengths.at(-1)}`
}

/** The message for a card number of the wrong length for its type. */
export function cardLengthMessage(lengths: readonly number[]): string {
  return `Card number should contain ${listLengths(lengths)} digits`
}

/** The message for a CVV of the wrong length for the card type. */
export function cvvLengthMessage(lengths: readonly number[]): string {
  return `CVV should contain ${listLengths(lengths)} digits`
}

/** Minimum length of a promo code. */
export const PROMO_CODE_MIN_LENGTH = 6

/** Promo code: optional; when given, at least 6 characters. */
export const PromoCodeSchema = v.optional(
  v.pipe(
    v.string(),
    whenFilled(
      (text) => text.trim().length >= PROMO_CODE_MIN_LENGTH,
      BILLING_MESSAGES.promoCode.minLength,
    ),
  ),
  '',
)

/** Cardholder: required, at least 2, letters, space, hyphen, underscore, backtick, apostrophe. */
export const CardholderNameSchema = v.pipe(
  requiredString(BILLING_MESSAGES.cardholder.required),
  whenFilled((text) => text.trim().length >= 2, BILLING_MESSAGES.cardholder.minLength),
  whenFilled((text) => /^[\p{L} _\-`']+$/u.test(text), BILLING_MESSAGES.cardholder.pattern),
  v.maxLength(NAME_MAX_LENGTH * 2, TEXT_MESSAGES.tooLong(NAME_MAX_LENGTH * 2)),
)

/**
 * Card number: digits only (spaces and hyphens between groups are dropped), a known card type,
 * a valid length for that type, and the Luhn check except for UnionPay. Outputs the digits.
 */
export const CardNumberSchema = v.pipe(
  v.string(BILLING_MESSAGES.cardNumber.required),
  v.transform(normalizeCardNumber),
  v.nonEmpty(BILLING_MESSAGES.cardNumber.required),
  whenFilled((digits) => /^\d+$/.test(digits), BILLING_MESSAGES.cardNumber.digits),
  v.check(
    (digits) => {
      const { problem } = checkCardNumber(digits)
      return problem !== 'length'
    },
    (issue) => {
      const type = detectCardType(String(issue.input))
      return type ? cardLengthMessage(cardLengths(type)) : BILLING_MESSAGES.cardNumber.invalid
    },
  ),
  v.check((digits) => {
    const { problem } = checkCardNumber(digits)
    return problem === null || problem === 'empty' || problem === 'digits' || problem === 'length'
  }, BILLING_MESSAGES.cardNumber.invalid),
)

/** A value a select or a text input gives: a number or its digits. */
const NumberLikeSchema = (message: string) =>
  v.pipe(
    v.union([v.string(), v.number()], message),
    v.transform((value) => String(value).trim()),
    v.nonEmpty(message),
  )

/** Expiry month: required, 1 to 12. Outputs the number. */
export const ExpMonthSchema = v.pipe(
  NumberLikeSchema(BILLING_MESSAGES.expMonth.required),
  v.check(
    (text) => /^\d{1,2}$/.test(text) && Number(text) >= 1 && Number(text) <= 12,
    BILLING_MESSAGES.expMonth.range,
  ),
  v.transform(Number),
)

/** A two-digit year in the century of `now` (`27` → 2027); four digits stay as they are. */
export function expandExpiryYear(text: string, now: Date): number {
  if (/^\d{2}$/.test(text)) return Math.floor(now.getFullYear() / 100) * 100 + Number(text)
  return Number(text)
}

/** Expiry year: required, 2 or 4 digits, 2020 to 2032 once a two-digit year is expanded. */
export function createExpYearSchema(now: () => Date) {
  return v.pipe(
    NumberLikeSchema(BILLING_MESSAGES.expYear.required),
    v.check((text) => /^(\d{2}|\d{4})$/.test(text), BILLING_MESSAGES.expYear.range),
    v.transform((text) => expandExpiryYear(text, now())),
    v.check(
      (year) => year >= EXPIRY_YEAR_MIN && year <= EXPIRY_YEAR_MAX,
      BILLING_MESSAGES.expYear.range,
    ),
  )
}

/** Whether a card expiring at the end of `month`/`year` is still valid on `now`. */
export function isExpiryInFuture(month: number, year: number, now: Date): boolean {
  const currentYear = now.getFullYear()
  const currentMonth = now.getMonth() + 1
  return year > currentYear || (year === currentYear && month >= currentMonth)
}

/** CVV: required, digits; its length is checked against the card type by the card schema. */
export const CvvSchema = v.pipe(
  requiredString(BILLING_MESSAGES.cvv.required),
  whenFilled((text) => /^\d+$/.test(text), BILLING_MESSAGES.cvv.digits),
)

/** Options of the schemas whose rules depend on today. */
export type ClockOptions = {
  /** Today; defaults to the current time, read at each validation. */
  now?: () => Date
}

/**
 * A payment card: number, expiry month and year (in the future; a two-digit year expands with
 * the current century), CVV (4 digits for amex, 3 for other types, 3 or 4 when the type is not
 * known) and the cardholder's name.
 */
export function createCardSchema({ now = () => new Date() }: ClockOptions = {}) {
  return v.pipe(
    v.object({
      number: CardNumberSchema,
      exp_month: ExpMonthSchema,
      exp_year: createExpYearSchema(now),
      cvv: CvvSchema,
      name: CardholderNameSchema,
    }),
    v.forward(
      v.partialCheck(
        [['number'], ['cvv']],
        (input) => cvvLengths(detectCardType(input.number)).includes(input.cvv.length),
        (issue) => {
          const input = issue.input as { number?: unknown }
          const type = detectCardType(String(input.number ?? ''))
          return cvvLengthMessage(cvvLengths(type))
        },
      ),
      ['cvv'],
    ),
    v.forward(
      v.partialCheck(
        [['exp_month'], ['exp_year']],
        (input) => isExpiryInFuture(input.exp_month, input.exp_year, now()),
        BILLING_MESSAGES.expired,
      ),
      ['exp_year'],
    ),
  )
}

/** A payment card checked against the current date. */
export const CardSchema = createCardSchema()
export type Card = v.InferOutput<typeof CardSchema>
export type CardInput = v.InferInput<typeof CardSchema>

/** The billing address fields of step 3. */
export const billingAddressEntries = {
  billing_address_1: bounded(
    v.pipe(
      requiredString(BILLING_MESSAGES.billingAddress.required),
      whenFilled((text) => text.trim().length >= 3, BILLING_MESSAGES.billingAddress.minLength),
    ),
  ),
  billing_address_2: v.optional(bounded(v.string()), ''),
  billing_city: bounded(
    v.pipe(
      requiredString(BILLING_MESSAGES.billingCity.required),
      whenFilled((text) => text.trim().length >= 3, BILLING_MESSAGES.billingCity.minLength),
    ),
  ),
  billing_state: bounded(requiredString(BILLING_MESSAGES.billingState.required)),
  billing_zip: v.pipe(
    requiredString(BILLING_MESSAGES.billingZip.required),
    whenFilled(
      (text) => text.trim().length >= 5 && text.trim().length <= 9,
      BILLING_MESSAGES.billingZip.length,
    ),
  ),
}

/** The billing address on its own (what the payment call carries besides the card token). */
export const BillingAddressSchema = v.object(billingAddressEntries)
export type BillingAddress = v.InferOutput<typeof BillingAddressSchema>

/**
 * Step 3 (Billing Information) as the form holds it: the card, the billing address, the
 * optional promo code and both agreements ticked. The plan and term are the machine's choice,
 * not form fields.
 */
export function createBillingInformationSchema(options: ClockOptions = {}) {
  return v.object({
    card: createCardSchema(options),
    ...billingAddressEntries,
    promo_code: PromoCodeSchema,
    terms: v.literal(true, BILLING_MESSAGES.terms),
    business_agreement: v.literal(true, BILLING_MESSAGES.businessAgreement),
  })
}

/** Step 3 checked against the current date. */
export const BillingInformationSchema = createBillingInformationSchema()
export type BillingInformation = v.InferOutput<typeof BillingInformationSchema>
export type BillingInformationInput = v.InferInput<typeof BillingInformationSchema>

/**
 * The Business Associates Agreement's signature: the signature, the signer's
 * name and the date signed (`YYYY-MM-DD`).
 */
export const AgreementSignatureSchema = v.object({
  signature: requiredString(BILLING_MESSAGES.signature.signature),
  signer_name: requiredString(BILLING_MESSAGES.signature.signerName),
  date: v.pipe(v.string(), v.isoDate()),
})
export type AgreementSignature = v.InferOutput<typeof AgreementSignatureSchema>

import * as v from 'valibot'
import { EMAIL_MAX_LENGTH } from '#domain/auth.ts'
import {
  bounded,
  ConfirmCodeSchema,
  EmailSchema,
  FirstNameSchema,
  LastNameSchema,
  PhoneCountryCodeSchema,
  PositionSchema,
  requiredString,
  TitleSchema,
  WizardPasswordSchema,
  WizardPhoneSchema,
} from '#domain/fields.ts'
import { phoneDigits } from '#domain/practice-data.ts'
import { COUNTRY_CODES } from '#domain/regions.ts'
import { SessionSchema } from '#domain/session.ts'
import {
  AgreementSignatureSchema,
  BILLING_MESSAGES,
  billingAddressEntries,
  CardholderNameSchema,
  PromoCodeSchema,
} from '#domain/sign-up/billing-information.ts'
import { PRACTICE_MESSAGES, PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'

/**
 * The sign-up calls: request and answer
 * shapes shared by the SPA (which builds them) and the server (which re-validates them with the
 * same rules).
 */

/** `POST /auth/check-email`: the e-mail and phone that must still be free. */
export const CheckAvailabilityInputSchema = v.object({
  email: EmailSchema,
  phone: requiredString('Please fill phone number field'),
})
export type CheckAvailabilityInput = v.InferOutput<typeof CheckAvailabilityInputSchema>

/** `POST /auth/get-code`: where the 6-digit code goes. */
export const GetCodeInputSchema = v.object({
  email: EmailSchema,
  phone: WizardPhoneSchema,
  countryCode: PhoneCountryCodeSchema,
  /** The human check's token; required by the server when hCaptcha is configured. */
  captchaToken: v.optional(v.pipe(v.string(), v.maxLength(8192))),
})
export type GetCodeInput = v.InferOutput<typeof GetCodeInputSchema>

/** Answer of `POST /auth/get-code`: the verification id. */
export const GetCodeAnswerSchema = v.object({ authyId: v.pipe(v.string(), v.nonEmpty()) })
export type GetCodeAnswer = v.InferOutput<typeof GetCodeAnswerSchema>

/** `POST /auth/verify-code`: the verification id, the phone and the code typed. */
export const VerifyCodeInputSchema = v.object({
  authyId: v.pipe(v.string(), v.nonEmpty()),
  phone: WizardPhoneSchema,
  code: ConfirmCodeSchema,
})
export type VerifyCodeInput = v.InferOutput<typeof VerifyCodeInputSchema>

/** Answer of `POST /auth/verify-code`. */
export const VerifyCodeAnswerSchema = v.object({ verified: v.boolean() })
export type VerifyCodeAnswer = v.InferOutput<typeof VerifyCodeAnswerSchema>

/** The billing details `POST /auth/pay` creates the customer with (no card data). */
export const PayBillingInformationSchema = v.object({
  name: CardholderNameSchema,
  ...billingAddressEntries,
  country: v.optional(v.picklist(COUNTRY_CODES), 'US'),
})
export type PayBillingInformation = v.InferOutput<typeof PayBillingInformationSchema>

/** `POST /auth/pay`: the one-time card token, the practice e-mail and the billing details. */
export const PayPayloadSchema = v.object({
  token: v.pipe(v.string(), v.nonEmpty()),
  email: EmailSchema,
  billingInformation: PayBillingInformationSchema,
})
export type PayPayload = v.InferOutput<typeof PayPayloadSchema>

/** Answer of `POST /auth/pay`: the customer id, kept as `stripe_id`. */
export const PayAnswerSchema = v.object({ id: v.pipe(v.string(), v.nonEmpty()) })
export type PayAnswer = v.InferOutput<typeof PayAnswerSchema>

const TermMonthsSchema = v.picklist([1, 12])

/**
 * The subscription part of the sign-up payload (`billingInformation`): the plans chosen (basic
 * always, EHR when chosen or forced), the term in months, the promo code, both agreements and
 * the agreement's signature. It never carries card data.
 */
export const SubscriptionChoiceSchema = v.object({
  subscription_basic: v.literal(true),
  subscription_ehr: v.boolean(),
  subscription_months: TermMonthsSchema,
  subscription_months_basic: TermMonthsSchema,
  subscription_months_ehr: v.nullable(TermMonthsSchema),
  /** The plan ids: the Lite plan of the term, then the EHR plan when chosen. */
  plan: v.pipe(v.array(v.pipe(v.string(), v.nonEmpty())), v.minLength(1)),
  promo_code: v.nullish(PromoCodeSchema, null),
  terms: v.literal(true, BILLING_MESSAGES.terms),
  business_agreement: v.literal(true, BILLING_MESSAGES.businessAgreement),
  /** The Business Associates Agreement's signature: accepting it means signing it. */
  sign: v.object(AgreementSignatureSchema.entries, BILLING_MESSAGES.businessAgreement),
})
export type SubscriptionChoice = v.InferOutput<typeof SubscriptionChoiceSchema>

/**
 * `POST /auth/local/register`: the whole sign-up. The server parses the body
 * with this schema, so every field rule of the wizard holds again there; with Nextech the EHR
 * plan must be part of the subscription.
 */
export const SignUpPayloadSchema = v.pipe(
  v.object({
    email: EmailSchema,
    password: WizardPasswordSchema,
    username: bounded(v.pipe(v.string(), v.nonEmpty()), EMAIL_MAX_LENGTH),
    coupon: v.nullish(bounded(v.pipe(v.string(), v.nonEmpty()), 64), null),
    practice: PracticeDetailsSchema,
    billingInformation: SubscriptionChoiceSchema,
    title: TitleSchema,
    first_name: FirstNameSchema,
    last_name: LastNameSchema,
    authyId: bounded(v.pipe(v.string(), v.nonEmpty()), 128),
    cell_phone: WizardPhoneSchema,
    country_code: PhoneCountryCodeSchema,
    position: PositionSchema,
    access_rights: v.literal('Admin'),
    stripe_id: bounded(v.pipe(v.string(), v.nonEmpty())),
    // The spec names the first billing line `billing_address` in this payload.
    billing_address: billingAddressEntries.billing_address_1,
    billing_address_2: billingAddressEntries.billing_address_2,
    billing_city: billingAddressEntries.billing_city,
    billing_state: billingAddressEntries.billing_state,
    billing_zip: billingAddressEntries.billing_zip,
  }),
  v.forward(
    v.partialCheck(
      [
        ['practice', 'e_record'],
        ['billingInformation', 'subscription_ehr'],
      ],
      (input) => input.practice.e_record !== 'nextech' || input.billingInformation.subscription_ehr,
      PRACTICE_MESSAGES.ehrRequired,
    ),
    ['billingInformation', 'subscription_ehr'],
  ),
)
export type SignUpPayload = v.InferOutput<typeof SignUpPayloadSchema>
export type SignUpPayloadInput = v.InferInput<typeof SignUpPayloadSchema>

/**
 * Answer of `POST /auth/local/register`: the new Admin signed in, the same session a sign-in
 * answers, with the new Admin user in `user`.
 */
export const SignUpAnswerSchema = SessionSchema
export type SignUpAnswer = v.InferOutput<typeof SignUpAnswerSchema>

/** The availability answers of `POST /auth/check-email` (the wizard matches on these texts). */
export const AVAILABILITY_MESSAGES = {
  ok: 'OK',
  emailTaken: 'Email is already taken.',
  phoneTaken: 'Phone number is already taken.',
} as const

/** A phone has 7 to 15 digits once spaces, dashes, brackets and the plus sign are dropped. */
const hasPhoneDigits = (text: string) => {
  const digits = phoneDigits(text).length
  return digits >= 7 && digits <= 15
}

/**
 * Body of `POST /auth/check-email`: the domain's shape, and a phone of digits (the wizard's own
 * phone or the practice's). Step 2 sends the practice phone, whose rule is looser than step 1's.
 */
export const CheckEmailBodySchema = v.pipe(
  CheckAvailabilityInputSchema,
  v.forward(
    v.partialCheck(
      [['phone']],
      (input) => /^\+?[\d\s().-]+$/.test(input.phone) && hasPhoneDigits(input.phone),
      'Phone number should contain only numbers',
    ),
    ['phone'],
  ),
)

/**
 * Body of `POST /auth/local/register`: the domain's {@link SignUpPayloadSchema}, every field
 * re-validated. `access_rights` is set to Admin before validation: the first user of a new
 * practice is its Admin whatever the client sent.
 */
export const RegisterBodySchema = v.pipe(
  v.looseObject({}),
  v.transform((body) => ({ ...body, access_rights: 'Admin' })),
  SignUpPayloadSchema,
)

const Digits = (max: number) =>
  v.union([
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10 ** max - 1)),
    v.pipe(v.string(), v.trim(), v.maxLength(max)),
  ])

/** The card the browser posts: Stripe's card shape. The tokeniser checks the values themselves. */
export const TestCardBodySchema = v.object({
  number: v.pipe(v.string('Your card number is incorrect.'), v.maxLength(30)),
  exp_month: Digits(2),
  exp_year: Digits(4),
  cvc: v.pipe(v.string("Your card's security code is invalid."), v.maxLength(4)),
  name: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
})

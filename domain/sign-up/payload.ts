import type { Plan } from '#domain/plans.ts'
import { selectedPlanIds, type Term, termMonths } from '#domain/pricing.ts'
import type { CountryCode } from '#domain/regions.ts'
import type { PayBillingInformation, SignUpPayloadInput } from '#domain/sign-up/api.ts'
import type { AgreementSignature, BillingAddress } from '#domain/sign-up/billing-information.ts'
import type { ClientDetails } from '#domain/sign-up/client-details.ts'
import { forcesEhr, type PracticeDetails } from '#domain/sign-up/practice-details.ts'

/** Everything the wizard has gathered by Submit. */
export type SignUpParts = {
  clientDetails: ClientDetails
  /** The verification id of the verified phone. */
  authyId: string
  practice: PracticeDetails
  billingAddress: BillingAddress
  plans: readonly Plan[]
  term: Term
  /** Whether the EHR add-on was ticked; Nextech forces it regardless. */
  ehr: boolean
  /** The applied promo code (coupon id), or null. */
  coupon: string | null
  /** The customer id `POST /auth/pay` answered. */
  stripeId: string
  signature: AgreementSignature
}

/**
 * The body of `POST /auth/local/register` from the wizard's steps: the person
 * becomes the practice's Admin, the username is the e-mail, and the subscription names the plan
 * ids of the chosen term (EHR included when chosen or forced by Nextech).
 */
export function buildSignUpPayload(parts: SignUpParts): SignUpPayloadInput {
  const { clientDetails, practice, billingAddress, term } = parts
  const ehr = parts.ehr || forcesEhr(practice)
  const months = termMonths(term)
  return {
    email: clientDetails.email,
    password: clientDetails.password,
    username: clientDetails.email,
    coupon: parts.coupon,
    practice,
    billingInformation: {
      subscription_basic: true,
      subscription_ehr: ehr,
      subscription_months: months,
      subscription_months_basic: months,
      subscription_months_ehr: ehr ? months : null,
      plan: selectedPlanIds(parts.plans, term, ehr),
      promo_code: parts.coupon,
      terms: true,
      business_agreement: true,
      sign: parts.signature,
    },
    title: clientDetails.title,
    first_name: clientDetails.name,
    last_name: clientDetails.last_name,
    authyId: parts.authyId,
    cell_phone: clientDetails.phone,
    country_code: clientDetails.country_code,
    position: clientDetails.position,
    access_rights: 'Admin',
    stripe_id: parts.stripeId,
    billing_address: billingAddress.billing_address_1,
    billing_address_2: billingAddress.billing_address_2,
    billing_city: billingAddress.billing_city,
    billing_state: billingAddress.billing_state,
    billing_zip: billingAddress.billing_zip,
  }
}

/** The billing details of `POST /auth/pay`: the cardholder and the billing address. */
export function buildPayBillingInformation(
  cardholder: string,
  billingAddress: BillingAddress,
  country: CountryCode,
): PayBillingInformation {
  return {
    name: cardholder,
    billing_address_1: billingAddress.billing_address_1,
    billing_address_2: billingAddress.billing_address_2,
    billing_city: billingAddress.billing_city,
    billing_state: billingAddress.billing_state,
    billing_zip: billingAddress.billing_zip,
    country,
  }
}

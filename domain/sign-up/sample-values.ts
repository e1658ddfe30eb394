/**
 * Sample values of the sign-up wizard: what test mode pre-fills. Part of the
 * product; tests reuse them as valid input.
 */
import type { PayBillingInformation } from '#domain/sign-up/api.ts'
import type {
  AgreementSignature,
  BillingAddress,
  BillingInformationInput,
} from '#domain/sign-up/billing-information.ts'
import type { ClientDetailsInput } from '#domain/sign-up/client-details.ts'
import type { PracticeDetailsInput } from '#domain/sign-up/practice-details.ts'

/** Values that fill the wizard's steps with valid data in test mode. */
export type SignUpSampleValues = {
  clientDetails: ClientDetailsInput
  practiceDetails: PracticeDetailsInput
  billingInformation: BillingInformationInput
}

/** The Business Associates Agreement signed by `name` today: what accepting it sends. */
export function sampleSignature(name = 'Jane Doe'): AgreementSignature {
  return { signature: name, signer_name: name, date: new Date().toISOString().slice(0, 10) }
}

/** The sample billing address: the sample practice's street. */
export const SAMPLE_BILLING_ADDRESS: BillingAddress = {
  billing_address_1: '100 Main Street',
  billing_address_2: '',
  billing_city: 'Springfield',
  billing_state: 'IL',
  billing_zip: '62701',
}

/** The billing details `POST /auth/pay` carries for the sample values (cardholder Jane Doe, US). */
export const SAMPLE_PAY_BILLING_INFORMATION: PayBillingInformation = {
  name: 'Jane Doe',
  ...SAMPLE_BILLING_ADDRESS,
  country: 'US',
}

/** Stripe's always-succeeding test card, which the test gateway also accepts. */
export const TEST_CARD_NUMBER = '4242424242424242'

/**
 * A North American test number from any 10 digits: the area code is kept, and an exchange code
 * the numbering plan does not allow (starting with 0 or 1, or N11) is moved to an allowed one, so
 * that numbers made from a time stamp or a counter pass `POST /auth/get-code`'s NANP rule while
 * staying as unique as the digits they came from (0 and 1 become 8 and 9; x11 becomes x10).
 */
export function nanpTestPhone(tenDigits: string): string {
  const digits = tenDigits.replace(/\D/g, '').padStart(10, '0').slice(-10)
  const area = digits.slice(0, 3)
  let exchange = digits.slice(3, 6)
  if (exchange[0] === '0') exchange = `8${exchange.slice(1)}`
  if (exchange[0] === '1') exchange = `9${exchange.slice(1)}`
  if (exchange.slice(1) === '11') exchange = `${exchange[0]}10`
  return `${area}${exchange}${digits.slice(6)}`
}

/**
 * Valid values for every step. `seed` makes the practice e-mail and phone unique, so repeated
 * sign-ups in test mode pass the availability check. In test mode on localhost the wizard
 * pre-fills steps 2 onward from these; step 1 (the person and the phone that receives the
 * code) is always typed.
 */
export function createSignUpSampleValues(seed: number): SignUpSampleValues {
  const suffix = String(Math.abs(Math.trunc(seed)) % 10_000_000).padStart(7, '0')
  return {
    clientDetails: {
      title: 'Dr.',
      name: 'Jane',
      last_name: 'Doe',
      country_code: '+1',
      phone: nanpTestPhone(`555${suffix}`),
      email: `jane.${suffix}@example.com`,
      password: 'Glow!Pass123',
      password_confirm: 'Glow!Pass123',
      position: 'Provider',
    },
    practiceDetails: {
      practice_name: 'Glow Test Clinic',
      office_name: 'Main Office',
      url: 'www.glow-test-clinic.example.com',
      practice_phone: `444${suffix}`,
      practice_email: `practice.${suffix}@example.com`,
      practice_address: '100 Main Street',
      practice_address_2: '',
      city: 'Springfield',
      practice_zip: '62701',
      state: 'IL',
      country: 'US',
      e_record: 'no_integration',
      nextech: null,
    },
    billingInformation: {
      card: {
        number: TEST_CARD_NUMBER,
        exp_month: '12',
        exp_year: '2030',
        cvv: '123',
        name: 'Jane Doe',
      },
      ...SAMPLE_BILLING_ADDRESS,
      promo_code: '',
      terms: true,
      business_agreement: true,
    },
  }
}

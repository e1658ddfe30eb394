import type { BillingInformationInput } from '#domain/sign-up/billing-information.ts'
import type { ClientDetailsInput } from '#domain/sign-up/client-details.ts'
import type { PracticeDetailsInput } from '#domain/sign-up/practice-details.ts'

/** Values that fill the wizard's steps with valid data in test mode (spec section 2). */
export type SignUpTestFixtures = {
  clientDetails: ClientDetailsInput
  practiceDetails: PracticeDetailsInput
  billingInformation: BillingInformationInput
}

/** Stripe's always-succeeding test card, which the test gateway also accepts. */
export const TEST_CARD_NUMBER = '4242424242424242'

/**
 * Valid values for every step. `seed` makes the practice e-mail and phone unique, so repeated
 * sign-ups in test mode pass the availability check. In test mode on localhost the wizard
 * pre-fills steps 2 onward from these; step 1 (the person and the phone that receives the
 * code) is always typed.
 */
export function createSignUpTestFixtures(seed: number): SignUpTestFixtures {
  const suffix = String(Math.abs(Math.trunc(seed)) % 10_000_000).padStart(7, '0')
  return {
    clientDetails: {
      title: 'Dr.',
      name: 'Jane',
      last_name: 'Doe',
      country_code: '+1',
      phone: `555${suffix}`,
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
      billing_address_1: '100 Main Street',
      billing_address_2: '',
      billing_city: 'Springfield',
      billing_state: 'IL',
      billing_zip: '62701',
      promo_code: '',
      terms: true,
      business_agreement: true,
    },
  }
}

import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import type { Plan } from '#domain/plans.ts'
import {
  CheckAvailabilityInputSchema,
  GetCodeInputSchema,
  PayPayloadSchema,
  SignUpPayloadSchema,
  VerifyCodeInputSchema,
} from '#domain/sign-up/api.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { availabilityFailureMessage, SIGN_UP_MESSAGES } from '#domain/sign-up/messages.ts'
import { buildPayBillingInformation, buildSignUpPayload } from '#domain/sign-up/payload.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import {
  createSignUpSampleValues,
  SAMPLE_PAY_BILLING_INFORMATION,
  sampleSignature,
} from '#domain/sign-up/sample-values.ts'

const fixtures = createSignUpSampleValues(4)
const clientDetails = v.parse(ClientDetailsSchema, fixtures.clientDetails)
const practice = v.parse(PracticeDetailsSchema, fixtures.practiceDetails)
const billing = v.parse(BillingInformationSchema, fixtures.billingInformation)
const plans: Plan[] = [
  {
    id: 'lite-m',
    nickname: 'Glow Monthly Lite',
    interval: 'month',
    interval_count: 1,
    amount: 9900,
    tiers: null,
  },
  {
    id: 'lite-y',
    nickname: 'Glow Yearly Lite',
    interval: 'year',
    interval_count: 1,
    amount: 106800,
    tiers: null,
  },
  {
    id: 'ehr-m',
    nickname: 'Glow EHR Monthly',
    interval: 'month',
    interval_count: 1,
    amount: 49900,
    tiers: null,
  },
  {
    id: 'ehr-y',
    nickname: 'Glow EHR Yearly',
    interval: 'year',
    interval_count: 1,
    amount: 540000,
    tiers: null,
  },
]

function payload(overrides: Partial<Parameters<typeof buildSignUpPayload>[0]> = {}) {
  return buildSignUpPayload({
    clientDetails,
    authyId: 'authy-1',
    practice,
    billingAddress: billing,
    plans,
    term: 'month',
    ehr: false,
    coupon: null,
    stripeId: 'cus_1',
    signature: sampleSignature(),
    ...overrides,
  })
}

describe('availability failures', () => {
  it('maps the taken texts and everything else', () => {
    expect(availabilityFailureMessage('Email is already taken.')).toBe(
      'Phone or email is already taken',
    )
    expect(availabilityFailureMessage('Phone number is already taken.')).toBe(
      'Phone or email is already taken',
    )
    expect(availabilityFailureMessage('Error: Email is already taken. (409)')).toBe(
      'Phone or email is already taken',
    )
    expect(availabilityFailureMessage('Network down')).toBe(
      'Ooops, something going wrong please try again',
    )
    expect(SIGN_UP_MESSAGES.codeSent).toBe('Confirmation Code is sent')
    expect(SIGN_UP_MESSAGES.incorrectCode).toBe('Incorrect Confirmation Code entered')
  })
})

describe('call bodies', () => {
  it('validate the phone verification and availability bodies', () => {
    expect(v.is(CheckAvailabilityInputSchema, { email: 'a@b.co', phone: '5551234' })).toBe(true)
    expect(v.is(CheckAvailabilityInputSchema, { email: 'nope', phone: '5551234' })).toBe(false)
    expect(
      v.is(GetCodeInputSchema, { email: 'a@b.co', phone: '+5551234567', countryCode: '+1' }),
    ).toBe(true)
    expect(v.is(GetCodeInputSchema, { email: 'a@b.co', phone: '12', countryCode: '+1' })).toBe(
      false,
    )
    expect(v.is(VerifyCodeInputSchema, { authyId: 'x', phone: '5551234', code: '123456' })).toBe(
      true,
    )
    expect(v.is(VerifyCodeInputSchema, { authyId: 'x', phone: '5551234', code: '123' })).toBe(false)
  })

  it('the pay body carries the token and billing details, never the card', () => {
    const body = {
      token: 'tok_1',
      email: practice.practice_email,
      billingInformation: buildPayBillingInformation('Jane Doe', billing, 'US'),
    }
    const parsed = v.parse(PayPayloadSchema, body)
    expect(parsed.billingInformation).toEqual(SAMPLE_PAY_BILLING_INFORMATION)
    expect(JSON.stringify(parsed)).not.toContain('4242')
  })
})

describe('sign-up payload', () => {
  it('builds a body the server schema accepts', () => {
    const body = payload()
    const parsed = v.parse(SignUpPayloadSchema, body)
    expect(parsed).toMatchObject({
      email: clientDetails.email,
      username: clientDetails.email,
      first_name: 'Jane',
      last_name: 'Doe',
      cell_phone: clientDetails.phone,
      country_code: '+1',
      position: 'Provider',
      access_rights: 'Admin',
      stripe_id: 'cus_1',
      authyId: 'authy-1',
      coupon: null,
      billing_address: '100 Main Street',
      billing_city: 'Springfield',
      billing_state: 'IL',
      billing_zip: '62701',
      billingInformation: {
        subscription_basic: true,
        subscription_ehr: false,
        subscription_months: 1,
        subscription_months_basic: 1,
        subscription_months_ehr: null,
        plan: ['lite-m'],
        terms: true,
        business_agreement: true,
      },
    })
    expect(JSON.stringify(parsed)).not.toContain('4242')
  })

  it('names the yearly plans, the EHR add-on and the coupon', () => {
    const body = payload({ term: 'year', ehr: true, coupon: 'WELCOME10' })
    expect(body.billingInformation).toMatchObject({
      subscription_ehr: true,
      subscription_months: 12,
      subscription_months_ehr: 12,
      plan: ['lite-y', 'ehr-y'],
      promo_code: 'WELCOME10',
    })
    expect(body.coupon).toBe('WELCOME10')
  })

  it('Nextech forces the EHR plan, and the server refuses a Nextech body without it', () => {
    const nextechPractice = v.parse(PracticeDetailsSchema, {
      ...fixtures.practiceDetails,
      e_record: 'nextech',
      nextech: { client_id: 'c', username: 'u', password: 'p', nx_practice_id: 'n' },
    })
    const body = payload({ practice: nextechPractice })
    expect(body.billingInformation.subscription_ehr).toBe(true)
    expect(body.billingInformation.plan).toEqual(['lite-m', 'ehr-m'])
    const tampered = {
      ...body,
      billingInformation: { ...body.billingInformation, subscription_ehr: false },
    }
    const result = v.safeParse(SignUpPayloadSchema, tampered)
    expect(result.success).toBe(false)
    expect(result.issues?.map((issue) => issue.message)).toContain(
      'The Nextech integration needs the EHR plan',
    )
  })

  it('re-validates every field rule on the server', () => {
    const body = payload()
    const result = v.safeParse(SignUpPayloadSchema, {
      ...body,
      password: 'weak',
      first_name: 'J',
      practice: { ...body.practice, practice_zip: '1' },
      access_rights: 'Staff',
    })
    expect(result.success).toBe(false)
    const messages = result.issues?.map((issue) => issue.message) ?? []
    expect(messages).toContain(
      'At least 8 characters in length, lowercase letters, uppercase letters, numbers and special characters.',
    )
    expect(messages).toContain('First name should contain minimum 2 characters')
    expect(messages).toContain('Incorrect zip code entered!')
    expect(result.issues?.some((issue) => v.getDotPath(issue) === 'access_rights')).toBe(true)
  })
})

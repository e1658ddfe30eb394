import { describe, expect, it } from 'vitest'
import {
  parseBillingAddress,
  parsePracticeDetails,
  parseStoredSignUp,
  SIGN_UP_STEP_LABELS,
  SIGN_UP_STEPS,
} from '#domain/sign-up/progress.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'

const fixtures = createSignUpSampleValues(9)

function stored(overrides: Record<string, unknown> = {}) {
  return {
    version: 1,
    step: 'billing',
    drafts: {
      clientDetails: fixtures.clientDetails,
      accountSetup: {
        ...fixtures.practiceDetails,
        nextech: { client_id: 'c', username: 'u', password: 'nx-secret', nx_practice_id: 'n' },
      },
      billing: { ...fixtures.billingInformation, confirm_code: '987654' },
    },
    verifiedPhone: { authyId: 'a', phone: '5551234567' },
    country: 'US',
    plans: [],
    publicCoupons: [],
    term: 'month',
    ehrChosen: false,
    coupon: null,
    stripeId: null,
    paidCard: null,
    signature: null,
    ...overrides,
  }
}

describe('stored progress', () => {
  it('names the four steps', () => {
    expect(SIGN_UP_STEPS.map((step) => SIGN_UP_STEP_LABELS[step])).toEqual([
      'Client Information',
      'Account Setup',
      'Billing Information',
      'Confirmation',
    ])
  })

  it('drops passwords, the card number, the CVV and the code whatever is passed', () => {
    const parsed = parseStoredSignUp(stored())
    const text = JSON.stringify(parsed)
    expect(parsed?.step).toBe('billing')
    for (const secret of [
      'Glow!Pass123',
      'nx-secret',
      '4242424242424242',
      '"cvv"',
      '987654',
      'confirm_code',
    ])
      expect(text).not.toContain(secret)
    expect(parsed?.drafts.clientDetails.email).toBe(fixtures.clientDetails.email)
    expect(parsed?.drafts.billing.card).toEqual({
      exp_month: '12',
      exp_year: '2030',
      name: 'Jane Doe',
    })
  })

  it('drops a field of the wrong kind instead of the whole progress', () => {
    const raw = stored()
    const parsed = parseStoredSignUp({
      ...raw,
      drafts: { ...raw.drafts, clientDetails: { name: 42, email: 'a@b.co' } },
    })
    expect(parsed?.drafts.clientDetails).toEqual({ name: undefined, email: 'a@b.co' })
  })

  it('refuses what is not progress of this version', () => {
    expect(parseStoredSignUp(null)).toBeNull()
    expect(parseStoredSignUp('text')).toBeNull()
    expect(parseStoredSignUp(stored({ version: 2 }))).toBeNull()
    expect(parseStoredSignUp(stored({ step: 'elsewhere' }))).toBeNull()
  })

  it('resumes step 4 only with the payment and the billing address it was made with', () => {
    const card = { last4: '4242', type: 'visa', name: 'Jane Doe', exp_month: 12, exp_year: 2030 }
    const paid = { stripeId: 'cus_9', paidCard: card }
    expect(parseStoredSignUp(stored({ step: 'confirmation', ...paid }))).toMatchObject({
      step: 'confirmation',
      ...paid,
    })
    expect(parseStoredSignUp(stored({ step: 'confirmation' }))?.step).toBe('billing')
  })

  it('drops a payment whose billing address is gone, so that step 3 is open again', () => {
    const card = { last4: '4242', type: 'visa', name: 'Jane Doe', exp_month: 12, exp_year: 2030 }
    const raw = stored({ step: 'confirmation', stripeId: 'cus_9', paidCard: card })
    for (const billing of [
      { promo_code: '' },
      { ...fixtures.billingInformation, billing_zip: '12' },
      { ...fixtures.billingInformation, billing_city: undefined },
    ]) {
      const parsed = parseStoredSignUp({ ...raw, drafts: { ...raw.drafts, billing } })
      expect(parsed).toMatchObject({ step: 'billing', stripeId: null, paidCard: null })
      // The rest of the progress stays: the drafts as typed, the phone, the plan choice.
      expect(parsed?.drafts.accountSetup.practice_name).toBe('Glow Test Clinic')
      expect(parsed?.drafts.billing.promo_code).toBe(billing.promo_code)
      expect(parsed?.verifiedPhone).toEqual({ authyId: 'a', phone: '5551234567' })
    }
    // On an earlier step (Back after paying), the same payment is dropped and the step kept.
    const earlier = parseStoredSignUp({
      ...raw,
      step: 'accountSetup',
      drafts: { ...raw.drafts, billing: { promo_code: '' } },
    })
    expect(earlier).toMatchObject({ step: 'accountSetup', stripeId: null, paidCard: null })
    // A paid card without its payment is not kept either.
    expect(parseStoredSignUp(stored({ paidCard: card }))?.paidCard).toBeNull()
  })

  it('keeps a payment on an earlier step when its billing address is there', () => {
    const parsed = parseStoredSignUp(stored({ step: 'accountSetup', stripeId: 'cus_9' }))
    expect(parsed).toMatchObject({ step: 'accountSetup', stripeId: 'cus_9' })
  })

  it('commits a draft only when it passes the step rules', () => {
    expect(parsePracticeDetails(fixtures.practiceDetails)?.practice_name).toBe('Glow Test Clinic')
    expect(parsePracticeDetails({ practice_name: 'X' })).toBeNull()
    expect(parseBillingAddress(fixtures.billingInformation)?.billing_zip).toBe('62701')
    expect(parseBillingAddress({})).toBeNull()
  })
})

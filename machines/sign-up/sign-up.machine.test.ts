import * as v from 'valibot'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, waitFor } from 'xstate'
import type { Coupon, PlansAnswer } from '#domain/plans.ts'
import {
  type CheckAvailabilityInput,
  type GetCodeAnswer,
  type GetCodeInput,
  type SignUpAnswer,
  type SignUpPayloadInput,
  SignUpPayloadSchema,
  type VerifyCodeAnswer,
  type VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { SAMPLE_PAY_BILLING_INFORMATION } from '#domain/sign-up/sample-values.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  type LockPaymentInput,
  type LockPaymentOutput,
  restoreSignUpInput,
  type SignUpInput,
  signUpMachine,
  TOKENISATION_ERROR_NAME,
} from '#machines/sign-up/sign-up.machine.ts'
import {
  selectAlert,
  selectBusy,
  selectCountry,
  selectDrafts,
  selectOpenDocument,
  selectPaymentLocked,
  selectPersistable,
  selectPhoneVerificationRef,
  selectPlanChoice,
  selectPricing,
  selectPromo,
  selectReview,
  selectSignature,
  selectStateOptions,
  selectStep,
  selectStepIndex,
  selectTermOptions,
  selectVerifiedPhone,
} from '#machines/sign-up/sign-up.selectors.ts'
import { fixturePlansAnswer, signUpFixtures } from '#tests/flows/sign-up/model.ts'
import { controlled } from '#tests/support/deferred.ts'

// The fixtures of the flow model (tests/flows/sign-up/model.ts).
const fixtures = signUpFixtures.formValues
const { clientDetails, practice, billing, nextechPractice } = signUpFixtures
const nextech = nextechPractice.nextech as NonNullable<typeof nextechPractice.nextech>
const WELCOME10: Coupon = signUpFixtures.publicCoupon
const SAVE50OFF: Coupon = signUpFixtures.privateCoupon
const PLANS_ANSWER: PlansAnswer = fixturePlansAnswer

function start(input: SignUpInput = {}) {
  const sendCode = controlled<GetCodeAnswer, GetCodeInput>()
  const verifyCode = controlled<VerifyCodeAnswer, VerifyCodeInput>()
  const checkAvailability = controlled<string, CheckAvailabilityInput>()
  const loadPlans = controlled<PlansAnswer, void>()
  const lookupCoupon = controlled<Coupon, { code: string }>()
  const lockPayment = controlled<LockPaymentOutput, LockPaymentInput>()
  const submitSignUp = controlled<SignUpAnswer, SignUpPayloadInput>()
  const backToSignIn = vi.fn()
  const submitted = vi.fn()
  const machine = signUpMachine.provide({
    actors: {
      phoneVerification: phoneVerificationMachine.provide({
        actors: { sendCode: sendCode.logic, verifyCode: verifyCode.logic },
      }),
      checkAvailability: checkAvailability.logic,
      loadPlans: loadPlans.logic,
      lookupCoupon: lookupCoupon.logic,
      lockPayment: lockPayment.logic,
      submitSignUp: submitSignUp.logic,
    },
    actions: {
      onBackToSignIn: backToSignIn,
      onSubmitted: (_, params) => submitted(params.answer),
    },
  })
  const actor = createActor(machine, { input }).start()
  return {
    actor,
    snapshot: () => actor.getSnapshot(),
    calls: {
      sendCode,
      verifyCode,
      checkAvailability,
      loadPlans,
      lookupCoupon,
      lockPayment,
      submitSignUp,
    },
    backToSignIn,
    submitted,
  }
}
type Harness = ReturnType<typeof start>

async function verifyPhone(h: Harness, phone = clientDetails.phone) {
  const child = selectPhoneVerificationRef(h.snapshot())
  if (!child) throw new Error('no phone verification running')
  child.send({
    type: 'fields.change',
    valid: true,
    target: { email: clientDetails.email, phone, countryCode: '+1' },
  })
  child.send({ type: 'code.send' })
  h.calls.sendCode.calls.at(-1)?.answer.resolve({ authyId: 'authy-42' })
  await waitFor(child, (s) => s.matches('codeSent'))
  child.send({ type: 'code.change', code: '123456' })
  child.send({ type: 'code.verify' })
  h.calls.verifyCode.calls.at(-1)?.answer.resolve({ verified: true })
  await waitFor(h.actor, (s) => s.context.verifiedPhone !== null)
}

async function passStep1(h: Harness) {
  await verifyPhone(h)
  h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
  h.calls.checkAvailability.calls.at(-1)?.answer.resolve('OK')
  await waitFor(h.actor, (s) => s.matches({ accountSetup: 'editing' }))
}

async function passStep2(h: Harness, values = practice) {
  h.actor.send({ type: 'accountSetup.continue', values })
  h.calls.checkAvailability.calls.at(-1)?.answer.resolve('OK')
  await waitFor(h.actor, (s) => s.matches('billing'))
  if (h.snapshot().matches({ billing: 'loadingPlans' })) {
    h.calls.loadPlans.calls.at(-1)?.answer.resolve(PLANS_ANSWER)
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
  }
}

async function passStep3(h: Harness) {
  // Accepting the agreement is signing it: the view ticks its box only then.
  h.actor.send({ type: 'agreement.open' })
  h.actor.send({ type: 'agreement.sign', signature: 'J. Doe', signer_name: 'Jane Doe' })
  h.actor.send({ type: 'view.close' })
  h.actor.send({ type: 'billing.continue', values: billing })
  h.calls.lockPayment.calls.at(-1)?.answer.resolve({ id: 'cus_42' })
  await waitFor(h.actor, (s) => s.matches('confirmation'))
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 5, 15, 9, 0, 0), toFake: ['Date'] })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('step 1: client information', () => {
  it('starts on step 1 with the phone verification running', () => {
    const h = start()
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
    expect(selectStep(h.snapshot())).toBe('clientDetails')
    expect(selectStepIndex(h.snapshot())).toBe(0)
    expect(selectPhoneVerificationRef(h.snapshot())?.getSnapshot().value).toBe('idle')
    expect(selectDrafts(h.snapshot()).accountSetup).toEqual({})
  })

  it('Back on step 1 leaves to Sign In', () => {
    const h = start()
    h.actor.send({ type: 'step.back' })
    expect(h.backToSignIn).toHaveBeenCalledTimes(1)
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
  })

  it('Continue needs the verified phone', async () => {
    const h = start()
    h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
    expect(selectAlert(h.snapshot())).toEqual({
      kind: 'danger',
      message: 'Please verify your phone number first',
    })
    await verifyPhone(h, '5550009999')
    h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
    expect(h.calls.checkAvailability.calls).toHaveLength(0)
  })

  it('keeps the verified phone and checks the e-mail and phone on Continue', async () => {
    const h = start()
    await verifyPhone(h)
    expect(selectVerifiedPhone(h.snapshot())).toEqual({
      authyId: 'authy-42',
      phone: clientDetails.phone,
    })
    expect(selectPhoneVerificationRef(h.snapshot())?.getSnapshot().value).toBe('verified')
    h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    expect(h.snapshot().value).toEqual({ clientDetails: 'checkingAvailability' })
    expect(selectBusy(h.snapshot())).toBe('checkingAvailability')
    expect(h.calls.checkAvailability.calls[0]?.input).toEqual({
      email: clientDetails.email,
      phone: clientDetails.phone,
    })
    h.calls.checkAvailability.calls[0]?.answer.resolve('OK')
    await waitFor(h.actor, (s) => s.matches({ accountSetup: 'editing' }))
    expect(selectStepIndex(h.snapshot())).toBe(1)
    expect(selectAlert(h.snapshot())).toBeNull()
  })

  it.each([
    ['Email is already taken.', 'Phone or email is already taken'],
    ['Phone number is already taken.', 'Phone or email is already taken'],
    ['Service Unavailable', 'Ooops, something going wrong please try again'],
  ])('a failed check (%s) stays on step 1 with %j', async (serverText, message) => {
    const h = start()
    await verifyPhone(h)
    h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    h.calls.checkAvailability.calls[0]?.answer.reject(new Error(serverText))
    await waitFor(h.actor, (s) => s.matches({ clientDetails: 'editing' }))
    expect(selectAlert(h.snapshot())).toEqual({ kind: 'danger', message })
    h.actor.send({ type: 'alert.dismiss' })
    expect(selectAlert(h.snapshot())).toBeNull()
  })
})

describe('step 2: account setup', () => {
  it('Back returns to step 1 with the phone still verified', async () => {
    const h = start()
    await passStep1(h)
    h.actor.send({ type: 'step.back' })
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
    expect(selectVerifiedPhone(h.snapshot())?.phone).toBe(clientDetails.phone)
    expect(h.calls.sendCode.calls).toHaveLength(1)
    expect(selectDrafts(h.snapshot()).clientDetails.email).toBe(clientDetails.email)
    // Continue again works without a new code.
    h.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    expect(h.snapshot().value).toEqual({ clientDetails: 'checkingAvailability' })
  })

  it('Canada switches the state list to the provinces', async () => {
    const h = start()
    await passStep1(h)
    expect(selectCountry(h.snapshot())).toBe('US')
    expect(selectStateOptions(h.snapshot())).toHaveLength(51)
    h.actor.send({ type: 'practice.countryChange', country: 'CA' })
    expect(selectStateOptions(h.snapshot())).toHaveLength(13)
    expect(selectStateOptions(h.snapshot()).map((r) => r.code)).toContain('ON')
  })

  it('checks the practice e-mail and phone; a failure stays on step 2', async () => {
    const h = start()
    await passStep1(h)
    h.actor.send({ type: 'accountSetup.continue', values: practice })
    expect(h.snapshot().value).toEqual({ accountSetup: 'checkingAvailability' })
    expect(h.calls.checkAvailability.calls[1]?.input).toEqual({
      email: practice.practice_email,
      phone: practice.practice_phone,
    })
    h.calls.checkAvailability.calls[1]?.answer.reject(new Error('Email is already taken.'))
    await waitFor(h.actor, (s) => s.matches({ accountSetup: 'editing' }))
    expect(selectAlert(h.snapshot())?.message).toBe('Phone or email is already taken')
  })

  it('loads the plans once on the way to step 3', async () => {
    const h = start()
    await passStep1(h)
    h.actor.send({ type: 'accountSetup.continue', values: practice })
    h.calls.checkAvailability.calls[1]?.answer.resolve('OK')
    await waitFor(h.actor, (s) => s.matches({ billing: 'loadingPlans' }))
    expect(selectStepIndex(h.snapshot())).toBe(2)
    expect(selectBusy(h.snapshot())).toBe('loadingPlans')
    h.calls.loadPlans.calls[0]?.answer.resolve(PLANS_ANSWER)
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
    h.actor.send({ type: 'step.back' })
    expect(h.snapshot().value).toEqual({ accountSetup: 'editing' })
    await passStep2(h)
    expect(h.calls.loadPlans.calls).toHaveLength(1)
  })

  it('a failed plan load can be retried or left', async () => {
    const h = start()
    await passStep1(h)
    h.actor.send({ type: 'accountSetup.continue', values: practice })
    h.calls.checkAvailability.calls[1]?.answer.resolve('OK')
    await waitFor(h.actor, (s) => s.matches({ billing: 'loadingPlans' }))
    h.calls.loadPlans.calls[0]?.answer.reject(new Error('Service Unavailable'))
    await waitFor(h.actor, (s) => s.matches({ billing: 'plansFailed' }))
    expect(selectAlert(h.snapshot())?.message).toBe('Service Unavailable')
    h.actor.send({ type: 'plans.retry' })
    expect(h.snapshot().value).toEqual({ billing: 'loadingPlans' })
    h.calls.loadPlans.calls[1]?.answer.reject(new Error('Service Unavailable'))
    await waitFor(h.actor, (s) => s.matches({ billing: 'plansFailed' }))
    h.actor.send({ type: 'step.back' })
    expect(h.snapshot().value).toEqual({ accountSetup: 'editing' })
  })
})

describe('step 3: billing information', () => {
  async function atStep3(values = practice) {
    const h = start()
    await passStep1(h)
    await passStep2(h, values)
    return h
  }

  it('defaults to monthly Lite without EHR', async () => {
    const h = await atStep3()
    expect(selectPlanChoice(h.snapshot())).toEqual({
      term: 'month',
      ehr: false,
      ehrForced: false,
      ehrLocked: false,
      termLocked: false,
    })
    expect(selectTermOptions(h.snapshot())).toEqual([
      { value: 'month', label: 'Monthly' },
      { value: 'year', label: 'Yearly' },
    ])
    expect(selectPricing(h.snapshot())).toMatchObject({
      subscription: 99,
      deduction: 0,
      subTotal: 99,
    })
  })

  it('the term and the EHR add-on change the price', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'plan.termChange', term: 'year' })
    expect(selectPricing(h.snapshot()).basic.perMonth).toBe(89)
    h.actor.send({ type: 'plan.ehrToggle', checked: true })
    expect(selectPlanChoice(h.snapshot()).ehr).toBe(true)
    expect(selectPricing(h.snapshot())).toMatchObject({ subscription: 6468, subTotal: 6468 })
    h.actor.send({ type: 'plan.ehrToggle', checked: false })
    expect(selectPlanChoice(h.snapshot()).ehr).toBe(false)
  })

  it('Nextech forces EHR and disables the checkbox', async () => {
    const h = await atStep3(nextechPractice)
    expect(selectPlanChoice(h.snapshot())).toMatchObject({
      ehr: true,
      ehrForced: true,
      ehrLocked: true,
    })
    expect(h.snapshot().can({ type: 'plan.ehrToggle', checked: false })).toBe(false)
    h.actor.send({ type: 'plan.ehrToggle', checked: false })
    expect(selectPlanChoice(h.snapshot()).ehr).toBe(true)
    expect(selectPricing(h.snapshot()).ehr?.perMonth).toBe(499)
  })

  it('a public promo applies at once; changing the term resets the deduction', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'promo.apply', code: ' WELCOME10 ' })
    expect(h.calls.lookupCoupon.calls).toHaveLength(0)
    expect(selectPromo(h.snapshot())).toEqual({ coupon: WELCOME10, error: null, checking: false })
    expect(selectPricing(h.snapshot())).toMatchObject({ deduction: 9.9, subTotal: 89.1 })
    h.actor.send({ type: 'plan.termChange', term: 'year' })
    expect(selectPricing(h.snapshot()).deduction).toBe(0)
    expect(selectPromo(h.snapshot()).coupon).toBeNull()
  })

  it('another promo is looked up on the server', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'promo.apply', code: 'SAVE50OFF' })
    expect(h.snapshot().value).toEqual({ billing: 'lookingUpCoupon' })
    expect(selectPromo(h.snapshot()).checking).toBe(true)
    expect(h.calls.lookupCoupon.calls[0]?.input).toEqual({ code: 'SAVE50OFF' })
    h.calls.lookupCoupon.calls[0]?.answer.resolve(SAVE50OFF)
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
    expect(selectPricing(h.snapshot())).toMatchObject({ deduction: 50, subTotal: 49 })
    h.actor.send({ type: 'promo.clear' })
    expect(selectPricing(h.snapshot()).deduction).toBe(0)
  })

  it.each([
    [new Error('Invalid promo code'), 'Invalid promo code'],
    [new Error('Too many requests'), 'Too many requests'],
    [{ status: 404 }, 'Invalid promo code'],
  ])('an unknown promo shows the server message (%o)', async (error, message) => {
    const h = await atStep3()
    h.actor.send({ type: 'promo.apply', code: 'NOPE123' })
    h.calls.lookupCoupon.calls[0]?.answer.reject(error)
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
    expect(selectPromo(h.snapshot())).toEqual({ coupon: null, error: message, checking: false })
  })

  it('an empty promo does nothing', async () => {
    const h = await atStep3()
    expect(h.snapshot().can({ type: 'promo.apply', code: '  ' })).toBe(false)
  })

  it('opens Terms and the agreement as views; signing records the signer and date', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'terms.open' })
    expect(selectOpenDocument(h.snapshot())).toBe('terms')
    h.actor.send({ type: 'view.close' })
    expect(selectOpenDocument(h.snapshot())).toBeNull()
    h.actor.send({ type: 'agreement.open' })
    expect(selectOpenDocument(h.snapshot())).toBe('agreement')
    h.actor.send({ type: 'agreement.sign', signature: ' J. Doe ', signer_name: 'Jane Doe' })
    expect(selectSignature(h.snapshot())).toEqual({
      signature: 'J. Doe',
      signer_name: 'Jane Doe',
      date: '2026-06-15',
    })
    h.actor.send({ type: 'view.close' })
    expect(h.snapshot().value).toEqual({ billing: 'editing' })
  })

  it('Continue pays with the card, the practice e-mail and the billing address', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'billing.continue', values: billing })
    expect(h.snapshot().value).toEqual({ billing: 'lockingPayment' })
    expect(selectBusy(h.snapshot())).toBe('lockingPayment')
    expect(h.calls.lockPayment.calls[0]?.input).toEqual({
      card: billing.card,
      email: practice.practice_email,
      billingInformation: SAMPLE_PAY_BILLING_INFORMATION,
    })
    h.calls.lockPayment.calls[0]?.answer.resolve({ id: 'cus_42' })
    await waitFor(h.actor, (s) => s.matches({ confirmation: 'reviewing' }))
    expect(selectStepIndex(h.snapshot())).toBe(3)
    expect(selectPaymentLocked(h.snapshot())).toBe(true)
    expect(h.snapshot().context.card).toBeNull()
    expect(selectDrafts(h.snapshot()).billing.card).toEqual({
      exp_month: 12,
      exp_year: 2030,
      name: 'Jane Doe',
    })
  })

  it('a declined payment stays on step 3 with the provider message in a warning box', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'billing.continue', values: billing })
    h.calls.lockPayment.calls[0]?.answer.reject(new Error('Your card was declined.'))
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
    expect(selectAlert(h.snapshot())).toEqual({
      kind: 'warning',
      message: 'Your card was declined.',
    })
    expect(selectPaymentLocked(h.snapshot())).toBe(false)
  })

  it('a tokenisation failure shows the provider message as an alert', async () => {
    const h = await atStep3()
    h.actor.send({ type: 'billing.continue', values: billing })
    const error = Object.assign(new Error('Your card number is incorrect.'), {
      name: TOKENISATION_ERROR_NAME,
    })
    h.calls.lockPayment.calls[0]?.answer.reject(error)
    await waitFor(h.actor, (s) => s.matches({ billing: 'editing' }))
    expect(selectAlert(h.snapshot())).toEqual({
      kind: 'danger',
      message: 'Your card number is incorrect.',
    })
  })

  it('with Stripe Elements the paid card comes from the payment, so the review and the stored progress keep it', async () => {
    const h = await atStep3()
    // The page never sees the number in Stripe mode: the card it sends has none.
    h.actor.send({
      type: 'billing.continue',
      values: { ...billing, card: { ...billing.card, number: '', cvv: '' } },
    })
    const card = {
      last4: '4444',
      type: 'mastercard',
      name: 'Jane Doe',
      exp_month: 1,
      exp_year: 2031,
    }
    h.calls.lockPayment.calls[0]?.answer.resolve({ id: 'cus_stripe', card })
    await waitFor(h.actor, (s) => s.matches({ confirmation: 'reviewing' }))
    expect(selectReview(h.snapshot()).card).toEqual(card)
    expect(selectPersistable(h.snapshot())?.paidCard).toEqual(card)
  })

  it('a paid card without four digits is not kept, and the progress still is', async () => {
    const h = await atStep3()
    h.actor.send({
      type: 'billing.continue',
      values: { ...billing, card: { ...billing.card, number: '', cvv: '' } },
    })
    h.calls.lockPayment.calls[0]?.answer.resolve({ id: 'cus_stripe' })
    await waitFor(h.actor, (s) => s.matches({ confirmation: 'reviewing' }))
    expect(selectReview(h.snapshot()).card).toBeNull()
    expect(selectPersistable(h.snapshot())?.stripeId).toBe('cus_stripe')
  })

  it('Continue without values does nothing before payment', async () => {
    const h = await atStep3()
    expect(h.snapshot().can({ type: 'billing.continue' })).toBe(false)
  })

  it('after payment the plan choices lock and Continue skips the payment', async () => {
    const h = await atStep3()
    await passStep3(h)
    h.actor.send({ type: 'step.back' })
    expect(h.snapshot().value).toEqual({ billing: 'editing' })
    expect(selectPlanChoice(h.snapshot())).toMatchObject({ ehrLocked: true, termLocked: true })
    for (const event of [
      { type: 'plan.termChange', term: 'year' },
      { type: 'plan.ehrToggle', checked: true },
      { type: 'promo.apply', code: 'WELCOME10' },
      { type: 'promo.apply', code: 'SAVE50OFF' },
      { type: 'promo.clear' },
    ] as const)
      expect(h.snapshot().can(event)).toBe(false)
    h.actor.send({ type: 'billing.continue' })
    expect(h.snapshot().value).toEqual({ confirmation: 'reviewing' })
    expect(h.calls.lockPayment.calls).toHaveLength(1)
  })
})

describe('step 4: confirmation', () => {
  async function atStep4() {
    const h = start()
    await passStep1(h)
    await passStep2(h)
    h.actor.send({ type: 'promo.apply', code: 'WELCOME10' })
    h.actor.send({ type: 'plan.ehrToggle', checked: true })
    await passStep3(h)
    return h
  }

  it('reviews with the card as its last four digits and the secrets masked', async () => {
    const h = await atStep4()
    const review = selectReview(h.snapshot())
    expect(review.card).toEqual({
      last4: '4242',
      type: 'visa',
      name: 'Jane Doe',
      exp_month: 12,
      exp_year: 2030,
    })
    expect(review.passwordMasked).toBe('••••••••')
    expect(review.cvvMasked).toBe('•••')
    expect(review.clientDetails).not.toHaveProperty('password')
    expect(JSON.stringify(review)).not.toContain(clientDetails.password)
    expect(JSON.stringify(review)).not.toContain('4242424242424242')
    expect(review.pricing.subTotal).toBe(538.2)
  })

  it('Submit sends the whole sign-up and ends submitted', async () => {
    const h = await atStep4()
    h.actor.send({ type: 'confirmation.submit' })
    expect(h.snapshot().value).toEqual({ confirmation: 'submitting' })
    expect(selectBusy(h.snapshot())).toBe('submitting')
    const payload = h.calls.submitSignUp.calls[0]?.input
    const parsed = v.parse(SignUpPayloadSchema, payload)
    expect(parsed).toMatchObject({
      email: clientDetails.email,
      password: clientDetails.password,
      authyId: 'authy-42',
      stripe_id: 'cus_42',
      coupon: 'WELCOME10',
      access_rights: 'Admin',
      billingInformation: { plan: ['plan_lite_m', 'plan_ehr_m'], subscription_ehr: true },
    })
    const answer = {
      jwt: 'signed.up.jwt',
      user: {
        id: 7,
        email: clientDetails.email,
        first_name: clientDetails.name,
        last_name: clientDetails.last_name,
        image_path: null,
        access_rights: 'Admin' as const,
        practice_id: 3,
      },
      practice: { id: 3, practice_name: 'Bright Smile', image_path: null },
    }
    h.calls.submitSignUp.calls[0]?.answer.resolve(answer)
    await waitFor(h.actor, (s) => s.status === 'done')
    expect(selectStep(h.snapshot())).toBe('submitted')
    expect(selectStepIndex(h.snapshot())).toBe(4)
    expect(h.submitted).toHaveBeenCalledWith(answer)
    expect(selectPersistable(h.snapshot())).toBeNull()
  })

  it('a failed Submit stays on step 4 with the server message', async () => {
    const h = await atStep4()
    h.actor.send({ type: 'confirmation.submit' })
    h.calls.submitSignUp.calls[0]?.answer.reject(new Error('Email is already taken.'))
    await waitFor(h.actor, (s) => s.matches({ confirmation: 'reviewing' }))
    expect(selectAlert(h.snapshot())).toEqual({
      kind: 'danger',
      message: 'Email is already taken.',
    })
    expect(h.submitted).not.toHaveBeenCalled()
  })

  it('Back returns to the locked billing step', async () => {
    const h = await atStep4()
    h.actor.send({ type: 'step.back' })
    expect(h.snapshot().value).toEqual({ billing: 'editing' })
    expect(selectPaymentLocked(h.snapshot())).toBe(true)
  })
})

describe('progress across a reload', () => {
  it('keeps no password, card number, CVV or code', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h, nextechPractice)
    h.actor.send({ type: 'form.draft', step: 'billing', values: fixtures.billingInformation })
    const stored = selectPersistable(h.snapshot())
    expect(stored?.step).toBe('billing')
    const text = JSON.stringify(stored)
    for (const secret of [
      clientDetails.password,
      '4242424242424242',
      '"cvv"',
      // The code as a value (the phone number may contain its digits).
      `"${signUpFixtures.code}"`,
      nextech.password,
      '"password"',
    ])
      expect(text).not.toContain(secret)
    expect(stored?.drafts.clientDetails.email).toBe(clientDetails.email)
    expect(stored?.drafts.accountSetup.practice_name).toBe(practice.practice_name)
    expect(stored?.drafts.billing.card).toEqual({
      exp_month: '12',
      exp_year: '2030',
      name: 'Jane Doe',
    })
    expect(stored?.verifiedPhone).toEqual({ authyId: 'authy-42', phone: clientDetails.phone })
  })

  it('a reload on step 2 keeps steps 1 and 2', async () => {
    const h = start()
    await passStep1(h)
    h.actor.send({
      type: 'form.draft',
      step: 'accountSetup',
      values: { practice_name: 'Half typed' },
    })
    const stored = JSON.parse(JSON.stringify(selectPersistable(h.snapshot())))
    const again = start(restoreSignUpInput(stored))
    expect(again.snapshot().value).toEqual({ accountSetup: 'editing' })
    expect(selectDrafts(again.snapshot()).clientDetails).toMatchObject({
      name: 'Jane',
      email: clientDetails.email,
    })
    expect(selectDrafts(again.snapshot()).clientDetails).not.toHaveProperty('password')
    expect(selectDrafts(again.snapshot()).accountSetup).toEqual({ practice_name: 'Half typed' })
    expect(selectVerifiedPhone(again.snapshot())?.authyId).toBe('authy-42')
  })

  it('a reload on step 3 resumes there and loads the plans again', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h)
    h.actor.send({ type: 'plan.termChange', term: 'year' })
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot())))
    expect(again.snapshot().value).toEqual({ billing: 'loadingPlans' })
    expect(selectPlanChoice(again.snapshot()).term).toBe('year')
    again.calls.loadPlans.calls[0]?.answer.resolve(PLANS_ANSWER)
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
  })

  it('after a reload on step 4, Submit asks for the password again on step 1', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h)
    await passStep3(h)
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot())))
    expect(again.snapshot().value).toEqual({ confirmation: 'reviewing' })
    expect(selectReview(again.snapshot()).card?.last4).toBe('4242')
    expect(selectPaymentLocked(again.snapshot())).toBe(true)
    again.actor.send({ type: 'confirmation.submit' })
    expect(again.snapshot().value).toEqual({ clientDetails: 'editing' })
    expect(selectAlert(again.snapshot())?.message).toBe(
      'Please enter your password again to finish signing up',
    )
    // The phone stays verified; the way forward skips the payment.
    again.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    again.calls.checkAvailability.calls[0]?.answer.resolve('OK')
    await waitFor(again.actor, (s) => s.matches({ accountSetup: 'editing' }))
    again.actor.send({ type: 'accountSetup.continue', values: practice })
    again.calls.checkAvailability.calls[1]?.answer.resolve('OK')
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
    again.actor.send({ type: 'billing.continue' })
    again.actor.send({ type: 'confirmation.submit' })
    expect(again.snapshot().value).toEqual({ confirmation: 'submitting' })
    expect(again.calls.lockPayment.calls).toHaveLength(0)
    expect(v.is(SignUpPayloadSchema, again.calls.submitSignUp.calls[0]?.input)).toBe(true)
  })

  it('a reload with Nextech keeps step 2 without its password, typed again before Submit', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h, nextechPractice)
    await passStep3(h)
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot())))
    expect(again.snapshot().value).toEqual({ confirmation: 'reviewing' })
    expect(again.snapshot().context.practiceDetails).toBeNull()
    expect(selectDrafts(again.snapshot()).accountSetup.nextech).toEqual({
      client_id: nextech.client_id,
      username: nextech.username,
      nx_practice_id: nextech.nx_practice_id,
    })
    again.actor.send({ type: 'confirmation.submit' })
    expect(again.snapshot().value).toEqual({ clientDetails: 'editing' })
    again.actor.send({ type: 'clientDetails.continue', values: clientDetails })
    again.calls.checkAvailability.calls[0]?.answer.resolve('OK')
    await waitFor(again.actor, (s) => s.matches({ accountSetup: 'editing' }))
    again.actor.send({ type: 'accountSetup.continue', values: nextechPractice })
    again.calls.checkAvailability.calls[1]?.answer.resolve('OK')
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
    expect(selectPlanChoice(again.snapshot())).toMatchObject({ ehr: true, ehrLocked: true })
    again.actor.send({ type: 'billing.continue' })
    again.actor.send({ type: 'confirmation.submit' })
    const payload = v.parse(SignUpPayloadSchema, again.calls.submitSignUp.calls[0]?.input)
    expect(payload.practice.nextech?.password).toBe(nextech.password)
    expect(payload.billingInformation.subscription_ehr).toBe(true)
  })

  it('resumes a stored step 3 that lost its practice details on step 2 when paying', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h, nextechPractice)
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot())))
    again.calls.loadPlans.calls[0]?.answer.resolve(PLANS_ANSWER)
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
    again.actor.send({ type: 'billing.continue', values: billing })
    expect(again.snapshot().value).toEqual({ accountSetup: 'editing' })
    expect(selectAlert(again.snapshot())?.message).toBe(
      'Please enter your password again to finish signing up',
    )
  })

  it('stored confirmation without a payment resumes on step 3', () => {
    const h = start()
    const stored = { ...selectPersistable(h.snapshot()), step: 'confirmation' }
    const again = start(restoreSignUpInput(stored))
    expect(again.snapshot().value).toEqual({ billing: 'loadingPlans' })
  })

  it('a reload on step 3 after paying keeps the payment and the address it was made with', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h)
    await passStep3(h)
    h.actor.send({ type: 'step.back' })
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot())))
    expect(again.snapshot().value).toEqual({ billing: 'loadingPlans' })
    expect(selectPaymentLocked(again.snapshot())).toBe(true)
    expect(again.snapshot().context.billingAddress?.billing_zip).toBe(billing.billing_zip)
    again.calls.loadPlans.calls[0]?.answer.resolve(PLANS_ANSWER)
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
    again.actor.send({ type: 'billing.continue', values: billing })
    expect(again.snapshot().value).toEqual({ confirmation: 'reviewing' })
    expect(selectReview(again.snapshot()).billingAddress?.billing_city).toBe(billing.billing_city)
    expect(again.calls.lockPayment.calls).toHaveLength(0)
  })

  it('a stored step 4 whose billing address is gone resumes on step 3 without the payment', async () => {
    const h = start()
    await passStep1(h)
    await passStep2(h)
    await passStep3(h)
    const stored = selectPersistable(h.snapshot())
    if (!stored) throw new Error('nothing stored')
    const again = start(
      restoreSignUpInput({ ...stored, drafts: { ...stored.drafts, billing: { promo_code: '' } } }),
    )
    expect(again.snapshot().value).toEqual({ billing: 'loadingPlans' })
    expect(selectPaymentLocked(again.snapshot())).toBe(false)
    expect(selectReview(again.snapshot()).card).toBeNull()
    again.calls.loadPlans.calls[0]?.answer.resolve(PLANS_ANSWER)
    await waitFor(again.actor, (s) => s.matches({ billing: 'editing' }))
    // Step 3 is open again: the card and the address are typed and paid with once more.
    again.actor.send({ type: 'billing.continue', values: billing })
    expect(again.snapshot().value).toEqual({ billing: 'lockingPayment' })
  })

  it('ignores anything that is not stored progress', () => {
    expect(restoreSignUpInput('nonsense')).toEqual({ testMode: false, restore: null })
    expect(restoreSignUpInput({ version: 2 }).restore).toBeNull()
    const h = start(restoreSignUpInput(null))
    expect(h.snapshot().value).toEqual({ clientDetails: 'editing' })
  })
})

describe('test mode', () => {
  it('pre-fills steps 2 onward with valid values, never step 1', () => {
    const h = start({ testMode: true })
    const drafts = selectDrafts(h.snapshot())
    expect(drafts.clientDetails).toEqual({})
    expect(v.is(PracticeDetailsSchema, drafts.accountSetup)).toBe(true)
    expect(v.is(BillingInformationSchema, drafts.billing)).toBe(true)
  })

  it('a restored draft wins over the test values', () => {
    const h = start()
    h.actor.send({ type: 'form.draft', step: 'accountSetup', values: { practice_name: 'Mine' } })
    const again = start(restoreSignUpInput(selectPersistable(h.snapshot()), { testMode: true }))
    expect(selectDrafts(again.snapshot()).accountSetup.practice_name).toBe('Mine')
    expect(selectDrafts(again.snapshot()).accountSetup.city).toBe('Springfield')
  })
})

describe('without the app', () => {
  it('a call the app forgot to provide fails loudly', async () => {
    const actor = createActor(signUpMachine, { input: {} }).start()
    const child = selectPhoneVerificationRef(actor.getSnapshot())
    child?.send({
      type: 'fields.change',
      valid: true,
      target: { email: clientDetails.email, phone: clientDetails.phone, countryCode: '+1' },
    })
    child?.send({ type: 'code.send' })
    if (!child) throw new Error('no phone verification running')
    await waitFor(child, (s) => s.context.error !== null)
    expect(child.getSnapshot().context.error).toBe('sendCode: not provided')
  })
})

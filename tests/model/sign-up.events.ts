/**
 * The sign-up wizard's model: the fixture events xstate/graph walks the real machines with (the
 * wizard and its phone verification), the situations they start from, and the fixture values the
 * events carry. The coverage test proves every state node and transition is reached with them;
 * the view-level model test replays the same paths through the views.
 */
import * as v from 'valibot'
import type { Coupon, Plan, PlansAnswer } from '#domain/plans.ts'
import type { SignUpAnswer } from '#domain/sign-up/api.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { parseStoredSignUp, type StoredSignUp } from '#domain/sign-up/progress.ts'
import { createSignUpTestFixtures } from '#domain/sign-up/test-fixtures.ts'
import type {
  PhoneTarget,
  PhoneVerificationEvent,
  PhoneVerificationInput,
  VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'
import {
  type SignUpEvent,
  type SignUpInput,
  TOKENISATION_ERROR_NAME,
} from '#machines/sign-up/sign-up.machine.ts'

const values = createSignUpTestFixtures(20260615)

/** Fixture values: what the person types, and what the fake server answers. */
export const signUpFixtures = {
  clientDetails: v.parse(ClientDetailsSchema, values.clientDetails),
  practice: v.parse(PracticeDetailsSchema, values.practiceDetails),
  nextechPractice: v.parse(PracticeDetailsSchema, {
    ...values.practiceDetails,
    e_record: 'nextech',
    nextech: {
      client_id: 'client-1',
      username: 'nx-user',
      password: 'nx-pass',
      nx_practice_id: '77',
    },
  }),
  billing: v.parse(BillingInformationSchema, values.billingInformation),
  /** The form values as typed, for filling the views. */
  formValues: values,
  code: '123456',
  wrongCode: '000000',
  authyId: 'authy-fixture',
  customerId: 'cus_fixture',
  publicCoupon: { id: 'WELCOME10', percent_off: 10, amount_off: null } satisfies Coupon,
  privateCoupon: { id: 'SAVE50OFF', percent_off: null, amount_off: 5000 } satisfies Coupon,
  plans: [
    {
      id: 'plan_lite_m',
      nickname: 'Glow Monthly Lite',
      interval: 'month',
      interval_count: 1,
      amount: 9900,
      tiers: null,
    },
    {
      id: 'plan_lite_y',
      nickname: 'Glow Yearly Lite',
      interval: 'year',
      interval_count: 1,
      amount: 106800,
      tiers: null,
    },
    {
      id: 'plan_ehr_m',
      nickname: 'Glow EHR Monthly',
      interval: 'month',
      interval_count: 1,
      amount: 49900,
      tiers: null,
    },
    {
      id: 'plan_ehr_y',
      nickname: 'Glow EHR Yearly',
      interval: 'year',
      interval_count: 1,
      amount: 540000,
      tiers: null,
    },
  ] satisfies Plan[],
  failures: {
    taken: 'Email is already taken.',
    server: 'Service Unavailable',
    declined: 'Your card was declined.',
    tokenisation: 'Your card number is incorrect.',
    invalidPromo: 'Invalid promo code',
    // The real server's answer to a code asked for too soon (the QA paths replay it for real).
    sendCode: 'Please wait 30 seconds before requesting another Confirmation Code.',
  },
} as const

/** The verified phone the phone verification hands to the wizard. */
export const fixtureVerifiedPhone: VerifiedPhone = {
  authyId: signUpFixtures.authyId,
  phone: signUpFixtures.clientDetails.phone,
}

/** Where the code goes, and a different phone (typing another number starts over). */
export const fixtureTargets: { main: PhoneTarget; other: PhoneTarget } = {
  main: {
    email: signUpFixtures.clientDetails.email,
    phone: signUpFixtures.clientDetails.phone,
    countryCode: '+1',
  },
  other: {
    email: signUpFixtures.clientDetails.email,
    phone: '5550001111',
    countryCode: '+1',
  },
}

/** The plans answer of the fake server. */
export const fixturePlansAnswer: PlansAnswer = {
  plans: { data: [...signUpFixtures.plans] },
  coupons: { data: [signUpFixtures.publicCoupon] },
}

/** The answer of the fake register call. */
export const fixtureSignUpAnswer: SignUpAnswer = {
  user: { id: 101, email: signUpFixtures.clientDetails.email },
}

/** An Error as a `lockPayment` implementation throws it when tokenisation fails. */
export function tokenisationError(): Error {
  return Object.assign(new Error(signUpFixtures.failures.tokenisation), {
    name: TOKENISATION_ERROR_NAME,
  })
}

/** The delayed event that ends the 30 s resend wait. */
export const RESEND_COOLDOWN_EVENT =
  'xstate.after.resendCooldown.phoneVerification.codeSent.coolingDown'

/** Events of the phone verification graph: the person's and the actors' answers and the timer. */
export type PhoneVerificationModelEvent =
  | PhoneVerificationEvent
  | { type: 'xstate.done.actor.sendCode'; output: { authyId: string } }
  | { type: 'xstate.error.actor.sendCode'; error: Error }
  | { type: 'xstate.done.actor.verifyCode'; output: { verified: boolean } }
  | { type: 'xstate.error.actor.verifyCode'; error: Error }
  | { type: typeof RESEND_COOLDOWN_EVENT }

/**
 * Every event of the phone verification with fixture payloads. An explicit list replaces
 * xstate/graph's own event discovery, so the actor answers and the delay are listed too.
 */
export const phoneVerificationEvents: PhoneVerificationModelEvent[] = [
  { type: 'fields.change', valid: true, target: fixtureTargets.main },
  { type: 'fields.change', valid: false, target: fixtureTargets.main },
  { type: 'fields.change', valid: true, target: fixtureTargets.other },
  { type: 'code.change', code: signUpFixtures.code },
  { type: 'code.change', code: '123' },
  { type: 'code.send' },
  { type: 'code.verify' },
  { type: 'xstate.done.actor.sendCode', output: { authyId: signUpFixtures.authyId } },
  { type: 'xstate.error.actor.sendCode', error: new Error(signUpFixtures.failures.sendCode) },
  { type: 'xstate.done.actor.verifyCode', output: { verified: true } },
  { type: 'xstate.done.actor.verifyCode', output: { verified: false } },
  {
    type: 'xstate.error.actor.verifyCode',
    error: new Error('Incorrect Confirmation Code entered'),
  },
  { type: RESEND_COOLDOWN_EVENT },
]

/** The situations the phone verification starts from. */
export const phoneVerificationScenarios: { name: string; input: PhoneVerificationInput }[] = [
  { name: 'new phone', input: {} },
  { name: 'verified before', input: { verified: fixtureVerifiedPhone } },
]

/** Events of the wizard graph: the person's, the actors' answers and the child's result. */
export type SignUpModelEvent =
  | SignUpEvent
  | { type: 'xstate.done.actor.phoneVerification'; output: VerifiedPhone }
  | { type: 'xstate.done.actor.checkAvailability'; output: string }
  | { type: 'xstate.error.actor.checkAvailability'; error: Error }
  | { type: 'xstate.done.actor.loadPlans'; output: PlansAnswer }
  | { type: 'xstate.error.actor.loadPlans'; error: Error }
  | { type: 'xstate.done.actor.lookupCoupon'; output: Coupon }
  | { type: 'xstate.error.actor.lookupCoupon'; error: Error }
  | { type: 'xstate.done.actor.lockPayment'; output: { id: string } }
  | { type: 'xstate.error.actor.lockPayment'; error: Error }
  | { type: 'xstate.done.actor.submitSignUp'; output: SignUpAnswer }
  | { type: 'xstate.error.actor.submitSignUp'; error: Error }

/** Every event of the wizard with fixture payloads (see {@link phoneVerificationEvents}). */
export const signUpEvents: SignUpModelEvent[] = [
  { type: 'xstate.done.actor.phoneVerification', output: fixtureVerifiedPhone },
  { type: 'clientDetails.continue', values: signUpFixtures.clientDetails },
  { type: 'xstate.done.actor.checkAvailability', output: 'OK' },
  { type: 'xstate.error.actor.checkAvailability', error: new Error(signUpFixtures.failures.taken) },
  { type: 'accountSetup.continue', values: signUpFixtures.practice },
  { type: 'accountSetup.continue', values: signUpFixtures.nextechPractice },
  { type: 'practice.countryChange', country: 'CA' },
  { type: 'xstate.done.actor.loadPlans', output: fixturePlansAnswer },
  { type: 'xstate.error.actor.loadPlans', error: new Error(signUpFixtures.failures.server) },
  { type: 'plans.retry' },
  { type: 'plan.termChange', term: 'year' },
  { type: 'plan.ehrToggle', checked: true },
  { type: 'promo.apply', code: signUpFixtures.publicCoupon.id },
  { type: 'promo.apply', code: signUpFixtures.privateCoupon.id },
  { type: 'xstate.done.actor.lookupCoupon', output: signUpFixtures.privateCoupon },
  {
    type: 'xstate.error.actor.lookupCoupon',
    error: new Error(signUpFixtures.failures.invalidPromo),
  },
  { type: 'promo.clear' },
  { type: 'terms.open' },
  { type: 'agreement.open' },
  { type: 'agreement.sign', signature: 'J. Doe', signer_name: 'Jane Doe' },
  { type: 'view.close' },
  { type: 'billing.continue', values: signUpFixtures.billing },
  { type: 'xstate.done.actor.lockPayment', output: { id: signUpFixtures.customerId } },
  { type: 'xstate.error.actor.lockPayment', error: new Error(signUpFixtures.failures.declined) },
  { type: 'xstate.error.actor.lockPayment', error: tokenisationError() },
  { type: 'confirmation.submit' },
  { type: 'xstate.done.actor.submitSignUp', output: fixtureSignUpAnswer },
  { type: 'xstate.error.actor.submitSignUp', error: new Error(signUpFixtures.failures.server) },
  { type: 'step.back' },
  { type: 'form.draft', step: 'clientDetails', values: { name: 'Jane' } },
  { type: 'alert.dismiss' },
]

type StoredDrafts = {
  accountSetup?: Record<string, unknown>
}

/**
 * Progress as a reload restores it (what `selectPersistable` keeps): the fixture drafts at
 * `step`, the verified phone, the plans, and the payment when `paid`.
 */
export function storedProgress(
  step: StoredSignUp['step'],
  paid: boolean,
  drafts: StoredDrafts = {},
): StoredSignUp {
  const progress = parseStoredSignUp({
    version: 1,
    step,
    drafts: {
      clientDetails: values.clientDetails,
      accountSetup: drafts.accountSetup ?? values.practiceDetails,
      billing: values.billingInformation,
    },
    verifiedPhone: fixtureVerifiedPhone,
    country: 'US',
    plans: [...signUpFixtures.plans],
    publicCoupons: [signUpFixtures.publicCoupon],
    term: 'month',
    ehrChosen: false,
    coupon: null,
    stripeId: paid ? signUpFixtures.customerId : null,
    paidCard: paid
      ? { last4: '4242', type: 'visa', name: 'Jane Doe', exp_month: 12, exp_year: 2030 }
      : null,
    signature: null,
  })
  if (!progress) throw new Error('fixture progress does not parse')
  return progress
}

/** The situations the wizard starts from: new, test mode, and resumed on each later step. */
export const signUpScenarios: { name: string; input: SignUpInput }[] = [
  { name: 'new sign-up', input: {} },
  { name: 'test mode', input: { testMode: true } },
  { name: 'reloaded on step 2', input: { restore: storedProgress('accountSetup', false) } },
  { name: 'reloaded on step 3', input: { restore: storedProgress('billing', false) } },
  { name: 'reloaded on step 4', input: { restore: storedProgress('confirmation', true) } },
  {
    // The Nextech password is never stored, so step 2 is not complete after a reload.
    name: 'reloaded on step 3 with Nextech',
    input: {
      restore: storedProgress('billing', false, {
        accountSetup: {
          ...values.practiceDetails,
          e_record: 'nextech',
          nextech: { client_id: 'c' },
        },
      }),
    },
  },
]

/**
 * The sign-up wizard's model and flow: the fixture events the real machine is walked with, the
 * situations it starts from (new, test mode, resumed after a reload), what tells its states
 * apart, what its screen can send, a person's words for its states and events, and what the
 * running product needs for some steps. The flow's second section is the phone verification on
 * step 1 (its model is `tests/flows/phone-verification/model.ts`). The view test
 * (`view.test.tsx`) and the browser replay (`browser.spec.ts`) replay the same paths.
 */
import * as v from 'valibot'
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import type { Coupon, Plan, PlansAnswer } from '#domain/plans.ts'
import type { SignUpAnswer } from '#domain/sign-up/api.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { parseStoredSignUp, type StoredSignUp } from '#domain/sign-up/progress.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'
import type { VerifiedPhone } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  type SignUpEvent,
  type SignUpInput,
  signUpMachine,
  TOKENISATION_ERROR_NAME,
} from '#machines/sign-up/sign-up.machine.ts'
import {
  phoneFixtures,
  phoneStep,
  phoneVerificationModel,
  verifiedPhone,
} from '#tests/flows/phone-verification/model.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswer,
  nextAnswerFails,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

const samples = createSignUpSampleValues(20260615)
// Step 1 types the phone verification model's phone and e-mail: its paths run on this form.
const values = {
  ...samples,
  clientDetails: {
    ...samples.clientDetails,
    phone: phoneFixtures.phone,
    email: phoneFixtures.email,
  },
}

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
  code: phoneFixtures.code,
  authyId: phoneFixtures.authyId,
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
    phoneTaken: 'Phone number is already taken.',
    server: 'Service Unavailable',
    declined: 'Your card was declined.',
    tokenisation: 'Your card number is incorrect.',
    invalidPromo: 'Invalid promo code',
  },
} as const

/** The verified phone the phone verification hands to the wizard. */
export const fixtureVerifiedPhone: VerifiedPhone = verifiedPhone

/** The plans answer of the fake server. */
export const fixturePlansAnswer: PlansAnswer = {
  plans: { data: [...signUpFixtures.plans] },
  coupons: { data: [signUpFixtures.publicCoupon] },
}

/** The answer of the fake register call: the new Admin signed in, as a sign-in answers. */
export const fixtureSignUpAnswer: SignUpAnswer = {
  jwt: 'signed.up.jwt',
  user: {
    id: 101,
    email: signUpFixtures.clientDetails.email,
    first_name: signUpFixtures.clientDetails.name,
    last_name: signUpFixtures.clientDetails.last_name,
    image_path: null,
    access_rights: 'Admin',
    practice_id: 201,
  },
  practice: { id: 201, practice_name: signUpFixtures.practice.practice_name, image_path: null },
}

/** An Error as a `lockPayment` implementation throws it when tokenisation fails. */
export function tokenisationError(): Error {
  return Object.assign(new Error(signUpFixtures.failures.tokenisation), {
    name: TOKENISATION_ERROR_NAME,
  })
}

/** Events of the wizard graph: the person's, the actors' answers and the child's result. */
export type SignUpModelEvent =
  | SignUpEvent
  | { type: 'xstate.done.actor.phoneVerification'; output: VerifiedPhone }
  | CallAnswers<'checkAvailability', string>
  | CallAnswers<'loadPlans', PlansAnswer>
  | CallAnswers<'lookupCoupon', Coupon>
  | CallAnswers<'lockPayment', { id: string }>
  | CallAnswers<'submitSignUp', SignUpAnswer>

/** Every event of the wizard with fixture payloads. */
export const signUpEvents: SignUpModelEvent[] = [
  { type: 'xstate.done.actor.phoneVerification', output: fixtureVerifiedPhone },
  { type: 'clientDetails.continue', values: signUpFixtures.clientDetails },
  { type: 'xstate.done.actor.checkAvailability', output: 'OK' },
  { type: 'xstate.error.actor.checkAvailability', error: new Error(signUpFixtures.failures.taken) },
  {
    type: 'xstate.error.actor.checkAvailability',
    error: new Error(signUpFixtures.failures.phoneTaken),
  },
  { type: 'phone.change' },
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
    // Paying takes the signed agreement, so a paid progress carries its signature.
    signature: paid ? { signature: 'J. Doe', signer_name: 'Jane Doe', date: '2026-06-15' } : null,
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

// ---------------------------------------------------------------------------------------------
// A person's words

const person = signUpFixtures.formValues.clientDetails
const practice = signUpFixtures.formValues.practiceDetails
const failures = signUpFixtures.failures

/** What the person sees in each state of the wizard (keyed by state node id). */
const signUpStateDescriptions: Record<string, string> = {
  'signUp.clientDetails':
    'You see: step 1, Client Information, with the stepper on Client Information',
  'signUp.clientDetails.editing':
    'You see: Title, First name, Last name, Country code, Phone number, Email, Password, Confirm password, Position, Get Code, Confirmation code, Verify Code; Back to Sign In; Continue (enabled once the phone is verified)',
  'signUp.clientDetails.checkingAvailability': 'You see: Continue is busy',
  'signUp.accountSetup': 'You see: step 2, Account Setup',
  'signUp.accountSetup.editing':
    'You see: Practice name, Office name, Website, Practice phone, Practice email, Country, Address, Address line 2, City, State (or Province or territory for Canada), Zip code, Health record; Back and Continue',
  'signUp.accountSetup.checkingAvailability': 'You see: Continue is busy',
  'signUp.billing': 'You see: step 3, Billing Information',
  'signUp.billing.loadingPlans': 'You see: "Loading plans…"',
  'signUp.billing.plansFailed': 'You see: the failure and a Try again button',
  'signUp.billing.editing':
    'You see: Billing term (Monthly, Yearly), the Lite plan, the EHR add-on checkbox, Promo code with Apply, the Price summary, the card fields, the billing address, and the Terms and Conditions and Business Associates Agreement checkboxes',
  'signUp.billing.lookingUpCoupon': 'You see: Apply is busy',
  'signUp.billing.lockingPayment': 'You see: Continue is busy while the card is charged',
  'signUp.billing.termsView':
    'You see: Terms and Conditions (effective January 1, 2019) and Back to Billing Information',
  'signUp.billing.agreementView':
    "You see: the Business Associates Agreement with Signature, Signer's name, Date and Sign, and Back to Billing Information",
  'signUp.confirmation': 'You see: step 4, Confirmation',
  'signUp.confirmation.reviewing':
    'You see: the review of every step (card as •••• 4242, password and CVV masked), Back and Submit',
  'signUp.confirmation.submitting': 'You see: Submit is busy',
  'signUp.submitted': 'You see: the thank-you page, "Congratulations!"',
}

/** What the person does, or what happens, for an event of the wizard. */
function describeSignUpEvent(event: EventObject): string {
  const e = event as SignUpModelEvent
  switch (e.type) {
    case 'xstate.done.actor.phoneVerification':
      return `Fill in step 1 (${person.name} ${person.last_name}, ${person.phone}, ${person.email}), click Get Code, type the code from the SMS, click Verify Code`
    case 'clientDetails.continue':
      return 'Click Continue on step 1'
    case 'xstate.done.actor.checkAvailability':
      return 'The server answers that the e-mail and phone are free'
    case 'xstate.error.actor.checkAvailability':
      return e.error.message === failures.phoneTaken
        ? `The server answers "${failures.phoneTaken}": you see "Phone or email is already taken", the phone marked taken, and Use another number`
        : `The server answers "${failures.taken}": you see "Phone or email is already taken" and the e-mail marked taken (it stays editable)`
    case 'phone.change':
      return 'Click Use another number (the verification ends; the phone can be changed and verified again)'
    case 'accountSetup.continue':
      return e.values.e_record === 'nextech'
        ? 'Fill in step 2 with Nextech and its Client ID, Username, Password and NX Practice ID, click Continue'
        : `Fill in step 2 (${practice.practice_name}, ${practice.city}, ${practice.state}), click Continue`
    case 'practice.countryChange':
      return 'Choose Country: Canada (the state list becomes the provinces and territories)'
    case 'xstate.done.actor.loadPlans':
      return 'The plans arrive'
    case 'xstate.error.actor.loadPlans':
      return `Loading the plans fails: you see "${failures.server}"`
    case 'plans.retry':
      return 'Click Try again'
    case 'plan.termChange':
      return 'Choose Billing term: Yearly (the promo deduction goes back to $0)'
    case 'plan.ehrToggle':
      return 'Tick Add the EHR integration'
    case 'promo.apply':
      return `Type the promo code ${e.code}, click Apply`
    case 'xstate.done.actor.lookupCoupon':
      return 'The server knows the promo code: the deduction and sub-total update'
    case 'xstate.error.actor.lookupCoupon':
      return `The server does not know the code: you see "${failures.invalidPromo}"`
    case 'promo.clear':
      return 'Click Remove next to the applied promo code'
    case 'terms.open':
      return 'Click Terms and Conditions'
    case 'agreement.open':
      return 'Click Business Associates Agreement'
    case 'agreement.sign':
      return `Type the signature "${e.signature}" and the signer's name "${e.signer_name}", click Sign`
    case 'view.close':
      return 'Click Back to Billing Information'
    case 'billing.continue':
      return 'Fill in the card 4242 4242 4242 4242, 12/2030, CVV 123, the cardholder and billing address, tick both agreements, click Continue'
    case 'xstate.done.actor.lockPayment':
      return 'The card is charged: the card, billing address and plan lock'
    case 'xstate.error.actor.lockPayment':
      return e.error.name === 'TokenisationError'
        ? `The card cannot be read: you see "${failures.tokenisation}"`
        : `The card is declined: you see "${failures.declined}" in a warning box`
    case 'confirmation.submit':
      return 'Click Submit'
    case 'xstate.done.actor.submitSignUp':
      return 'The server creates the practice and its Admin'
    case 'xstate.error.actor.submitSignUp':
      return `The server refuses: you see "${failures.server}"`
    case 'step.back':
      return 'Click Back (Back to Sign In on step 1)'
    case 'form.draft':
      return 'Type in a field (the wizard keeps what was typed)'
    case 'alert.dismiss':
      return 'Close the alert'
    default:
      return ''
  }
}

// ---------------------------------------------------------------------------------------------
// The model

/** What the wizard's guards read, and the alert its view shows. */
export function signUpSignature(snapshot: AnyMachineSnapshot): string {
  const { context } = snapshot
  return JSON.stringify({
    value: snapshot.value,
    verified: context.verifiedPhone !== null,
    client: context.clientDetails !== null,
    practice: context.practiceDetails?.e_record ?? null,
    billing: context.billingAddress !== null,
    plans: context.plans.length > 0,
    paid: context.stripeId !== null,
    alert: context.alert?.message ?? null,
    taken: context.takenField,
    coupon: context.coupon?.id ?? null,
  })
}

/**
 * What the wizard's screen can send in a snapshot. The graph otherwise takes events no person
 * can cause there: a draft where no form is shown, dismissing an alert that is not shown, or
 * removing a promo code that is not applied.
 */
function wizardAllows(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  if (event.type === 'form.draft') return snapshot.matches({ clientDetails: 'editing' })
  if (event.type === 'alert.dismiss') return snapshot.context.alert !== null
  // Remove shows next to an applied promo code only.
  if (event.type === 'promo.clear') return snapshot.context.coupon !== null
  if (event.type === 'xstate.done.actor.phoneVerification')
    return snapshot.context.verifiedPhone === null
  return true
}

/** The wizard's model. */
export const signUpModel: Model = {
  name: 'signUp',
  title: 'Sign-up wizard',
  source: { file: 'machines/sign-up/sign-up.machine.ts', name: 'signUpMachine', doc: 'sign-up' },
  machine: signUpMachine,
  events: signUpEvents,
  scenarios: signUpScenarios,
  signature: signUpSignature,
  allows: wizardAllows,
  states: signUpStateDescriptions,
  describeEvent: describeSignUpEvent,
}

// ---------------------------------------------------------------------------------------------
// The running product: what the replay types and how each situation starts

/** Values the replay types where the model's fixtures would not get the real answer. */
export const REPLAY_INPUTS = {
  /** An address that already has an account: the availability checks refuse it. */
  takenEmail: 'demo@example.com',
  /** A phone that already has an account (the seeded demo Admin's). */
  takenPhone: '5552100101',
  /** A promo code the server does not know. */
  unknownPromo: 'NOSUCHCODE',
  /** A card the test payment gateway declines. */
  declinedCard: '4000 0000 0000 0002',
} as const

function start(path: QaPath): string {
  const takenField = takenOnStepOne(path)
  const taken =
    takenField === 'phone'
      ? ` Step 1 was filled in with the phone ${REPLAY_INPUTS.takenPhone}, which already has an account.`
      : takenField === 'email'
        ? ` Step 1 was filled in with the e-mail ${REPLAY_INPUTS.takenEmail}, which already has an account.`
        : ''
  const reload =
    ' The replay verifies the phone through the API (and pays through the API for step 4) and writes the progress the wizard keeps in sessionStorage (signUpProgress), as the wizard itself does.'
  switch (path.scenario) {
    case 'new sign-up':
      return 'Open /signup under a host name other than this machine (glow.test in the replay), so that nothing is pre-filled (test mode is for this machine only).'
    case 'reloaded on step 2':
      return `Open /signup (glow.test), fill in step 1, verify the phone, Continue, then reload the page on step 2.${taken}${reload}`
    case 'reloaded on step 3':
      return `Open /signup (glow.test), go through steps 1 and 2, then reload the page on step 3.${taken}${reload}`
    case 'reloaded on step 4':
      return `Open /signup (glow.test), go through steps 1 to 3 (paying with 4242 4242 4242 4242), then reload the page on step 4.${taken}${reload}`
    case 'reloaded on step 3 with Nextech':
      return `Open /signup (glow.test), go through step 1 and step 2 with Health record Nextech, then reload the page on step 3: the Nextech password is never kept, so step 2 is no longer complete.${reload}`
    default:
      throw new Error(`no start for the sign-up scenario "${path.scenario}"`)
  }
}

/** The wizard's alert, the applied promo code, the verified phone, the payment, the signature. */
function extras(path: QaPath, i: number): string[] {
  const step = path.steps[i] as QaStep
  const now = step.state.context
  const then = path.steps[i - 1]?.state.context
  const seen: string[] = []
  if (now.alert && now.alert.message !== then?.alert?.message) {
    seen.push(
      now.alert.kind === 'warning'
        ? `the "Payment not completed" box with "${now.alert.message}"`
        : `the alert "${now.alert.message}"`,
    )
  }
  if (!now.alert && then?.alert) seen.push('no alert any more')
  if (now.coupon && now.coupon.id !== then?.coupon?.id) {
    seen.push(`"Promo code ${now.coupon.id} applied" and the deduction in the Price summary`)
  }
  if (now.verifiedPhone && !then?.verifiedPhone) seen.push('"Phone number verified"')
  if (now.stripeId && then && !then.stripeId) {
    seen.push('on step 3 "Paid with the card ending in 4242", card and address locked')
  }
  const signed = step.event as EventObject & { signer_name?: string }
  if (signed.type === 'agreement.sign')
    seen.push(`"Signed by ${signed.signer_name} on" today's date`)
  if (step.event.type === 'xstate.error.actor.lookupCoupon') {
    seen.push('"Invalid promo code" under Promo code')
  }
  return seen
}

function step(path: QaPath, i: number): StepPlan {
  const before = path.steps[i - 1]?.state
  const event = (path.steps[i] as QaStep).event as EventObject & {
    values?: { e_record?: string }
    error?: Error
  }
  switch (event.type) {
    case 'clientDetails.continue': {
      if (before && before.context.verifiedPhone === null) {
        return {
          text: 'Fill in step 1 without verifying the phone; Continue stays disabled. Force it: in the developer tools remove the disabled attribute of Continue, then click it',
        }
      }
      const meanwhile = takenMeanwhile(path, i)
      if (meanwhile) {
        return {
          text: `Meanwhile someone else finishes a sign-up with this ${meanwhile === 'phone' ? 'phone' : 'e-mail'} (the replay signs up a practice through the API); click Continue on step 1`,
        }
      }
      // A reload never keeps the passwords: step 1 of a restored wizard needs them again.
      if (path.scenario.startsWith('reloaded')) {
        return {
          text: 'Type Password and Confirm password again (Glow!Pass123; a reload never keeps them), click Continue on step 1',
        }
      }
      return {}
    }
    case 'accountSetup.continue': {
      if (!nextAnswerFails(path, i, 'checkAvailability')) return {}
      const nextech = event.values?.e_record === 'nextech'
      return {
        text: `Fill in step 2${nextech ? ' with Health record Nextech and its Client ID, Username, Nextech password and NX Practice ID' : ''}, with Practice email ${REPLAY_INPUTS.takenEmail} (it already has an account), click Continue`,
      }
    }
    case 'promo.apply':
      return path.steps[i + 1]?.event.type === 'xstate.error.actor.lookupCoupon'
        ? {
            text: `Type the promo code ${REPLAY_INPUTS.unknownPromo} (the server does not know it), click Apply`,
          }
        : {}
    case 'billing.continue': {
      if (before?.context.stripeId)
        return {
          text: 'Click Continue (card, billing address and plan are locked: the payment is done)',
        }
      const answer = nextAnswer(path, i, 'lockPayment') as { error?: Error } | undefined
      if (answer?.error && answer.error.name !== TOKENISATION_ERROR_NAME) {
        return {
          text: `Fill in the card ${REPLAY_INPUTS.declinedCard} (the test gateway declines it), 12/2030, CVV 123, the cardholder and billing address, tick both agreements, click Continue`,
        }
      }
      return {}
    }
    case 'xstate.error.actor.lockPayment':
      return event.error?.name === TOKENISATION_ERROR_NAME
        ? {
            intercepted:
              'the card form already refuses every number the tokeniser would refuse, so the tokeniser’s refusal ("Your card number is incorrect.") is given by interception.',
          }
        : { note: 'The test payment gateway declines 4000 0000 0000 0002, as Stripe does.' }
    case 'xstate.error.actor.loadPlans':
      return {
        intercepted:
          'a server error (503 Service Unavailable) cannot be asked of the real server; the plans request and its automatic retries get that answer.',
      }
    case 'xstate.error.actor.submitSignUp':
      return {
        intercepted:
          'a server error (503 Service Unavailable) cannot be asked of the real server; the registration request gets that answer.',
      }
    case 'xstate.error.actor.checkAvailability':
      if (takenMeanwhile(path, lastIndexOf(path, i, 'clientDetails.continue'))) {
        return {
          note: `It has an account now, so the server answers "${isPhoneTaken(event) ? 'Phone number' : 'Email'} is already taken."`,
        }
      }
      return isPhoneTaken(event)
        ? {
            note: `${REPLAY_INPUTS.takenPhone} already has an account, so the server answers "Phone number is already taken."`,
          }
        : {
            note: `${REPLAY_INPUTS.takenEmail} already has an account, so the server answers "Email is already taken."`,
          }
    case 'step.back':
      return before?.matches('clientDetails')
        ? { seen: 'You see: the Sign In page (Back to Sign In leaves the wizard)' }
        : {}
    default:
      return {}
  }
}

/** The sign-up flow: the wizard, and the phone verification on its step 1. */
export const signUpFlow: FlowSpec = {
  id: 'sign-up',
  title: 'Sign-up wizard',
  intro:
    'The four-step wizard at /signup and the phone verification on its step 1. Each run of a path needs an e-mail and phone numbers that have no account yet; the replay makes new ones for every path (the words below show the model’s examples). Cards: 4242 4242 4242 4242 is paid, 4000 0000 0000 0002 is declined (the test payment gateway).',
  viewTest: 'tests/flows/sign-up/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'signUp',
      model: signUpModel,
      title: 'Sign-up wizard',
      intro:
        'Paths of the wizard machine: its four steps, the checks and calls of each, and progress restored after a reload.',
      extras,
      host: () => 'remote',
      start,
      step,
    },
    {
      key: 'signUpPhone',
      model: phoneVerificationModel,
      title: 'Phone verification on step 1',
      intro:
        'Paths of the phone verification machine as step 1 of the wizard runs it: Get Code, the code from the SMS, Verify Code, the 30-second wait for a new code.',
      scenarioName: (name) =>
        name === 'verified before' ? 'phone verified before a reload' : name,
      host: () => 'remote',
      start: (path) =>
        path.modelScenario === 'new phone'
          ? 'Open /signup under a host name other than this machine (glow.test in the replay), with a phone number that has had no code in the last 30 seconds.'
          : 'Open /signup (glow.test), fill in step 1 and verify the phone, then reload the page. The replay verifies the phone through the API and writes the progress the wizard keeps in sessionStorage (signUpProgress).',
      step: phoneStep,
    },
  ],
}

/** Whether an availability failure is the server's "Phone number is already taken." */
export function isPhoneTaken(event: EventObject): boolean {
  const error = (event as EventObject & { error?: unknown }).error
  return error instanceof Error && error.message.includes('Phone number is already taken.')
}

/**
 * Which field step 1's availability check finds taken on a path, when its first check there
 * fails: step 1 is filled in with an address or phone that already has an account.
 */
export function takenOnStepOne(path: QaPath): 'email' | 'phone' | null {
  const first = path.steps.findIndex(
    (step, i) =>
      step.event.type.startsWith('xstate.') &&
      step.event.type.endsWith('.actor.checkAvailability') &&
      path.steps[i - 1]?.state.matches({ clientDetails: 'checkingAvailability' }),
  )
  const failure = path.steps[first]
  if (failure?.event.type !== 'xstate.error.actor.checkAvailability') return null
  return isPhoneTaken(failure.event) ? 'phone' : 'email'
}

/** The index of the last step before `i` with an event of `type` (-1 when there is none). */
function lastIndexOf(path: QaPath, i: number, type: string): number {
  return path.steps.slice(0, i).findLastIndex((step) => step.event.type === type)
}

/**
 * Which field step 1's availability check finds taken at step `i` (a Continue on step 1) when an
 * earlier check there passed: someone else signed up with that phone or e-mail meanwhile, which
 * the replay does through the API just before the click.
 */
export function takenMeanwhile(path: QaPath, i: number): 'email' | 'phone' | null {
  const answer = nextAnswer(path, i, 'checkAvailability')
  if (
    path.steps[i]?.event.type !== 'clientDetails.continue' ||
    answer?.type !== 'xstate.error.actor.checkAvailability' ||
    takenOnStepOne(path) !== null
  )
    return null
  return isPhoneTaken(answer) ? 'phone' : 'email'
}

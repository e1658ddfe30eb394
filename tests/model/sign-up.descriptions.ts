/**
 * The sign-up wizard's model in a person's words: what the screen shows in each state, and what
 * the person does (or what happens) for each event, for the wizard and its phone verification.
 * The view-level model test checks that every state and event has one; the QA path writer
 * (issue 6) prints the generated paths with them.
 */
import type { EventObject } from 'xstate'
import {
  fixtureTargets,
  type PhoneVerificationModelEvent,
  RESEND_COOLDOWN_EVENT,
  type SignUpModelEvent,
  signUpFixtures,
} from './sign-up.events.ts'

const person = signUpFixtures.formValues.clientDetails
const practice = signUpFixtures.formValues.practiceDetails
const failures = signUpFixtures.failures

/** What the person sees in each state of the wizard (keyed by state node id). */
export const signUpStateDescriptions: Record<string, string> = {
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

/** What the person sees in each state of the phone verification (keyed by state node id). */
export const phoneVerificationStateDescriptions: Record<string, string> = {
  'phoneVerification.idle':
    'You see: Get Code (enabled when every field of the step is valid), the code input disabled, Verify Code disabled',
  'phoneVerification.sendingCode': 'You see: Get Code is busy; the phone input is locked',
  'phoneVerification.codeSent': 'You see: "Confirmation Code is sent" and the code input enabled',
  'phoneVerification.codeSent.coolingDown':
    'You see: "You can ask for a new code in N s" and Get Code disabled',
  'phoneVerification.codeSent.resendReady': 'You see: Get Code enabled again',
  'phoneVerification.verifying': 'You see: Verify Code is busy',
  'phoneVerification.verified':
    'You see: "Phone number verified"; the phone input and both buttons are locked',
}

/** What the person does, or what happens, for an event of the wizard. */
export function describeSignUpEvent(event: SignUpModelEvent | EventObject): string {
  const e = event as SignUpModelEvent
  switch (e.type) {
    case 'xstate.done.actor.phoneVerification':
      return `Fill in step 1 (${person.name} ${person.last_name}, ${person.phone}, ${person.email}), click Get Code, type the code from the SMS, click Verify Code`
    case 'clientDetails.continue':
      return 'Click Continue on step 1'
    case 'xstate.done.actor.checkAvailability':
      return 'The server answers that the e-mail and phone are free'
    case 'xstate.error.actor.checkAvailability':
      return `The server answers "${failures.taken}": you see "Phone or email is already taken"`
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

/** What the person does, or what happens, for an event of the phone verification. */
export function describePhoneVerificationEvent(
  event: PhoneVerificationModelEvent | EventObject,
): string {
  const e = event as PhoneVerificationModelEvent
  switch (e.type) {
    case 'fields.change':
      if (!e.valid) return 'Empty the Last name field (the step is no longer valid)'
      return e.target.phone === fixtureTargets.main.phone
        ? `Fill in step 1 with phone ${e.target.phone}`
        : `Change the phone number to ${e.target.phone}`
    case 'code.change':
      return `Type ${e.code} as the confirmation code`
    case 'code.send':
      return 'Click Get Code'
    case 'code.verify':
      return 'Click Verify Code'
    case 'xstate.done.actor.sendCode':
      return 'The code is texted: you see "Confirmation Code is sent"'
    case 'xstate.error.actor.sendCode':
      return `Sending fails: you see "${failures.sendCode}"`
    case 'xstate.done.actor.verifyCode':
      return e.output.verified
        ? 'The code is right: the phone is verified'
        : 'The code is wrong: you see "Incorrect Confirmation Code entered"'
    case 'xstate.error.actor.verifyCode':
      return 'The server refuses the code: you see "Incorrect Confirmation Code entered"'
    case RESEND_COOLDOWN_EVENT:
      return 'Wait 30 seconds: Get Code is enabled again'
    default:
      return ''
  }
}

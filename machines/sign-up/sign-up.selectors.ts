import type { SnapshotFrom } from 'xstate'
import type { Coupon } from '#domain/plans.ts'
import { computePricing, type Pricing, type Term, termOptions } from '#domain/pricing.ts'
import { type CountryCode, type Region, regionsFor } from '#domain/regions.ts'
import type { AgreementSignature, BillingAddress } from '#domain/sign-up/billing-information.ts'
import { forcesEhr } from '#domain/sign-up/practice-details.ts'
import {
  type ClientDetailsDraft,
  type PaidCard,
  type PracticeDetailsDraft,
  parseStoredSignUp,
  SIGN_UP_STEPS,
  type SignUpDrafts,
  type SignUpStep,
  type StoredSignUp,
} from '#domain/sign-up/progress.ts'
import type {
  SignUpAlert,
  SignUpContext,
  signUpMachine,
} from '#machines/sign-up/sign-up.machine.ts'

/** A snapshot of the sign-up wizard. */
export type SignUpSnapshot = SnapshotFrom<typeof signUpMachine>

/** The step on screen, or `submitted` once the account exists. */
export function selectStep(snapshot: SignUpSnapshot): SignUpStep | 'submitted' {
  if (snapshot.matches('submitted')) return 'submitted'
  for (const step of SIGN_UP_STEPS) if (snapshot.matches(step)) return step
  return 'clientDetails'
}

/** The stepper's active index: 0 to 3 for the steps, 4 once submitted (all complete). */
export function selectStepIndex(snapshot: SignUpSnapshot): number {
  const step = selectStep(snapshot)
  return step === 'submitted' ? SIGN_UP_STEPS.length : SIGN_UP_STEPS.indexOf(step)
}

/** The alert or warning box to show, if any. */
export function selectAlert(snapshot: SignUpSnapshot): SignUpAlert | null {
  return snapshot.context.alert
}

/** The call in progress, for the loading state of the button that started it. */
export type SignUpBusy =
  | 'checkingAvailability'
  | 'loadingPlans'
  | 'lookingUpCoupon'
  | 'lockingPayment'
  | 'submitting'
  | null

/** Which call runs now, if any. */
export function selectBusy(snapshot: SignUpSnapshot): SignUpBusy {
  if (snapshot.matches({ clientDetails: 'checkingAvailability' })) return 'checkingAvailability'
  if (snapshot.matches({ accountSetup: 'checkingAvailability' })) return 'checkingAvailability'
  if (snapshot.matches({ billing: 'loadingPlans' })) return 'loadingPlans'
  if (snapshot.matches({ billing: 'lookingUpCoupon' })) return 'lookingUpCoupon'
  if (snapshot.matches({ billing: 'lockingPayment' })) return 'lockingPayment'
  if (snapshot.matches({ confirmation: 'submitting' })) return 'submitting'
  return null
}

/**
 * The phone verification child on step 1 (the view reads its buttons, lock and countdown from
 * it); undefined on the other steps. Once verified it stays in its final `verified` state.
 */
export function selectPhoneVerificationRef(snapshot: SignUpSnapshot) {
  return snapshot.children.phoneVerification
}

/** The verified phone and its verification id, or null. */
export function selectVerifiedPhone(snapshot: SignUpSnapshot) {
  return snapshot.context.verifiedPhone
}

/** The practice's country (step 2), which chooses the state list. */
export function selectCountry(snapshot: SignUpSnapshot): CountryCode {
  return snapshot.context.country
}

/** The states (US, with DC) or the provinces and territories (Canada) to choose from. */
export function selectStateOptions(snapshot: SignUpSnapshot): readonly Region[] {
  return regionsFor(snapshot.context.country)
}

/** Whether the payment went through: card, billing and plan choices are locked. */
export function selectPaymentLocked(snapshot: SignUpSnapshot): boolean {
  return snapshot.context.stripeId !== null
}

/** The plan choice as step 3 shows it. */
export type PlanChoice = {
  term: Term
  /** Whether the EHR add-on is part of the subscription. */
  ehr: boolean
  /** Nextech forces EHR: the checkbox is checked and disabled. */
  ehrForced: boolean
  /** The EHR checkbox is disabled (Nextech, or already paid). */
  ehrLocked: boolean
  /** The term can no longer change (already paid). */
  termLocked: boolean
}

function isEhr(context: SignUpContext): boolean {
  return context.ehrChosen || forcesEhr(context.practiceDetails)
}

/** The term and EHR add-on, and which of them can still change. */
export function selectPlanChoice(snapshot: SignUpSnapshot): PlanChoice {
  const { context } = snapshot
  const ehrForced = forcesEhr(context.practiceDetails)
  const paid = context.stripeId !== null
  return {
    term: context.term,
    ehr: isEhr(context),
    ehrForced,
    ehrLocked: ehrForced || paid,
    termLocked: paid,
  }
}

/** The term options of the server's plans, labelled by interval and interval_count. */
export function selectTermOptions(snapshot: SignUpSnapshot): { value: Term; label: string }[] {
  return termOptions(snapshot.context.plans)
}

/** The live price summary: plans, deduction and sub-total. */
export function selectPricing(snapshot: SignUpSnapshot): Pricing {
  const { context } = snapshot
  return computePricing({
    plans: context.plans,
    term: context.term,
    ehr: isEhr(context),
    coupon: context.coupon,
  })
}

/** The promo state: the applied coupon, the last error, and whether a lookup runs. */
export function selectPromo(snapshot: SignUpSnapshot): {
  coupon: Coupon | null
  error: string | null
  checking: boolean
} {
  return {
    coupon: snapshot.context.coupon,
    error: snapshot.context.promoError,
    checking: snapshot.matches({ billing: 'lookingUpCoupon' }),
  }
}

/** Which document view is open over step 3: Terms and Conditions or the agreement. */
export function selectOpenDocument(snapshot: SignUpSnapshot): 'terms' | 'agreement' | null {
  if (snapshot.matches({ billing: 'termsView' })) return 'terms'
  if (snapshot.matches({ billing: 'agreementView' })) return 'agreement'
  return null
}

/** The agreement's signature, signer and date once signed. */
export function selectSignature(snapshot: SignUpSnapshot): AgreementSignature | null {
  return snapshot.context.signature
}

/** The values a step's form starts with: what was typed or committed, or the test-mode values. */
export function selectDrafts(snapshot: SignUpSnapshot): SignUpDrafts {
  return snapshot.context.drafts
}

const PASSWORD_DOTS = '••••••••'

/** What the review says of a password that a reload dropped. */
export const REVIEW_TYPE_AGAIN = {
  clientDetails: 'Must be typed again on step 1',
  accountSetup: 'Must be typed again on step 2',
} as const

/** What the review step (4) shows; the password and CVV are masked, the card is its last four. */
export type SignUpReview = {
  clientDetails: ClientDetailsDraft
  practice: PracticeDetailsDraft
  billingAddress: BillingAddress | null
  card: PaidCard | null
  /** The password as the review shows it: masked, or where to type it again after a reload. */
  passwordMasked: string
  /** The Nextech password as the review shows it, the same way. */
  nextechPasswordMasked: string
  /** The CVV as the review shows it: one dot per digit of the card type. */
  cvvMasked: string
  pricing: Pricing
  signature: AgreementSignature | null
}

/** The review of step 4. */
export function selectReview(snapshot: SignUpSnapshot): SignUpReview {
  const { context } = snapshot
  const {
    password: _password,
    password_confirm: _confirm,
    ...clientDetails
  } = context.clientDetails ?? context.drafts.clientDetails
  const { nextech, ...practice } = context.practiceDetails ?? context.drafts.accountSetup
  const cardType = context.paidCard?.type ?? null
  const cvvDigits = cardType === 'amex' ? 4 : 3
  return {
    clientDetails,
    practice: nextech ? { ...practice, nextech: { ...nextech, password: '' } } : practice,
    billingAddress: context.billingAddress,
    card: context.paidCard,
    // A reload keeps no password: say where it goes, not dots.
    passwordMasked: context.clientDetails?.password
      ? PASSWORD_DOTS
      : REVIEW_TYPE_AGAIN.clientDetails,
    nextechPasswordMasked: context.practiceDetails?.nextech?.password
      ? PASSWORD_DOTS
      : REVIEW_TYPE_AGAIN.accountSetup,
    cvvMasked: '•'.repeat(cvvDigits),
    pricing: selectPricing(snapshot),
    signature: context.signature,
  }
}

/**
 * The progress to keep in sessionStorage: the step, the drafts, the
 * verified phone's id, the plan choice, the promo and the payment. Never the card number, the
 * CVV, a password or the code (the stored shape has no place for them). Null once submitted:
 * then nothing should be kept.
 */
export function selectPersistable(snapshot: SignUpSnapshot): StoredSignUp | null {
  const step = selectStep(snapshot)
  if (step === 'submitted') return null
  const { context } = snapshot
  return parseStoredSignUp({
    version: 1,
    step,
    drafts: context.drafts,
    verifiedPhone: context.verifiedPhone,
    country: context.country,
    plans: context.plans,
    publicCoupons: context.publicCoupons,
    term: context.term,
    ehrChosen: context.ehrChosen,
    coupon: context.coupon,
    stripeId: context.stripeId,
    paidCard: context.paidCard,
    signature: context.signature,
  })
}

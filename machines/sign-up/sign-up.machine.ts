import { and, assign, fromPromise, setup } from 'xstate'
import { cardLastFour, detectCardType } from '#domain/cards.ts'
import type { Coupon, Plan, PlansAnswer } from '#domain/plans.ts'
import type { Term } from '#domain/pricing.ts'
import { type CountryCode, DEFAULT_COUNTRY } from '#domain/regions.ts'
import type {
  CheckAvailabilityInput,
  PayAnswer,
  PayBillingInformation,
  SignUpAnswer,
  SignUpPayloadInput,
} from '#domain/sign-up/api.ts'
import type {
  AgreementSignature,
  BillingAddress,
  BillingInformation,
  Card,
} from '#domain/sign-up/billing-information.ts'
import type { ClientDetails } from '#domain/sign-up/client-details.ts'
import {
  availabilityFailureMessage,
  SIGN_UP_MESSAGES,
  type TakenField,
  takenFieldOf,
} from '#domain/sign-up/messages.ts'
import { buildPayBillingInformation, buildSignUpPayload } from '#domain/sign-up/payload.ts'
import { forcesEhr, type PracticeDetails } from '#domain/sign-up/practice-details.ts'
import {
  type BillingDraft,
  type ClientDetailsDraft,
  type PaidCard,
  type PracticeDetailsDraft,
  parseBillingAddress,
  parsePracticeDetails,
  parseStoredSignUp,
  SIGN_UP_STEPS,
  type SignUpDrafts,
  type SignUpStep,
  type StoredSignUp,
} from '#domain/sign-up/progress.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'
import {
  phoneVerificationMachine,
  type VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'

/** What `lockPayment` gets: the card to tokenise, and what `POST /auth/pay` needs besides. */
export type LockPaymentInput = {
  card: Card
  /** The practice e-mail the customer is billed under. */
  email: string
  billingInformation: PayBillingInformation
}

/**
 * What `lockPayment` answers: the customer id, and the card as the payment provider describes it
 * when the page never saw its number (Stripe Elements).
 */
export type LockPaymentOutput = PayAnswer & { card?: PaidCard }

/** The paid card as the review shows it, from the typed card; null without four digits. */
function paidCardOf(card: Card | null): PaidCard | null {
  const last4 = card ? cardLastFour(card.number) : ''
  if (!card || !/^\d{4}$/.test(last4)) return null
  return {
    last4,
    type: detectCardType(card.number),
    name: card.name,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
  }
}

/** A message for the person: a danger alert, or a warning box for a declined payment. */
export type SignUpAlert = { kind: 'danger' | 'warning'; message: string }

/** The wizard's input: test mode pre-fills steps 2 onward; stored progress resumes the wizard. */
export type SignUpInput = {
  /** Test mode on localhost: steps 2 onward start with valid values. */
  testMode?: boolean
  /** Progress kept across a reload (`selectPersistable`, read back with `parseStoredSignUp`). */
  restore?: StoredSignUp | null
}

export type SignUpContext = {
  /** Step 1 as committed by Continue (with the passwords, in memory only). */
  clientDetails: ClientDetails | null
  verifiedPhone: VerifiedPhone | null
  /** Step 2 as committed by Continue. */
  practiceDetails: PracticeDetails | null
  /** Step 3's billing address as committed by Continue; set whenever the payment is. */
  billingAddress: BillingAddress | null
  /** The card while it is being paid with; never stored, dropped once paid. */
  card: Card | null
  /** The forms' latest values for pre-filling, Back and a reload. */
  drafts: SignUpDrafts
  /** The practice's country, which chooses the state list. */
  country: CountryCode
  plans: Plan[]
  publicCoupons: Coupon[]
  term: Term
  /** Whether the EHR add-on is ticked (Nextech forces it regardless). */
  ehrChosen: boolean
  coupon: Coupon | null
  promoError: string | null
  /** The promo code being looked up on the server. */
  pendingPromoCode: string | null
  /** The customer id of the payment; once set, the payment is locked. */
  stripeId: string | null
  paidCard: PaidCard | null
  signature: AgreementSignature | null
  alert: SignUpAlert | null
  /** The field the last availability check found taken (marked on the form), or null. */
  takenField: TakenField | null
  /** Where stored progress asked to resume; only read while starting. */
  resumeStep: SignUpStep
}

export type SignUpEvent =
  | { type: 'clientDetails.continue'; values: ClientDetails }
  | { type: 'accountSetup.continue'; values: PracticeDetails }
  | { type: 'billing.continue'; values?: BillingInformation }
  | { type: 'confirmation.submit' }
  | { type: 'step.back' }
  /** "Use another number" after Continue found the verified phone taken: the verification ends. */
  | { type: 'phone.change' }
  | { type: 'form.draft'; step: 'clientDetails'; values: ClientDetailsDraft }
  | { type: 'form.draft'; step: 'accountSetup'; values: PracticeDetailsDraft }
  | { type: 'form.draft'; step: 'billing'; values: BillingDraft }
  | { type: 'practice.countryChange'; country: CountryCode }
  | { type: 'plans.retry' }
  | { type: 'plan.termChange'; term: Term }
  | { type: 'plan.ehrToggle'; checked: boolean }
  | { type: 'promo.apply'; code: string }
  | { type: 'promo.clear' }
  | { type: 'terms.open' }
  | { type: 'agreement.open' }
  | { type: 'view.close' }
  | { type: 'agreement.sign'; signature: string; signer_name: string }
  | { type: 'alert.dismiss' }

/**
 * The `name` a `lockPayment` implementation gives its Error when the card could not be tokenised:
 * that failure shows as an alert, a declined payment as a warning box.
 */
export const TOKENISATION_ERROR_NAME = 'TokenisationError'

function withoutCardSecrets(card: BillingDraft['card']): BillingDraft['card'] {
  if (!card) return card
  const { number: _number, cvv: _cvv, ...rest } = card
  return rest
}

/**
 * The machine input that resumes stored progress (from sessionStorage; anything that is not
 * progress of this version is ignored, and progress that claims more than it holds resumes at
 * the last step it completes: a stored step 4 always has its payment and billing address).
 */
export function restoreSignUpInput(
  stored: unknown,
  options: { testMode?: boolean } = {},
): SignUpInput {
  return { testMode: options.testMode ?? false, restore: parseStoredSignUp(stored) }
}

/** Promo codes are the same in any case and with spaces around them ('welcome10' is WELCOME10). */
function sameCode(code: string, typed: string): boolean {
  return code.toUpperCase() === typed.trim().toUpperCase()
}

/** Today as `YYYY-MM-DD` in local time, the agreement's date. */
function today(): string {
  const now = new Date()
  const month = String(now.getMonth() + 1).padStart(2, '0')
  const day = String(now.getDate()).padStart(2, '0')
  return `${now.getFullYear()}-${month}-${day}`
}

function initialContext(input: SignUpInput | undefined): SignUpContext {
  const restore = input?.restore ?? null
  const samples = input?.testMode ? createSignUpSampleValues(Date.now()) : null
  const drafts: SignUpDrafts = {
    clientDetails: { ...restore?.drafts.clientDetails },
    accountSetup: { ...samples?.practiceDetails, ...restore?.drafts.accountSetup },
    billing: { ...samples?.billingInformation, ...restore?.drafts.billing },
  }
  if (samples && restore?.drafts.billing.card) {
    drafts.billing.card = { ...samples.billingInformation.card, ...restore.drafts.billing.card }
  }
  // Parsed progress is consistent: step 4 comes with the payment, a payment with its address.
  const resumeStep: SignUpStep = restore?.step ?? 'clientDetails'
  const passed = (step: SignUpStep) =>
    SIGN_UP_STEPS.indexOf(resumeStep) > SIGN_UP_STEPS.indexOf(step)
  return {
    // Step 1 holds the passwords, which are never stored: it is always typed again.
    clientDetails: null,
    verifiedPhone: restore?.verifiedPhone ?? null,
    practiceDetails:
      restore && passed('accountSetup') ? parsePracticeDetails(drafts.accountSetup) : null,
    // The address the payment was made with: once paid, step 3 locks it.
    billingAddress: restore?.stripeId ? parseBillingAddress(drafts.billing) : null,
    card: null,
    drafts,
    country: restore?.country ?? DEFAULT_COUNTRY,
    plans: restore?.plans ?? [],
    publicCoupons: restore?.publicCoupons ?? [],
    term: restore?.term ?? 'month',
    ehrChosen: restore?.ehrChosen ?? false,
    coupon: restore?.coupon ?? null,
    promoError: null,
    pendingPromoCode: null,
    stripeId: restore?.stripeId ?? null,
    paidCard: restore?.paidCard ?? null,
    signature: restore?.signature ?? null,
    alert: null,
    takenField: null,
    resumeStep,
  }
}

/**
 * The sign-up wizard: four steps, Client Information, Account Setup,
 * Billing Information and Confirmation, with Continue and Back (Back on step 1 leaves to Sign In
 * through `onBackToSignIn`). Each Continue carries the step's validated values.
 *
 * - Step 1 runs the phone verification as a child (`phoneVerification`); Continue needs the
 *   verified phone and checks that the e-mail and phone are free (`checkAvailability`).
 * - Step 2 checks the practice e-mail and phone the same way. A failed check stays on the step
 *   with 'Phone or email is already taken' or 'Ooops, something going wrong please try again'.
 * - Step 3 loads the plans (`loadPlans`); Lite by default, monthly or yearly, the EHR add-on
 *   (forced and locked by Nextech); a promo code comes from the public list or `lookupCoupon`;
 *   changing the term resets the deduction. Continue pays (`lockPayment`: tokenise the card,
 *   `POST /auth/pay`); a failure stays with the provider's message; once paid, the card, billing
 *   and plan choices lock and Continue skips the payment. Terms and Conditions and the Business
 *   Associates Agreement (with its signature) open as views of their own.
 * - Step 4 Submit creates the account (`submitSignUp`), then `onSubmitted`.
 *
 * Progress survives a reload through `selectPersistable` and the `restore` input; passwords are
 * never kept, so a restored wizard asks for them again before it submits.
 */
export const signUpMachine = setup({
  types: {
    context: {} as SignUpContext,
    events: {} as SignUpEvent,
    input: {} as SignUpInput,
    children: {} as { phoneVerification: 'phoneVerification' },
  },
  actors: {
    phoneVerification: phoneVerificationMachine,
    checkAvailability: fromPromise<string, CheckAvailabilityInput>(() =>
      Promise.reject(new Error('checkAvailability: not provided')),
    ),
    loadPlans: fromPromise<PlansAnswer, void>(() =>
      Promise.reject(new Error('loadPlans: not provided')),
    ),
    lookupCoupon: fromPromise<Coupon, { code: string }>(() =>
      Promise.reject(new Error('lookupCoupon: not provided')),
    ),
    lockPayment: fromPromise<LockPaymentOutput, LockPaymentInput>(() =>
      Promise.reject(new Error('lockPayment: not provided')),
    ),
    submitSignUp: fromPromise<SignUpAnswer, SignUpPayloadInput>(() =>
      Promise.reject(new Error('submitSignUp: not provided')),
    ),
  },
  guards: {
    isResumingAt: ({ context }, params: { step: SignUpStep }) => context.resumeStep === params.step,
    isPhoneVerifiedFor: ({ context, event }) =>
      event.type === 'clientDetails.continue' &&
      context.verifiedPhone !== null &&
      context.verifiedPhone.phone === event.values.phone,
    hasPlans: ({ context }) => context.plans.length > 0,
    isPracticeMissing: ({ context }) => context.practiceDetails === null,
    isPaymentLocked: ({ context }) => context.stripeId !== null,
    isPhoneTaken: ({ context }) => context.takenField === 'phone',
    isPaymentOpen: ({ context }) => context.stripeId === null,
    canToggleEhr: ({ context }) => context.stripeId === null && !forcesEhr(context.practiceDetails),
    isPublicCoupon: ({ context, event }) =>
      event.type === 'promo.apply' &&
      context.publicCoupons.some((coupon) => sameCode(coupon.id, event.code)),
    hasPromoCode: ({ event }) => event.type === 'promo.apply' && event.code.trim() !== '',
    hasBillingValues: ({ event }) =>
      event.type === 'billing.continue' && event.values !== undefined,
    isPersonOrPracticeMissing: ({ context }) =>
      context.clientDetails === null ||
      context.verifiedPhone === null ||
      context.practiceDetails === null,
    isTokenisationError: (_, params: { error: unknown }) =>
      params.error instanceof Error && params.error.name === TOKENISATION_ERROR_NAME,
  },
  actions: {
    onBackToSignIn: () => {},
    onSubmitted: (_, _params: { answer: SignUpAnswer }) => {},
    clearAlert: assign({ alert: null, takenField: null }),
    assignDraft: assign(({ context, event }) => {
      if (event.type !== 'form.draft') return {}
      const drafts = { ...context.drafts }
      if (event.step === 'clientDetails') drafts.clientDetails = event.values
      else if (event.step === 'accountSetup') drafts.accountSetup = event.values
      else drafts.billing = event.values
      return { drafts }
    }),
    assignAvailabilityFailure: assign((_, params: { error: unknown }) => ({
      alert: {
        kind: 'danger' as const,
        message: availabilityFailureMessage(errorMessage(params.error, '')),
      },
      takenField: takenFieldOf(errorMessage(params.error, '')),
    })),
    alertReenterPasswords: assign({
      alert: { kind: 'danger', message: SIGN_UP_MESSAGES.reenterPasswords },
    }),
  },
}).createMachine({
  id: 'signUp',
  context: ({ input }) => initialContext(input),
  initial: 'starting',
  on: {
    'form.draft': { actions: 'assignDraft' },
    'alert.dismiss': { actions: 'clearAlert' },
  },
  states: {
    starting: {
      description: 'Resumes stored progress at its step, or starts at step 1.',
      always: [
        {
          guard: { type: 'isResumingAt', params: { step: 'confirmation' } },
          target: 'confirmation',
        },
        { guard: { type: 'isResumingAt', params: { step: 'billing' } }, target: 'billing' },
        {
          guard: { type: 'isResumingAt', params: { step: 'accountSetup' } },
          target: 'accountSetup',
        },
        { target: 'clientDetails' },
      ],
    },
    clientDetails: {
      description: 'Step 1, Client Information: the person, and the phone verified by a code.',
      invoke: {
        id: 'phoneVerification',
        src: 'phoneVerification',
        input: ({ context }) => ({ verified: context.verifiedPhone }),
        onDone: { actions: assign(({ event }) => ({ verifiedPhone: event.output })) },
      },
      on: {
        // The verification belongs to the phone: a taken phone is given up, and step 1
        // starts over with a new verification; everything typed stays.
        'phone.change': {
          guard: 'isPhoneTaken',
          target: '#signUp.clientDetails',
          reenter: true,
          actions: assign({ verifiedPhone: null, alert: null, takenField: null }),
        },
      },
      initial: 'editing',
      states: {
        editing: {
          description: 'Filling step 1. Continue needs the verified phone.',
          on: {
            'clientDetails.continue': [
              {
                guard: 'isPhoneVerifiedFor',
                target: 'checkingAvailability',
                actions: assign(({ context, event }) => ({
                  clientDetails: event.values,
                  drafts: { ...context.drafts, clientDetails: { ...event.values } },
                })),
              },
              {
                actions: assign({
                  alert: { kind: 'danger', message: SIGN_UP_MESSAGES.verifyPhoneFirst },
                }),
              },
            ],
            'step.back': { actions: ['clearAlert', 'onBackToSignIn'] },
          },
        },
        checkingAvailability: {
          description: 'Checking that the e-mail and phone are not in use yet.',
          entry: 'clearAlert',
          invoke: {
            id: 'checkAvailability',
            src: 'checkAvailability',
            input: ({ context }) => ({
              email: context.clientDetails?.email ?? '',
              phone: context.clientDetails?.phone ?? '',
            }),
            onDone: { target: '#signUp.accountSetup' },
            onError: {
              target: 'editing',
              actions: {
                type: 'assignAvailabilityFailure',
                params: ({ event }) => ({ error: event.error }),
              },
            },
          },
        },
      },
    },
    accountSetup: {
      description: 'Step 2, Account Setup: the practice, its address and health record choice.',
      initial: 'editing',
      states: {
        editing: {
          description: 'Filling step 2. Nextech shows its four fields and forces the EHR plan.',
          on: {
            'accountSetup.continue': {
              target: 'checkingAvailability',
              actions: assign(({ context, event }) => ({
                practiceDetails: event.values,
                country: event.values.country,
                drafts: { ...context.drafts, accountSetup: { ...event.values } },
              })),
            },
            'practice.countryChange': {
              actions: assign(({ event }) => ({ country: event.country })),
            },
            'step.back': { target: '#signUp.clientDetails', actions: 'clearAlert' },
          },
        },
        checkingAvailability: {
          description: 'Checking that the practice e-mail and phone are not in use yet.',
          entry: 'clearAlert',
          invoke: {
            id: 'checkAvailability',
            src: 'checkAvailability',
            input: ({ context }) => ({
              email: context.practiceDetails?.practice_email ?? '',
              phone: context.practiceDetails?.practice_phone ?? '',
            }),
            onDone: [
              { guard: 'hasPlans', target: '#signUp.billing.editing' },
              { target: '#signUp.billing' },
            ],
            onError: {
              target: 'editing',
              actions: {
                type: 'assignAvailabilityFailure',
                params: ({ event }) => ({ error: event.error }),
              },
            },
          },
        },
      },
    },
    billing: {
      description: 'Step 3, Billing Information: plan, term, promo, card, address, agreements.',
      initial: 'loadingPlans',
      states: {
        loadingPlans: {
          description: 'Loading the plans and public promo codes.',
          invoke: {
            id: 'loadPlans',
            src: 'loadPlans',
            onDone: {
              target: 'editing',
              actions: assign(({ event }) => ({
                plans: event.output.plans.data,
                publicCoupons: event.output.coupons.data,
              })),
            },
            onError: {
              target: 'plansFailed',
              actions: assign(({ event }) => ({
                alert: {
                  kind: 'danger' as const,
                  message: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
                },
              })),
            },
          },
        },
        plansFailed: {
          description: 'The plans could not be loaded; the person may try again.',
          on: {
            'plans.retry': { target: 'loadingPlans', actions: 'clearAlert' },
            'step.back': { target: '#signUp.accountSetup', actions: 'clearAlert' },
          },
        },
        editing: {
          description:
            'Choosing the plan and entering the card. After payment the card, billing and plan choices are locked.',
          on: {
            'plan.termChange': {
              guard: 'isPaymentOpen',
              // A new term resets the deduction to 0.
              actions: assign(({ event }) => ({
                term: event.term,
                coupon: null,
                promoError: null,
              })),
            },
            'plan.ehrToggle': {
              guard: 'canToggleEhr',
              actions: assign(({ event }) => ({ ehrChosen: event.checked })),
            },
            'promo.apply': [
              {
                guard: and(['isPaymentOpen', 'isPublicCoupon']),
                actions: assign(({ context, event }) => ({
                  coupon:
                    context.publicCoupons.find((coupon) => sameCode(coupon.id, event.code)) ?? null,
                  promoError: null,
                })),
              },
              {
                guard: and(['isPaymentOpen', 'hasPromoCode']),
                target: 'lookingUpCoupon',
                actions: assign(({ event }) => ({ pendingPromoCode: event.code.trim() })),
              },
            ],
            'promo.clear': {
              guard: 'isPaymentOpen',
              actions: assign({ coupon: null, promoError: null }),
            },
            'billing.continue': [
              {
                // Paid: the card, billing address and plan are locked, and the address is kept.
                guard: 'isPaymentLocked',
                target: '#signUp.confirmation',
                actions: 'clearAlert',
              },
              {
                // Paying needs the practice e-mail; a reload with Nextech lost step 2's password.
                guard: 'isPracticeMissing',
                target: '#signUp.accountSetup',
                actions: 'alertReenterPasswords',
              },
              {
                guard: 'hasBillingValues',
                target: 'lockingPayment',
                actions: assign(({ context, event }) => {
                  const values = event.type === 'billing.continue' ? event.values : undefined
                  if (!values) return {}
                  const {
                    card,
                    terms: _terms,
                    business_agreement: _agreement,
                    promo_code: _promo,
                    ...address
                  } = values
                  return {
                    card,
                    billingAddress: address,
                    drafts: { ...context.drafts, billing: { ...values, card: { ...card } } },
                  }
                }),
              },
            ],
            'step.back': { target: '#signUp.accountSetup', actions: 'clearAlert' },
            'terms.open': 'termsView',
            'agreement.open': 'agreementView',
          },
        },
        lookingUpCoupon: {
          description: 'Asking the server about a promo code that is not in the public list.',
          invoke: {
            id: 'lookupCoupon',
            src: 'lookupCoupon',
            input: ({ context }) => ({ code: context.pendingPromoCode ?? '' }),
            onDone: {
              target: 'editing',
              actions: assign(({ event }) => ({
                coupon: event.output,
                promoError: null,
                pendingPromoCode: null,
              })),
            },
            onError: {
              target: 'editing',
              actions: assign(({ event }) => ({
                coupon: null,
                promoError: errorMessage(event.error, SIGN_UP_MESSAGES.invalidPromo),
                pendingPromoCode: null,
              })),
            },
          },
        },
        lockingPayment: {
          description: 'Tokenising the card and paying (POST /auth/pay).',
          entry: 'clearAlert',
          invoke: {
            id: 'lockPayment',
            src: 'lockPayment',
            input: ({ context }) => ({
              card: context.card as Card,
              email: context.practiceDetails?.practice_email ?? '',
              billingInformation: buildPayBillingInformation(
                context.card?.name ?? '',
                context.billingAddress as BillingAddress,
                context.country,
              ),
            }),
            onDone: {
              target: '#signUp.confirmation',
              actions: assign(({ context, event }) => ({
                stripeId: event.output.id,
                // With Stripe Elements only the provider knows the number: its description wins.
                paidCard: event.output.card ?? paidCardOf(context.card),
                // Paid: the card number and CVV are not needed any more and are not kept.
                card: null,
                drafts: {
                  ...context.drafts,
                  billing: {
                    ...context.drafts.billing,
                    card: withoutCardSecrets(context.drafts.billing.card),
                  },
                },
              })),
            },
            onError: [
              {
                guard: {
                  type: 'isTokenisationError',
                  params: ({ event }) => ({ error: event.error }),
                },
                target: 'editing',
                actions: assign(({ event }) => ({
                  alert: {
                    kind: 'danger' as const,
                    message: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
                  },
                })),
              },
              {
                target: 'editing',
                actions: assign(({ event }) => ({
                  alert: {
                    kind: 'warning' as const,
                    message: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
                  },
                })),
              },
            ],
          },
        },
        termsView: {
          description: 'Terms and Conditions, full view with a back button.',
          on: { 'view.close': 'editing' },
        },
        agreementView: {
          description: 'The Business Associates Agreement with its signature, signer and date.',
          on: {
            'view.close': 'editing',
            'agreement.sign': {
              actions: assign(({ event }) => ({
                signature: {
                  signature: event.signature.trim(),
                  signer_name: event.signer_name.trim(),
                  date: today(),
                },
              })),
            },
          },
        },
      },
    },
    confirmation: {
      description: 'Step 4, Confirmation: review (card as its last four digits) and Submit.',
      initial: 'reviewing',
      states: {
        reviewing: {
          description: 'Reviewing everything before creating the account.',
          on: {
            'confirmation.submit': [
              {
                // A reload dropped the passwords: step 1 (and step 2 with Nextech) again.
                guard: 'isPersonOrPracticeMissing',
                target: '#signUp.clientDetails',
                actions: 'alertReenterPasswords',
              },
              { target: 'submitting' },
            ],
            'step.back': { target: '#signUp.billing.editing', actions: 'clearAlert' },
          },
        },
        submitting: {
          description: 'Creating the practice and its Admin (POST /auth/local/register).',
          entry: 'clearAlert',
          invoke: {
            id: 'submitSignUp',
            src: 'submitSignUp',
            input: ({ context }) =>
              buildSignUpPayload({
                clientDetails: context.clientDetails as ClientDetails,
                authyId: context.verifiedPhone?.authyId ?? '',
                practice: context.practiceDetails as PracticeDetails,
                billingAddress: context.billingAddress as BillingAddress,
                plans: context.plans,
                term: context.term,
                ehr: context.ehrChosen,
                coupon: context.coupon?.id ?? null,
                stripeId: context.stripeId ?? '',
                // Step 3 needs the agreement accepted, and only signing it (agreement.sign) does.
                signature: context.signature as AgreementSignature,
              }),
            onDone: {
              target: '#signUp.submitted',
              actions: { type: 'onSubmitted', params: ({ event }) => ({ answer: event.output }) },
            },
            onError: {
              target: 'reviewing',
              actions: assign(({ event }) => ({
                alert: {
                  kind: 'danger' as const,
                  message: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
                },
              })),
            },
          },
        },
      },
    },
    submitted: {
      description: 'The account exists; the app shows the thank-you page.',
      type: 'final',
    },
  },
})

import { fromPromise } from 'xstate'
import type { CardType } from '#domain/cards.ts'
import type { Coupon, PlansAnswer } from '#domain/plans.ts'
import type {
  CheckAvailabilityInput,
  GetCodeAnswer,
  GetCodeInput,
  SignUpAnswer,
  SignUpPayload,
  SignUpPayloadInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import type { PaidCard } from '#domain/sign-up/progress.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  type LockPaymentInput,
  type LockPaymentOutput,
  TOKENISATION_ERROR_NAME,
} from '#machines/sign-up/sign-up.machine.ts'
import { getCoupon, getPlans } from '#src/api/practice.ts'
import { checkEmail, getCode, pay, registerPractice, verifyCode } from '#src/api/sign-up.ts'
import {
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
  type TokenCard,
} from '#src/api/stripe-fields.ts'
import { withCaptchaToken } from '#src/lib/get-code-captcha.ts'
import { withUserMessage } from '#src/lib/http.ts'

/**
 * The card tokenisation, loaded apart: step 1 of the wizard does not need it. The view fetches it
 * with the later steps; the payment waits for it otherwise.
 */
export const loadPaymentCalls = () => import('#src/api/payments.ts')

/** A failed tokenisation, named so the machine shows it as an alert rather than a warning box. */
function tokenisationError(message: string): Error {
  const error = new Error(message)
  error.name = TOKENISATION_ERROR_NAME
  return error
}

/** Options of {@link createSignUpActors}. */
export type SignUpActorsOptions = {
  /** Which tokeniser to use; defaults to the build's configuration. */
  mode?: PaymentsMode
  /** In Stripe mode: the mounted card Elements, or null while they are not ready. */
  getStripeFields?: () => StripeCardFields | null
}

/**
 * Tokenises the card (the server's test tokeniser, or Stripe.js with the mounted Elements), then
 * pays with `POST /auth/pay`; with Stripe the answer also carries the card as Stripe describes
 * it. A tokenisation failure rejects with a `TokenisationError` carrying the provider's message;
 * a declined payment rejects with the provider's message (402).
 */
export async function lockPayment(
  input: LockPaymentInput,
  options: SignUpActorsOptions = {},
): Promise<LockPaymentOutput> {
  const { card, email, billingInformation } = input
  const { createCardToken, paymentErrorMessage } = await withUserMessage(loadPaymentCalls)
  let token: { id: string; card?: TokenCard }
  try {
    token = await createCardToken(
      {
        number: card.number,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        cvc: card.cvv,
        name: card.name,
      },
      {
        mode: options.mode ?? paymentsMode(),
        fields: options.getStripeFields?.() ?? null,
        billing: {
          line1: billingInformation.billing_address_1,
          line2: billingInformation.billing_address_2,
          city: billingInformation.billing_city,
          state: billingInformation.billing_state,
          zip: billingInformation.billing_zip,
          country: billingInformation.country,
        },
      },
    )
  } catch (error) {
    throw tokenisationError(await paymentErrorMessage(error))
  }
  const answer = await withUserMessage(() => pay({ token: token.id, email, billingInformation }))
  return token.card ? { ...answer, card: paidCardFromToken(token.card, card.name) } : answer
}

// Stripe's brand names, in the card type names the product uses.
const STRIPE_BRANDS: Readonly<Record<string, CardType>> = {
  'American Express': 'amex',
  'Diners Club': 'dinersclub',
  Discover: 'discover',
  JCB: 'jcb',
  MasterCard: 'mastercard',
  UnionPay: 'unionpay',
  Visa: 'visa',
}

/** The paid card as the review shows it, from what Stripe tells about the token's card. */
export function paidCardFromToken(card: TokenCard, name: string): PaidCard {
  return {
    last4: card.last4,
    type: STRIPE_BRANDS[card.brand] ?? null,
    name,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
  }
}

/**
 * The real effects of the sign-up wizard's machine: its actors bound to the API (the phone
 * verification child included). The route provides them with `signUpMachine.provide`.
 */
export function createSignUpActors(options: SignUpActorsOptions = {}) {
  return {
    phoneVerification: phoneVerificationMachine.provide({
      actors: {
        sendCode: fromPromise<GetCodeAnswer, GetCodeInput>(({ input }) =>
          withUserMessage(() => getCode(withCaptchaToken(input))),
        ),
        verifyCode: fromPromise<VerifyCodeAnswer, VerifyCodeInput>(({ input }) =>
          withUserMessage(() => verifyCode(input)),
        ),
      },
    }),
    checkAvailability: fromPromise<string, CheckAvailabilityInput>(({ input }) =>
      withUserMessage(() => checkEmail(input)),
    ),
    loadPlans: fromPromise<PlansAnswer, void>(() => withUserMessage(() => getPlans())),
    lookupCoupon: fromPromise<Coupon, { code: string }>(({ input }) =>
      withUserMessage(() => getCoupon(input.code)),
    ),
    lockPayment: fromPromise<LockPaymentOutput, LockPaymentInput>(({ input }) =>
      lockPayment(input, options),
    ),
    submitSignUp: fromPromise<SignUpAnswer, SignUpPayloadInput>(({ input }) =>
      // The machine builds the payload from validated steps; the server re-validates it.
      withUserMessage(() => registerPractice(input as SignUpPayload)),
    ),
  }
}

// The wizard's view mounts Stripe Elements in Stripe mode; it reaches the payment module through
// this file, the feature's only door to src/api.
export {
  loadStripeJs,
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from '#src/api/stripe-fields.ts'

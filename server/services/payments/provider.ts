/**
 * The payment provider seam (DESIGN.md section 5). The sign-up flow needs exactly two things from a
 * provider: a customer created from a one-time card token (this is the charge that may be declined)
 * and, once the account exists, a subscription to the chosen plans. Two implementations exist: the
 * built-in test gateway (the default, Stripe's test-card behaviour, never reaches a network) and
 * the Stripe adapter (when `STRIPE_SECRET_KEY` is set).
 */

/** The billing details a customer is created with; field names follow our sign-up payload. */
export interface CustomerBilling {
  /** Cardholder or practice name shown on the customer; optional. */
  name?: string | null
  line1: string
  line2?: string | null
  city: string
  state: string
  postalCode: string
  /** ISO 3166-1 alpha-2 country code, `US` when unknown. */
  country?: string | null
}

/** Input of {@link PaymentProvider.createCustomer}. */
export interface CreateCustomerInput {
  /** The one-time card token from the browser (`tok_…`). */
  token: string
  /** The practice e-mail the customer is billed under. */
  email: string
  billingInformation: CustomerBilling
  /** Retrying with the same key returns the first answer and never charges twice. */
  idempotencyKey: string
}

/** Input of {@link PaymentProvider.createSubscription}. */
export interface CreateSubscriptionInput {
  customerId: string
  /** Plan (price) ids: the basic plan and, when chosen, the EHR add-on. */
  planIds: readonly string[]
  /** Promo code (the coupon id), when one was applied. */
  coupon?: string | null
  idempotencyKey: string
}

/** A card as the browser sends it to the test tokeniser (Stripe's `card` object shape). */
export interface TestCardInput {
  number: string
  exp_month: number | string
  exp_year: number | string
  cvc: string
  name?: string | null
}

/** Tokenises cards on the server; only the test gateway has one (Stripe tokenises in the browser). */
export interface CardTokeniser {
  /** Validates the card like Stripe does and answers a one-time token; throws {@link PaymentError}. */
  createToken(card: TestCardInput): { id: string }
}

/**
 * A payment provider. Implementations throw {@link PaymentError} for anything the user should read
 * (a decline, an unusable token) and for an unreachable provider.
 */
export interface PaymentProvider {
  /** `test` for the built-in gateway, `stripe` for the real one. */
  readonly mode: 'test' | 'stripe'
  /** Present only in test mode: backs `POST /api/payments/test-tokens`. */
  readonly tokeniser?: CardTokeniser
  /** Creates the customer with the card token as its payment source; the card is checked here. */
  createCustomer(input: CreateCustomerInput): Promise<{ customerId: string }>
  /** Subscribes the customer to the plans, with the coupon when given. */
  createSubscription(input: CreateSubscriptionInput): Promise<{ subscriptionId: string }>
}

/** What went wrong, in Stripe's vocabulary where it has a word for it. */
export type PaymentErrorCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'incorrect_number'
  | 'invalid_expiry_month'
  | 'invalid_expiry_year'
  | 'invalid_cvc'
  | 'invalid_token'
  | 'token_already_used'
  | 'invalid_request'
  | 'provider_unavailable'

/**
 * A payment failure the API answers with its message: 402 for a card the provider refused, 400 for
 * input it cannot use, 502 when the provider could not be reached or failed.
 */
export class PaymentError extends Error {
  override readonly name = 'PaymentError'
  readonly status: 400 | 402 | 502
  readonly code: PaymentErrorCode

  constructor(status: 400 | 402 | 502, code: PaymentErrorCode, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** Shown when the provider fails for a reason the user cannot fix. */
export const PROVIDER_UNAVAILABLE_MESSAGE =
  'The payment service is not available right now. Please try again in a few minutes.'

/**
 * The payment provider seam. The sign-up flow needs exactly two things from a
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

/** The card a customer pays with, as the provider describes it. */
export interface ProviderCard {
  /** Stripe's brand: `Visa`, `MasterCard`, `American Express` (cards) or `visa` (methods). */
  brand: string
  last4: string
  expMonth: number
  expYear: number
}

/** One plan (price) of a subscription, with its price for one billing period. */
export interface SubscriptionItem {
  priceId: string
  name: string
  /** Cents per period. */
  amount: number
  interval: 'month' | 'year'
  intervalCount: number
}

/** The coupon on a subscription and how far it reaches. */
export interface SubscriptionDiscount {
  coupon: string
  percentOff: number | null
  /** Cents. */
  amountOff: number | null
  /** `once`: the first invoice only; `forever`: every invoice. */
  duration: 'once' | 'forever'
}

/** A subscription as the provider holds it (Stripe's subscription and customer objects). */
export interface SubscriptionState {
  id: string
  /** Stripe's status; `canceled` once a subscription set to cancel reached its period end. */
  status: 'active' | 'past_due' | 'canceled' | 'incomplete' | 'trialing' | 'unpaid' | 'paused'
  items: SubscriptionItem[]
  /** The end of the period already paid. */
  currentPeriodEnd: Date
  cancelAtPeriodEnd: boolean
  discount: SubscriptionDiscount | null
  /** Cents of the next invoice (Stripe's upcoming invoice); null when none will come. */
  nextAmount: number | null
  /** The customer's default card; null when it has none. */
  card: ProviderCard | null
}

/** Input of {@link PaymentProvider.getSubscription}. */
export interface SubscriptionRef {
  customerId: string
  subscriptionId: string
}

/** Input of {@link PaymentProvider.updateCard}. */
export interface UpdateCardInput {
  customerId: string
  /** The one-time token of the new card (`tok_…`); the card is checked here, as at sign-up. */
  token: string
  idempotencyKey: string
}

/** Input of {@link PaymentProvider.setCancelAtPeriodEnd}. */
export interface CancelAtPeriodEndInput {
  subscriptionId: string
  /** true: end at the period end; false: keep renewing (only before the period ends). */
  cancel: boolean
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
  /** The subscription, its next invoice and the customer's default card. */
  getSubscription(ref: SubscriptionRef): Promise<SubscriptionState>
  /** Makes the new card the customer's default; a refused card throws like at sign-up. */
  updateCard(input: UpdateCardInput): Promise<ProviderCard>
  /** Sets or clears the end of the subscription at the end of the period already paid. */
  setCancelAtPeriodEnd(input: CancelAtPeriodEndInput): Promise<void>
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

import Stripe from 'stripe'
import {
  type CreateCustomerInput,
  type CreateSubscriptionInput,
  PaymentError,
  type PaymentErrorCode,
  type PaymentProvider,
  PROVIDER_UNAVAILABLE_MESSAGE,
} from './provider.ts'

/** Options of {@link createStripeProvider}; host, port and protocol let tests use a local stub. */
export interface StripeProviderOptions {
  secretKey: string
  host?: string
  port?: number
  protocol?: 'http' | 'https'
  /** Stripe retries network failures itself, reusing the idempotency key; default 2. */
  maxNetworkRetries?: number
  /** Milliseconds before a call gives up; default 20 s (the SDK's own default is 80 s). */
  timeout?: number
}

const KNOWN_CARD_CODES = new Set<PaymentErrorCode>([
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  'incorrect_number',
  'invalid_expiry_month',
  'invalid_expiry_year',
  'invalid_cvc',
])

/** Maps the SDK's errors to ours: the provider's own message for the card, a calm one otherwise. */
function toPaymentError(error: unknown): PaymentError {
  if (error instanceof Stripe.errors.StripeCardError) {
    // Stripe names insufficient funds in decline_code, under the code card_declined.
    const reason = error.decline_code === 'insufficient_funds' ? error.decline_code : error.code
    const code = KNOWN_CARD_CODES.has(reason as PaymentErrorCode)
      ? (reason as PaymentErrorCode)
      : 'card_declined'
    return new PaymentError(402, code, error.message)
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    const code: PaymentErrorCode =
      error.code === 'token_already_used'
        ? 'token_already_used'
        : error.param === 'source'
          ? 'invalid_token'
          : 'invalid_request'
    return new PaymentError(400, code, error.message)
  }
  return new PaymentError(502, 'provider_unavailable', PROVIDER_UNAVAILABLE_MESSAGE)
}

/**
 * The Stripe payment provider: the customer is created with the browser's card token as its
 * source (Stripe checks and authorises the card there), the subscription with the plans and the
 * coupon. Every call carries the caller's idempotency key, so a retry never charges twice.
 */
export function createStripeProvider(options: StripeProviderOptions): PaymentProvider {
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: options.maxNetworkRetries ?? 2,
    timeout: options.timeout ?? 20_000,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port ? { port: options.port } : {}),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    appInfo: { name: 'glow-rewards' },
  })

  return {
    mode: 'stripe',

    async createCustomer(input: CreateCustomerInput) {
      const billing = input.billingInformation
      try {
        const customer = await stripe.customers.create(
          {
            email: input.email,
            source: input.token,
            ...(billing.name ? { name: billing.name } : {}),
            address: {
              line1: billing.line1,
              ...(billing.line2 ? { line2: billing.line2 } : {}),
              city: billing.city,
              state: billing.state,
              postal_code: billing.postalCode,
              country: billing.country ?? 'US',
            },
          },
          { idempotencyKey: input.idempotencyKey },
        )
        return { customerId: customer.id }
      } catch (error) {
        throw toPaymentError(error)
      }
    },

    async createSubscription(input: CreateSubscriptionInput) {
      try {
        const subscription = await stripe.subscriptions.create(
          {
            customer: input.customerId,
            items: input.planIds.map((price) => ({ price })),
            ...(input.coupon ? { discounts: [{ coupon: input.coupon }] } : {}),
          },
          { idempotencyKey: input.idempotencyKey },
        )
        return { subscriptionId: subscription.id }
      } catch (error) {
        throw toPaymentError(error)
      }
    },
  }
}

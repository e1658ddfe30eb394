import Stripe from 'stripe'
import {
  type CancelAtPeriodEndInput,
  type CreateCustomerInput,
  type CreateSubscriptionInput,
  PaymentError,
  type PaymentErrorCode,
  type PaymentProvider,
  PROVIDER_UNAVAILABLE_MESSAGE,
  type ProviderCard,
  type SubscriptionDiscount,
  type SubscriptionRef,
  type SubscriptionState,
  type UpdateCardInput,
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

const STATUSES = new Set<SubscriptionState['status']>([
  'active',
  'past_due',
  'canceled',
  'incomplete',
  'trialing',
  'unpaid',
  'paused',
])

/** The card of a customer's default source (a card) or default payment method. */
function defaultCard(customer: Stripe.Customer): ProviderCard | null {
  const method = customer.invoice_settings?.default_payment_method
  if (method && typeof method !== 'string' && method.card) {
    const { brand, last4, exp_month, exp_year } = method.card
    return { brand, last4, expMonth: exp_month, expYear: exp_year }
  }
  const source = customer.default_source
  if (source && typeof source !== 'string' && source.object === 'card') {
    const card = source as Stripe.Card
    return {
      brand: card.brand,
      last4: card.last4,
      expMonth: card.exp_month,
      expYear: card.exp_year,
    }
  }
  return null
}

/** The subscription's coupon (its first discount), when its coupon object was expanded. */
function discountOf(subscription: Stripe.Subscription): SubscriptionDiscount | null {
  for (const discount of subscription.discounts ?? []) {
    if (typeof discount === 'string') continue
    const coupon = discount.source?.coupon
    if (!coupon || typeof coupon === 'string') continue
    return {
      coupon: coupon.id,
      percentOff: coupon.percent_off ?? null,
      amountOff: coupon.amount_off ?? null,
      // A `repeating` coupon still applies to the next invoice until it ends; Stripe's preview
      // amount says what it takes off.
      duration: coupon.duration === 'once' ? 'once' : 'forever',
    }
  }
  return null
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

    async getSubscription(ref: SubscriptionRef) {
      try {
        const subscription = await stripe.subscriptions.retrieve(ref.subscriptionId, {
          expand: ['discounts.source.coupon'],
        })
        const customer = await stripe.customers.retrieve(ref.customerId, {
          expand: ['default_source', 'invoice_settings.default_payment_method'],
        })
        if (customer.deleted) {
          throw new PaymentError(400, 'invalid_request', 'The payment customer was deleted.')
        }
        const items = subscription.items.data.map((item) => ({
          priceId: item.price.id,
          name: item.price.nickname ?? item.price.id,
          amount: (item.price.unit_amount ?? 0) * (item.quantity ?? 1),
          interval:
            item.price.recurring?.interval === 'year' ? ('year' as const) : ('month' as const),
          intervalCount: item.price.recurring?.interval_count ?? 1,
        }))
        // The period is the items' since Stripe's 2025 API versions.
        const periodEnd = Math.min(
          ...subscription.items.data.map((item) => item.current_period_end),
        )
        const status = STATUSES.has(subscription.status as SubscriptionState['status'])
          ? (subscription.status as SubscriptionState['status'])
          : 'canceled'
        let nextAmount: number | null = null
        if (!subscription.cancel_at_period_end && status !== 'canceled') {
          // The upcoming invoice: the plans, with the coupon when it still applies.
          const preview = await stripe.invoices.createPreview({
            customer: ref.customerId,
            subscription: ref.subscriptionId,
          })
          nextAmount = preview.amount_due
        }
        return {
          id: subscription.id,
          status,
          items,
          currentPeriodEnd: new Date(periodEnd * 1000),
          cancelAtPeriodEnd: subscription.cancel_at_period_end,
          discount: discountOf(subscription),
          nextAmount,
          card: defaultCard(customer),
        }
      } catch (error) {
        if (error instanceof PaymentError) throw error
        throw toPaymentError(error)
      }
    },

    async updateCard(input: UpdateCardInput) {
      try {
        // The token becomes the customer's default source (Stripe checks the card as it is
        // attached); a default payment method would take precedence, so it is cleared.
        const customer = await stripe.customers.update(
          input.customerId,
          {
            source: input.token,
            invoice_settings: { default_payment_method: '' },
            expand: ['default_source'],
          },
          { idempotencyKey: input.idempotencyKey },
        )
        const card = defaultCard(customer)
        if (!card) throw new PaymentError(502, 'provider_unavailable', PROVIDER_UNAVAILABLE_MESSAGE)
        return card
      } catch (error) {
        if (error instanceof PaymentError) throw error
        throw toPaymentError(error)
      }
    },

    async setCancelAtPeriodEnd(input: CancelAtPeriodEndInput) {
      try {
        await stripe.subscriptions.update(
          input.subscriptionId,
          { cancel_at_period_end: input.cancel },
          { idempotencyKey: input.idempotencyKey },
        )
      } catch (error) {
        throw toPaymentError(error)
      }
    },
  }
}

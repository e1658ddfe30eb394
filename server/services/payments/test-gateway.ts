import { randomBytes } from 'node:crypto'
import cardValidator from 'card-validator'
import {
  type CancelAtPeriodEndInput,
  type CardTokeniser,
  type CreateCustomerInput,
  type CreateSubscriptionInput,
  PaymentError,
  type PaymentErrorCode,
  type PaymentProvider,
  type ProviderCard,
  type SubscriptionDiscount,
  type SubscriptionItem,
  type SubscriptionRef,
  type SubscriptionState,
  type UpdateCardInput,
} from './provider.ts'

/**
 * Stripe's test cards that fail, with the message Stripe answers
 * (https://docs.stripe.com/testing#declined-payments). Every other valid card number succeeds.
 */
export const TEST_CARD_FAILURES: Readonly<
  Record<string, { code: PaymentErrorCode; message: string }>
> = {
  '4000000000000002': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000009995': { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000009987': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000000069': { code: 'expired_card', message: 'Your card has expired.' },
  '4000000000000127': { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  '4000000000000119': {
    code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  },
}

/** Messages of the tokeniser's checks, worded as Stripe words them. */
export const TEST_TOKEN_MESSAGES = {
  incorrectNumber: 'Your card number is incorrect.',
  invalidExpiryMonth: "Your card's expiration month is invalid.",
  invalidExpiryYear: "Your card's expiration year is invalid.",
  expired: 'Your card has expired.',
  invalidCvc: "Your card's security code is invalid.",
  unknownToken: 'The card could not be read. Please enter it again.',
  tokenUsed: 'This card was already used for a payment. Please enter it again.',
  unknownCustomer: 'The payment customer is unknown.',
  noPlans: 'Choose at least one plan.',
  unknownSubscription: 'The subscription is unknown to the payment service.',
  noCatalog: 'The test payment gateway has no price list.',
  unknownPrice: 'A plan of the subscription is unknown to the payment service.',
  ended: 'A canceled subscription cannot be updated.',
} as const

/**
 * Where the test gateway reads prices and coupons, as Stripe reads its own: the server wires it
 * to the plans and coupons tables.
 */
export interface PriceCatalog {
  price(id: string): Promise<Omit<SubscriptionItem, 'priceId'> | null>
  coupon(id: string): Promise<Omit<SubscriptionDiscount, 'coupon'> | null>
}

/** Stripe's brand names of cards, by card-validator's card type. */
const STRIPE_BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'MasterCard',
  'american-express': 'American Express',
  discover: 'Discover',
  'diners-club': 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
}

/** Tokens are single-use and short-lived, as Stripe's are; old ones are forgotten. */
const TOKEN_TTL_MS = 60 * 60 * 1000

interface StoredToken {
  number: string
  card: ProviderCard
  createdAt: number
  used: boolean
}

/** A customer the test gateway created; kept so tests can see what would have been charged. */
export interface TestCustomer {
  id: string
  email: string
  last4: string
  /** The default card: the sign-up's, then each card changed to. */
  card: ProviderCard
  billing: CreateCustomerInput['billingInformation']
}

/** A subscription the test gateway created, with Stripe's period and cancellation fields. */
export interface TestSubscription {
  id: string
  customerId: string
  planIds: readonly string[]
  coupon: string | null
  /** When it started: each period ends a whole number of intervals after it. */
  anchor: Date
  /** Periods already begun, counting the first (renewals = periods - 1). */
  periods: number
  cancelAtPeriodEnd: boolean
  status: 'active' | 'canceled'
}

/** `date` moved by `months` calendar months, clamped to the month's last day (as Stripe bills). */
function addMonths(date: Date, months: number): Date {
  const target = new Date(date.getTime())
  const day = target.getUTCDate()
  target.setUTCDate(1)
  target.setUTCMonth(target.getUTCMonth() + months)
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(day, last))
  return target
}

/** The test gateway: a {@link PaymentProvider} with a tokeniser and inspectable records. */
export interface TestGateway extends PaymentProvider {
  readonly mode: 'test'
  readonly tokeniser: CardTokeniser
  /** Every customer created (each one is a successful charge), oldest first. */
  readonly customers: readonly TestCustomer[]
  /** Every subscription created, oldest first. */
  readonly subscriptions: readonly TestSubscription[]
}

// Customer ids carry this prefix so a subscription can be made for a customer created before a
// restart (the gateway keeps no state on disk).
const CUSTOMER_PREFIX = 'cus_test_'

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`
}

/** What a coupon takes off an invoice of `total` cents: a rounded percentage or an amount. */
function discountCents(total: number, discount: SubscriptionDiscount): number {
  const off =
    discount.percentOff !== null
      ? Math.round((total * discount.percentOff) / 100)
      : (discount.amountOff ?? 0)
  return Math.min(Math.max(off, 0), total)
}

function toInteger(value: number | string): number | null {
  const text = String(value).trim()
  return /^\d{1,4}$/.test(text) ? Number(text) : null
}

/**
 * Creates the built-in test payment gateway (DESIGN.md section 5). It never reaches a network: the
 * browser posts the card to `POST /api/payments/test-tokens`, which calls {@link CardTokeniser};
 * creating a customer "charges" the card following Stripe's test cards (4242 4242 4242 4242
 * succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds).
 * Idempotency keys behave like Stripe's: a repeated key answers the first result.
 */
export function createTestGateway(
  options: { now?: () => Date; catalog?: PriceCatalog | undefined } = {},
): TestGateway {
  const now = options.now ?? (() => new Date())
  const tokens = new Map<string, StoredToken>()
  // Like Stripe, a repeated idempotency key answers the first outcome, a failure included.
  const customerResults = new Map<string, { customerId: string } | PaymentError>()
  const subscriptionResults = new Map<string, { subscriptionId: string }>()
  const cardResults = new Map<string, ProviderCard | PaymentError>()
  const customers: TestCustomer[] = []
  const subscriptions: TestSubscription[] = []

  function findSubscription(id: string): TestSubscription {
    const subscription = subscriptions.find((s) => s.id === id)
    if (!subscription) {
      throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownSubscription)
    }
    return subscription
  }

  async function itemsOf(subscription: TestSubscription): Promise<SubscriptionItem[]> {
    if (!options.catalog) {
      throw new PaymentError(502, 'provider_unavailable', TEST_TOKEN_MESSAGES.noCatalog)
    }
    const catalog = options.catalog
    return Promise.all(
      subscription.planIds.map(async (priceId) => {
        const price = await catalog.price(priceId)
        if (!price) {
          throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownPrice)
        }
        return { priceId, ...price }
      }),
    )
  }

  async function discountOf(coupon: string): Promise<SubscriptionDiscount | null> {
    const found = await options.catalog?.coupon(coupon)
    return found ? { coupon, ...found } : null
  }

  /**
   * Brings the subscription to `now`: a renewing one starts the periods that began meanwhile (each
   * a successful charge of the card on file), one set to cancel ends at its period end, as
   * Stripe's does. Answers the end of the current (or last) period.
   */
  function advance(subscription: TestSubscription, items: SubscriptionItem[]): Date {
    const first = items[0]
    const months = first
      ? (first.interval === 'year' ? 12 : 1) * Math.max(1, first.intervalCount)
      : 1
    const at = now().getTime()
    let end = addMonths(subscription.anchor, months * subscription.periods)
    while (subscription.status === 'active' && end.getTime() <= at) {
      if (subscription.cancelAtPeriodEnd) {
        subscription.status = 'canceled'
        break
      }
      subscription.periods += 1
      end = addMonths(subscription.anchor, months * subscription.periods)
    }
    return end
  }

  function forgetOldTokens(at: number): void {
    for (const [id, token] of tokens) {
      if (at - token.createdAt > TOKEN_TTL_MS) tokens.delete(id)
    }
  }

  const tokeniser: CardTokeniser = {
    createToken(card) {
      const number = String(card.number ?? '').replace(/[\s-]/g, '')
      if (!/^\d{12,19}$/.test(number) || !cardValidator.number(number).isValid) {
        throw new PaymentError(400, 'incorrect_number', TEST_TOKEN_MESSAGES.incorrectNumber)
      }
      const month = toInteger(card.exp_month)
      if (month === null || month < 1 || month > 12) {
        throw new PaymentError(400, 'invalid_expiry_month', TEST_TOKEN_MESSAGES.invalidExpiryMonth)
      }
      let year = toInteger(card.exp_year)
      const today = now()
      // A two-digit year expands with the current century, as the card form does.
      if (year !== null && year < 100) year += Math.floor(today.getUTCFullYear() / 100) * 100
      if (year === null || year > today.getUTCFullYear() + 50) {
        throw new PaymentError(400, 'invalid_expiry_year', TEST_TOKEN_MESSAGES.invalidExpiryYear)
      }
      const currentMonth = today.getUTCFullYear() * 12 + today.getUTCMonth() + 1
      if (year * 12 + month < currentMonth) {
        throw new PaymentError(400, 'expired_card', TEST_TOKEN_MESSAGES.expired)
      }
      const cvcLength = cardValidator.number(number).card?.code.size ?? 3
      if (!new RegExp(`^\\d{${cvcLength}}$`).test(String(card.cvc ?? '').trim())) {
        throw new PaymentError(400, 'invalid_cvc', TEST_TOKEN_MESSAGES.invalidCvc)
      }
      const at = today.getTime()
      forgetOldTokens(at)
      const id = randomId('tok_')
      const type = cardValidator.number(number).card?.type ?? ''
      tokens.set(id, {
        number,
        card: {
          brand: STRIPE_BRANDS[type] ?? 'Unknown',
          last4: number.slice(-4),
          expMonth: month,
          expYear: year,
        },
        createdAt: at,
        used: false,
      })
      return { id }
    },
  }

  return {
    mode: 'test',
    tokeniser,
    customers,
    subscriptions,

    async createCustomer(input: CreateCustomerInput) {
      const earlier = customerResults.get(input.idempotencyKey)
      if (earlier instanceof PaymentError) throw earlier
      if (earlier) return earlier
      const token = tokens.get(input.token)
      if (!token || now().getTime() - token.createdAt > TOKEN_TTL_MS) {
        throw new PaymentError(400, 'invalid_token', TEST_TOKEN_MESSAGES.unknownToken)
      }
      if (token.used) {
        throw new PaymentError(400, 'token_already_used', TEST_TOKEN_MESSAGES.tokenUsed)
      }
      token.used = true
      const failure = TEST_CARD_FAILURES[token.number]
      if (failure) {
        const declined = new PaymentError(402, failure.code, failure.message)
        customerResults.set(input.idempotencyKey, declined)
        throw declined
      }
      const customerId = randomId(CUSTOMER_PREFIX)
      customers.push({
        id: customerId,
        email: input.email,
        last4: token.number.slice(-4),
        card: token.card,
        billing: input.billingInformation,
      })
      const result = { customerId }
      customerResults.set(input.idempotencyKey, result)
      return result
    },

    async createSubscription(input: CreateSubscriptionInput) {
      const earlier = subscriptionResults.get(input.idempotencyKey)
      if (earlier) return earlier
      if (!/^cus_test_[0-9a-f]{32}$/.test(input.customerId)) {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownCustomer)
      }
      if (input.planIds.length === 0) {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.noPlans)
      }
      const subscriptionId = randomId('sub_test_')
      subscriptions.push({
        id: subscriptionId,
        customerId: input.customerId,
        planIds: [...input.planIds],
        coupon: input.coupon ?? null,
        anchor: now(),
        periods: 1,
        cancelAtPeriodEnd: false,
        status: 'active',
      })
      const result = { subscriptionId }
      subscriptionResults.set(input.idempotencyKey, result)
      return result
    },

    async getSubscription(ref: SubscriptionRef) {
      const subscription = findSubscription(ref.subscriptionId)
      if (subscription.customerId !== ref.customerId) {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownSubscription)
      }
      const items = await itemsOf(subscription)
      const periodEnd = advance(subscription, items)
      const customer = customers.find((c) => c.id === subscription.customerId)
      const discount = subscription.coupon ? await discountOf(subscription.coupon) : null
      let nextAmount: number | null = null
      if (subscription.status === 'active' && !subscription.cancelAtPeriodEnd) {
        const total = items.reduce((sum, item) => sum + item.amount, 0)
        // A coupon of duration `once` took its part off the first invoice only.
        nextAmount =
          discount?.duration === 'forever' ? total - discountCents(total, discount) : total
      }
      const state: SubscriptionState = {
        id: subscription.id,
        status: subscription.status,
        items,
        currentPeriodEnd: periodEnd,
        cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
        discount,
        nextAmount,
        card: customer ? { ...customer.card } : null,
      }
      return state
    },

    async updateCard(input: UpdateCardInput) {
      const earlier = cardResults.get(input.idempotencyKey)
      if (earlier instanceof PaymentError) throw earlier
      if (earlier) return { ...earlier }
      const customer = customers.find((c) => c.id === input.customerId)
      if (!customer) {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownCustomer)
      }
      const token = tokens.get(input.token)
      if (!token || now().getTime() - token.createdAt > TOKEN_TTL_MS) {
        throw new PaymentError(400, 'invalid_token', TEST_TOKEN_MESSAGES.unknownToken)
      }
      if (token.used) {
        throw new PaymentError(400, 'token_already_used', TEST_TOKEN_MESSAGES.tokenUsed)
      }
      token.used = true
      // The new card is checked as at sign-up: Stripe's declining test cards decline here too.
      const failure = TEST_CARD_FAILURES[token.number]
      if (failure) {
        const declined = new PaymentError(402, failure.code, failure.message)
        cardResults.set(input.idempotencyKey, declined)
        throw declined
      }
      customer.card = token.card
      customer.last4 = token.card.last4
      cardResults.set(input.idempotencyKey, token.card)
      return { ...token.card }
    },

    async setCancelAtPeriodEnd(input: CancelAtPeriodEndInput) {
      const subscription = findSubscription(input.subscriptionId)
      advance(subscription, await itemsOf(subscription))
      // Like Stripe: an ended subscription cannot be changed back.
      if (subscription.status === 'canceled') {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.ended)
      }
      subscription.cancelAtPeriodEnd = input.cancel
    },
  }
}

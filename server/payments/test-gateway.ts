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
  /** The coupon's duration when it was applied; null without a coupon or a price list. */
  couponDuration: 'once' | 'forever' | null
  /** When it started (Stripe's `billing_cycle_anchor`): each period ends whole terms after it. */
  anchor: Date
  /** Periods already begun, counting the first (renewals = periods - 1). */
  periods: number
  currentPeriodStart: Date
  /** Null only while the plan's term is unknown (a gateway without a price list). */
  currentPeriodEnd: Date | null
  cancelAtPeriodEnd: boolean
  /** When the end at the period end was asked for (Stripe's `canceled_at`); null when undone. */
  canceledAt: Date | null
  /** When it reached the period end it was set to end at (Stripe's `ended_at`). */
  endedAt: Date | null
  status: 'active' | 'canceled'
}

/** The first answer an idempotency key got: a result, or the payment error it threw. */
export type StoredAnswer =
  | { result: unknown }
  | { error: { status: PaymentError['status']; code: PaymentErrorCode; message: string } }

/** What an idempotency key belongs to: each call keeps its own keys, as Stripe's endpoints do. */
export type IdempotentOperation = 'customer' | 'subscription' | 'card'

/**
 * Where the test gateway keeps its customers, subscriptions and idempotency answers, as Stripe
 * keeps them on its side: {@link memoryGatewayStore} for a gateway of its own (unit tests), the
 * database (server/payments/gateway-store.ts) for the server, so a restart forgets
 * nothing. One-time card tokens are not kept here: they live in the gateway's memory for an hour.
 */
export interface TestGatewayStore {
  addCustomer(customer: TestCustomer): Promise<void>
  customer(id: string): Promise<TestCustomer | null>
  setCard(customerId: string, card: ProviderCard): Promise<void>
  addSubscription(subscription: TestSubscription): Promise<void>
  subscription(id: string): Promise<TestSubscription | null>
  /** Writes the subscription's status, periods and cancellation fields. */
  saveSubscription(subscription: TestSubscription): Promise<void>
  /** Every customer, oldest first. */
  customers(): Promise<TestCustomer[]>
  /** Every subscription, oldest first. */
  subscriptions(): Promise<TestSubscription[]>
  answer(operation: IdempotentOperation, key: string): Promise<StoredAnswer | null>
  /** Keeps the first answer of a key; a later one for the same key is ignored. */
  remember(operation: IdempotentOperation, key: string, answer: StoredAnswer): Promise<void>
}

const clone = <T>(value: T): T => structuredClone(value)

/** A {@link TestGatewayStore} in memory: lives as long as the gateway. */
export function memoryGatewayStore(): TestGatewayStore {
  const customers: TestCustomer[] = []
  const subscriptions: TestSubscription[] = []
  const answers = new Map<string, StoredAnswer>()
  return {
    async addCustomer(customer) {
      customers.push(clone(customer))
    },
    async customer(id) {
      const found = customers.find((c) => c.id === id)
      return found ? clone(found) : null
    },
    async setCard(customerId, card) {
      const found = customers.find((c) => c.id === customerId)
      if (found) {
        found.card = { ...card }
        found.last4 = card.last4
      }
    },
    async addSubscription(subscription) {
      subscriptions.push(clone(subscription))
    },
    async subscription(id) {
      const found = subscriptions.find((s) => s.id === id)
      return found ? clone(found) : null
    },
    async saveSubscription(subscription) {
      const index = subscriptions.findIndex((s) => s.id === subscription.id)
      if (index >= 0) subscriptions[index] = clone(subscription)
    },
    async customers() {
      return clone(customers)
    },
    async subscriptions() {
      return clone(subscriptions)
    },
    async answer(operation, key) {
      return answers.get(`${operation}:${key}`) ?? null
    },
    async remember(operation, key, answer) {
      const id = `${operation}:${key}`
      if (!answers.has(id)) answers.set(id, answer)
    },
  }
}

/** `date` moved by `months` calendar months, clamped to the month's last day (as Stripe bills). */
export function addMonths(date: Date, months: number): Date {
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
  listCustomers(): Promise<TestCustomer[]>
  /** Every subscription created, oldest first. */
  listSubscriptions(): Promise<TestSubscription[]>
  /**
   * Uses up a one-time card token for the connected accounts' customers (server/payments/
   * member-gateway.ts), with the card's number so its charges follow Stripe's test cards.
   */
  takeCard(tokenId: string): { number: string; card: ProviderCard }
}

const CUSTOMER_PREFIX = 'cus_test_'

/** Months in one period of a plan. */
export function termMonths(item: Pick<SubscriptionItem, 'interval' | 'intervalCount'>): number {
  return (item.interval === 'year' ? 12 : 1) * Math.max(1, item.intervalCount)
}

export function randomId(prefix: string): string {
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
 * Creates the built-in test payment gateway. It never reaches a network: the
 * browser posts the card to `POST /api/payments/test-tokens`, which calls {@link CardTokeniser};
 * creating a customer "charges" the card following Stripe's test cards (4242 4242 4242 4242
 * succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds).
 * Idempotency keys behave like Stripe's: a repeated key answers the first result.
 */
export function createTestGateway(
  options: {
    now?: () => Date
    catalog?: PriceCatalog | undefined
    /** Where customers, subscriptions and idempotency answers live; memory by default. */
    store?: TestGatewayStore | undefined
  } = {},
): TestGateway {
  const now = options.now ?? (() => new Date())
  const store = options.store ?? memoryGatewayStore()
  // One-time tokens stay in memory: they are used within minutes of being made, and a token
  // lost to a restart only asks the user to enter the card again (as an expired one would).
  const tokens = new Map<string, StoredToken>()

  /**
   * Like Stripe, a repeated idempotency key answers the first outcome, a failure included:
   * `run` is called for a new key only, and its result or {@link PaymentError} is kept.
   */
  async function idempotent<T>(
    operation: IdempotentOperation,
    key: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const earlier = await store.answer(operation, key)
    if (earlier) {
      if ('error' in earlier) {
        const { status, code, message } = earlier.error
        throw new PaymentError(status, code, message)
      }
      return earlier.result as T
    }
    let result: T
    try {
      result = await run()
    } catch (error) {
      // Only the card's own refusal is an answer to repeat; an unusable token may be retried.
      if (error instanceof PaymentError && error.status === 402) {
        await store.remember(operation, key, {
          error: { status: error.status, code: error.code, message: error.message },
        })
      }
      throw error
    }
    await store.remember(operation, key, { result })
    return result
  }

  async function findSubscription(id: string): Promise<TestSubscription> {
    const subscription = await store.subscription(id)
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
   * Brings the subscription to `now` and stores it: a renewing one starts the periods that began
   * meanwhile (each a successful charge of the card on file), one set to cancel ends at its period
   * end, as Stripe's does. Answers the end of the current (or last) period.
   */
  async function advance(subscription: TestSubscription, items: SubscriptionItem[]): Promise<Date> {
    const first = items[0]
    const months = first ? termMonths(first) : 1
    const at = now().getTime()
    const before = JSON.stringify(subscription)
    let end = addMonths(subscription.anchor, months * subscription.periods)
    while (subscription.status === 'active' && end.getTime() <= at) {
      if (subscription.cancelAtPeriodEnd) {
        subscription.status = 'canceled'
        subscription.endedAt = end
        break
      }
      subscription.periods += 1
      end = addMonths(subscription.anchor, months * subscription.periods)
    }
    subscription.currentPeriodStart = addMonths(
      subscription.anchor,
      months * (subscription.periods - 1),
    )
    subscription.currentPeriodEnd = end
    if (JSON.stringify(subscription) !== before) await store.saveSubscription(subscription)
    return end
  }

  function forgetOldTokens(at: number): void {
    for (const [id, token] of tokens) {
      if (at - token.createdAt > TOKEN_TTL_MS) tokens.delete(id)
    }
  }

  /**
   * Uses up a one-time card token, as Stripe does when a customer or a card is made from it:
   * refuses an unknown, stale or already used token, and declines Stripe's declining test cards.
   */
  function spendToken(id: string): StoredToken {
    const token = tokens.get(id)
    if (!token || now().getTime() - token.createdAt > TOKEN_TTL_MS) {
      throw new PaymentError(400, 'invalid_token', TEST_TOKEN_MESSAGES.unknownToken)
    }
    if (token.used) {
      throw new PaymentError(400, 'token_already_used', TEST_TOKEN_MESSAGES.tokenUsed)
    }
    token.used = true
    const failure = TEST_CARD_FAILURES[token.number]
    if (failure) throw new PaymentError(402, failure.code, failure.message)
    return token
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
    listCustomers: () => store.customers(),
    listSubscriptions: () => store.subscriptions(),
    takeCard(tokenId) {
      const token = spendToken(tokenId)
      return { number: token.number, card: { ...token.card } }
    },

    createCustomer: (input: CreateCustomerInput) =>
      idempotent('customer', input.idempotencyKey, async () => {
        const token = spendToken(input.token)
        const customerId = randomId(CUSTOMER_PREFIX)
        await store.addCustomer({
          id: customerId,
          email: input.email,
          last4: token.number.slice(-4),
          card: token.card,
          billing: input.billingInformation,
        })
        return { customerId }
      }),

    createSubscription: (input: CreateSubscriptionInput) =>
      idempotent('subscription', input.idempotencyKey, async () => {
        if (!(await store.customer(input.customerId))) {
          throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownCustomer)
        }
        if (input.planIds.length === 0) {
          throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.noPlans)
        }
        const anchor = now()
        // The term and the coupon's reach are read from the price list when the gateway has one.
        const first = input.planIds[0] ? await options.catalog?.price(input.planIds[0]) : null
        const coupon = input.coupon ?? null
        const discount = coupon ? await options.catalog?.coupon(coupon) : null
        const subscriptionId = randomId('sub_test_')
        await store.addSubscription({
          id: subscriptionId,
          customerId: input.customerId,
          planIds: [...input.planIds],
          coupon,
          couponDuration: discount?.duration ?? null,
          anchor,
          periods: 1,
          currentPeriodStart: anchor,
          currentPeriodEnd: first ? addMonths(anchor, termMonths(first)) : null,
          cancelAtPeriodEnd: false,
          canceledAt: null,
          endedAt: null,
          status: 'active',
        })
        return { subscriptionId }
      }),

    async getSubscription(ref: SubscriptionRef) {
      const subscription = await findSubscription(ref.subscriptionId)
      if (subscription.customerId !== ref.customerId) {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownSubscription)
      }
      const items = await itemsOf(subscription)
      const periodEnd = await advance(subscription, items)
      const customer = await store.customer(subscription.customerId)
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

    updateCard: (input: UpdateCardInput) =>
      idempotent('card', input.idempotencyKey, async () => {
        const customer = await store.customer(input.customerId)
        if (!customer) {
          throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.unknownCustomer)
        }
        // The new card is checked as at sign-up: Stripe's declining test cards decline here too.
        const token = spendToken(input.token)
        await store.setCard(customer.id, token.card)
        return { ...token.card }
      }),

    async setCancelAtPeriodEnd(input: CancelAtPeriodEndInput) {
      const subscription = await findSubscription(input.subscriptionId)
      await advance(subscription, await itemsOf(subscription))
      // Like Stripe: an ended subscription cannot be changed back.
      if (subscription.status === 'canceled') {
        throw new PaymentError(400, 'invalid_request', TEST_TOKEN_MESSAGES.ended)
      }
      if (subscription.cancelAtPeriodEnd === input.cancel) return
      subscription.cancelAtPeriodEnd = input.cancel
      subscription.canceledAt = input.cancel ? now() : null
      await store.saveSubscription(subscription)
    },
  }
}

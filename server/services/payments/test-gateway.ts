import { randomBytes } from 'node:crypto'
import cardValidator from 'card-validator'
import {
  type CardTokeniser,
  type CreateCustomerInput,
  type CreateSubscriptionInput,
  PaymentError,
  type PaymentErrorCode,
  type PaymentProvider,
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
} as const

/** Tokens are single-use and short-lived, as Stripe's are; old ones are forgotten. */
const TOKEN_TTL_MS = 60 * 60 * 1000

interface StoredToken {
  number: string
  createdAt: number
  used: boolean
}

/** A customer the test gateway created; kept so tests can see what would have been charged. */
export interface TestCustomer {
  id: string
  email: string
  last4: string
  billing: CreateCustomerInput['billingInformation']
}

/** A subscription the test gateway created. */
export interface TestSubscription {
  id: string
  customerId: string
  planIds: readonly string[]
  coupon: string | null
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
export function createTestGateway(options: { now?: () => Date } = {}): TestGateway {
  const now = options.now ?? (() => new Date())
  const tokens = new Map<string, StoredToken>()
  // Like Stripe, a repeated idempotency key answers the first outcome, a failure included.
  const customerResults = new Map<string, { customerId: string } | PaymentError>()
  const subscriptionResults = new Map<string, { subscriptionId: string }>()
  const customers: TestCustomer[] = []
  const subscriptions: TestSubscription[] = []

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
      tokens.set(id, { number, createdAt: at, used: false })
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
      })
      const result = { subscriptionId }
      subscriptionResults.set(input.idempotencyKey, result)
      return result
    },
  }
}

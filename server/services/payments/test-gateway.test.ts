import { describe, expect, it } from 'vitest'
import { PaymentError } from './provider.ts'
import { createTestGateway, TEST_TOKEN_MESSAGES } from './test-gateway.ts'

const NOW = new Date('2026-03-15T12:00:00Z')
const billing = { line1: '1 Main Street', city: 'Austin', state: 'TX', postalCode: '73301' }
const card = (number: string, overrides: Record<string, unknown> = {}) => ({
  number,
  exp_month: 12,
  exp_year: 2030,
  cvc: '123',
  name: 'Jane Doe',
  ...overrides,
})

async function failure(promise: Promise<unknown> | (() => unknown)): Promise<PaymentError> {
  try {
    await (typeof promise === 'function' ? promise() : promise)
  } catch (error) {
    if (error instanceof PaymentError) return error
    throw error
  }
  throw new Error('expected a PaymentError')
}

describe('test payment gateway', () => {
  it('tokenises a valid card and creates a customer for 4242 4242 4242 4242', async () => {
    const gateway = createTestGateway({ now: () => NOW })
    const { id } = gateway.tokeniser.createToken(card('4242 4242 4242 4242'))
    expect(id).toMatch(/^tok_[0-9a-f]{32}$/)
    const { customerId } = await gateway.createCustomer({
      token: id,
      email: 'clinic@example.com',
      billingInformation: billing,
      idempotencyKey: 'k1',
    })
    expect(customerId).toMatch(/^cus_test_[0-9a-f]{32}$/)
    expect(gateway.customers).toEqual([
      { id: customerId, email: 'clinic@example.com', last4: '4242', billing },
    ])
  })

  it.each([
    ['4000000000000002', 'card_declined', 'Your card was declined.'],
    ['4000000000009995', 'insufficient_funds', 'Your card has insufficient funds.'],
  ])('refuses %s with 402 %s', async (number, code, message) => {
    const gateway = createTestGateway({ now: () => NOW })
    const { id } = gateway.tokeniser.createToken(card(number))
    const error = await failure(
      gateway.createCustomer({
        token: id,
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'k',
      }),
    )
    expect(error).toMatchObject({ status: 402, code, message })
    // A retry with the same key answers the same decline, as Stripe's idempotency does.
    const again = await failure(
      gateway.createCustomer({
        token: id,
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'k',
      }),
    )
    expect(again).toMatchObject({ status: 402, code, message })
    expect(gateway.customers).toHaveLength(0)
  })

  it.each([
    [card('4242424242424241'), 'incorrect_number', TEST_TOKEN_MESSAGES.incorrectNumber],
    [card('abcd'), 'incorrect_number', TEST_TOKEN_MESSAGES.incorrectNumber],
    [
      card('4242424242424242', { exp_month: 13 }),
      'invalid_expiry_month',
      TEST_TOKEN_MESSAGES.invalidExpiryMonth,
    ],
    [
      card('4242424242424242', { exp_year: 'x' }),
      'invalid_expiry_year',
      TEST_TOKEN_MESSAGES.invalidExpiryYear,
    ],
    [
      card('4242424242424242', { exp_month: 2, exp_year: 2026 }),
      'expired_card',
      TEST_TOKEN_MESSAGES.expired,
    ],
    [card('4242424242424242', { cvc: '12' }), 'invalid_cvc', TEST_TOKEN_MESSAGES.invalidCvc],
    [card('378282246310005', { cvc: '123' }), 'invalid_cvc', TEST_TOKEN_MESSAGES.invalidCvc],
  ])('refuses to tokenise a bad card (%#: %s)', async (input, code, message) => {
    const gateway = createTestGateway({ now: () => NOW })
    const error = await failure(() => gateway.tokeniser.createToken(input))
    expect(error).toMatchObject({ status: 400, code, message })
  })

  it('accepts a two-digit year, the current month and a 4-digit amex CVC', () => {
    const gateway = createTestGateway({ now: () => NOW })
    expect(
      gateway.tokeniser.createToken(card('4242424242424242', { exp_month: '03', exp_year: '26' }))
        .id,
    ).toMatch(/^tok_/)
    expect(gateway.tokeniser.createToken(card('378282246310005', { cvc: '1234' })).id).toMatch(
      /^tok_/,
    )
  })

  it('answers the first result again for a repeated idempotency key and never charges twice', async () => {
    const gateway = createTestGateway({ now: () => NOW })
    const { id } = gateway.tokeniser.createToken(card('4242424242424242'))
    const input = {
      token: id,
      email: 'a@b.co',
      billingInformation: billing,
      idempotencyKey: 'same',
    }
    const first = await gateway.createCustomer(input)
    const second = await gateway.createCustomer(input)
    expect(second).toEqual(first)
    expect(gateway.customers).toHaveLength(1)
  })

  it('refuses an unknown token and a token used twice under different keys', async () => {
    const gateway = createTestGateway({ now: () => NOW })
    const unknown = await failure(
      gateway.createCustomer({
        token: 'tok_nope',
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'a',
      }),
    )
    expect(unknown).toMatchObject({ status: 400, code: 'invalid_token' })
    const { id } = gateway.tokeniser.createToken(card('4242424242424242'))
    await gateway.createCustomer({
      token: id,
      email: 'a@b.co',
      billingInformation: billing,
      idempotencyKey: 'b',
    })
    const reused = await failure(
      gateway.createCustomer({
        token: id,
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'c',
      }),
    )
    expect(reused).toMatchObject({ status: 400, code: 'token_already_used' })
    expect(gateway.customers).toHaveLength(1)
  })

  it('forgets tokens after an hour', async () => {
    let now = NOW
    const gateway = createTestGateway({ now: () => now })
    const { id } = gateway.tokeniser.createToken(card('4242424242424242'))
    now = new Date(NOW.getTime() + 61 * 60 * 1000)
    const error = await failure(
      gateway.createCustomer({
        token: id,
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'a',
      }),
    )
    expect(error.code).toBe('invalid_token')
  })

  it('subscribes a test customer to the plans with the coupon, once per idempotency key', async () => {
    const gateway = createTestGateway({ now: () => NOW })
    const { id } = gateway.tokeniser.createToken(card('4242424242424242'))
    const { customerId } = await gateway.createCustomer({
      token: id,
      email: 'a@b.co',
      billingInformation: billing,
      idempotencyKey: 'c',
    })
    const input = {
      customerId,
      planIds: ['plan_lite', 'plan_ehr'],
      coupon: 'WELCOME10',
      idempotencyKey: 's',
    }
    const first = await gateway.createSubscription(input)
    expect(await gateway.createSubscription(input)).toEqual(first)
    expect(gateway.subscriptions).toEqual([
      {
        id: first.subscriptionId,
        customerId,
        planIds: ['plan_lite', 'plan_ehr'],
        coupon: 'WELCOME10',
      },
    ])
    const bad = await failure(
      gateway.createSubscription({ ...input, customerId: 'cus_x', idempotencyKey: 't' }),
    )
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' })
  })
})

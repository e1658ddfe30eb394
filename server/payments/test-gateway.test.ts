import { describe, expect, it } from 'vitest'
import { PaymentError } from './provider.ts'
import {
  createTestGateway,
  type PriceCatalog,
  TEST_CARD_FAILURES,
  TEST_TOKEN_MESSAGES,
} from './test-gateway.ts'

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
    expect(await gateway.listCustomers()).toEqual([
      {
        id: customerId,
        email: 'clinic@example.com',
        last4: '4242',
        card: { brand: 'Visa', last4: '4242', expMonth: 12, expYear: 2030 },
        billing,
      },
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
    expect(await gateway.listCustomers()).toHaveLength(0)
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
    expect(await gateway.listCustomers()).toHaveLength(1)
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
    expect(await gateway.listCustomers()).toHaveLength(1)
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
    expect(await gateway.listSubscriptions()).toEqual([
      {
        id: first.subscriptionId,
        customerId,
        planIds: ['plan_lite', 'plan_ehr'],
        coupon: 'WELCOME10',
        // Without a price list the term and the coupon's reach are not known yet.
        couponDuration: null,
        anchor: NOW,
        periods: 1,
        currentPeriodStart: NOW,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        canceledAt: null,
        endedAt: null,
        status: 'active',
      },
    ])
    const bad = await failure(
      gateway.createSubscription({ ...input, customerId: 'cus_x', idempotencyKey: 't' }),
    )
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' })
  })

  describe('the subscription as Settings reads and changes it', () => {
    // Stands for the prices and coupons configured at the provider.
    const catalog: PriceCatalog = {
      async price(id) {
        const prices: Record<string, Awaited<ReturnType<PriceCatalog['price']>>> = {
          lite_month: { name: 'Monthly Lite', amount: 9900, interval: 'month', intervalCount: 1 },
          lite_year: { name: 'Yearly Lite', amount: 106800, interval: 'year', intervalCount: 1 },
          ehr_year: { name: 'EHR Yearly', amount: 540000, interval: 'year', intervalCount: 1 },
        }
        return prices[id] ?? null
      },
      async coupon(id) {
        if (id === 'ONCE10') return { percentOff: 10, amountOff: null, duration: 'once' }
        if (id === 'ALWAYS50') return { percentOff: null, amountOff: 5000, duration: 'forever' }
        return null
      },
    }

    async function subscribed(planIds: string[], coupon: string | null, start = NOW) {
      let now = start
      const gateway = createTestGateway({ now: () => now, catalog })
      const { id } = gateway.tokeniser.createToken(card('4242424242424242'))
      const { customerId } = await gateway.createCustomer({
        token: id,
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'c',
      })
      const { subscriptionId } = await gateway.createSubscription({
        customerId,
        planIds,
        coupon,
        idempotencyKey: 's',
      })
      return {
        gateway,
        ref: { customerId, subscriptionId },
        setNow: (at: Date) => {
          now = at
        },
      }
    }

    it('answers the plans, the period end a term later, the card and the renewal after a once-only coupon', async () => {
      const { gateway, ref } = await subscribed(['lite_year', 'ehr_year'], 'ONCE10')
      expect(await gateway.getSubscription(ref)).toEqual({
        id: ref.subscriptionId,
        status: 'active',
        items: [
          {
            priceId: 'lite_year',
            name: 'Yearly Lite',
            amount: 106800,
            interval: 'year',
            intervalCount: 1,
          },
          {
            priceId: 'ehr_year',
            name: 'EHR Yearly',
            amount: 540000,
            interval: 'year',
            intervalCount: 1,
          },
        ],
        currentPeriodEnd: new Date('2027-03-15T12:00:00Z'),
        cancelAtPeriodEnd: false,
        discount: { coupon: 'ONCE10', percentOff: 10, amountOff: null, duration: 'once' },
        // The 10% came off the first year only: the renewal is the full price.
        nextAmount: 646800,
        card: { brand: 'Visa', last4: '4242', expMonth: 12, expYear: 2030 },
      })
    })

    it('takes a forever coupon off every renewal, and a month ends on the last day of a shorter month', async () => {
      const { gateway, ref } = await subscribed(
        ['lite_month'],
        'ALWAYS50',
        new Date('2027-01-31T10:00:00Z'),
      )
      const state = await gateway.getSubscription(ref)
      expect(state.nextAmount).toBe(4900)
      expect(state.currentPeriodEnd).toEqual(new Date('2027-02-28T10:00:00Z'))
    })

    it('renews at the period end, and a subscription set to cancel ends there and cannot be kept', async () => {
      const { gateway, ref, setNow } = await subscribed(['lite_month'], null)
      setNow(new Date('2026-04-20T00:00:00Z'))
      expect(await gateway.getSubscription(ref)).toMatchObject({
        status: 'active',
        currentPeriodEnd: new Date('2026-05-15T12:00:00Z'),
        nextAmount: 9900,
      })
      await gateway.setCancelAtPeriodEnd({
        subscriptionId: ref.subscriptionId,
        cancel: true,
        idempotencyKey: 'x1',
      })
      expect(await gateway.getSubscription(ref)).toMatchObject({
        status: 'active',
        cancelAtPeriodEnd: true,
        nextAmount: null,
      })
      await gateway.setCancelAtPeriodEnd({
        subscriptionId: ref.subscriptionId,
        cancel: false,
        idempotencyKey: 'x2',
      })
      expect(await gateway.getSubscription(ref)).toMatchObject({
        cancelAtPeriodEnd: false,
        nextAmount: 9900,
      })
      await gateway.setCancelAtPeriodEnd({
        subscriptionId: ref.subscriptionId,
        cancel: true,
        idempotencyKey: 'x3',
      })
      setNow(new Date('2026-05-15T12:00:00Z'))
      expect(await gateway.getSubscription(ref)).toMatchObject({
        status: 'canceled',
        currentPeriodEnd: new Date('2026-05-15T12:00:00Z'),
        nextAmount: null,
      })
      const refused = await failure(
        gateway.setCancelAtPeriodEnd({
          subscriptionId: ref.subscriptionId,
          cancel: false,
          idempotencyKey: 'x4',
        }),
      )
      expect(refused).toMatchObject({ status: 400, message: TEST_TOKEN_MESSAGES.ended })
    })

    it('changes the card with a new token, declines as at sign-up, and answers a repeated key the same', async () => {
      const { gateway, ref } = await subscribed(['lite_month'], null)
      const declinedToken = gateway.tokeniser.createToken(card('4000000000000002')).id
      const declined = await failure(
        gateway.updateCard({
          customerId: ref.customerId,
          token: declinedToken,
          idempotencyKey: 'd',
        }),
      )
      expect(declined).toMatchObject({
        status: 402,
        code: 'card_declined',
        message: TEST_CARD_FAILURES['4000000000000002']?.message,
      })
      expect((await gateway.getSubscription(ref)).card?.last4).toBe('4242')

      const mastercard = gateway.tokeniser.createToken(
        card('5555555555554444', { exp_month: 3, exp_year: 29 }),
      ).id
      const changed = await gateway.updateCard({
        customerId: ref.customerId,
        token: mastercard,
        idempotencyKey: 'm',
      })
      expect(changed).toEqual({ brand: 'MasterCard', last4: '4444', expMonth: 3, expYear: 2029 })
      expect(
        await gateway.updateCard({
          customerId: ref.customerId,
          token: mastercard,
          idempotencyKey: 'm',
        }),
      ).toEqual(changed)
      expect((await gateway.getSubscription(ref)).card).toEqual(changed)
      const reused = await failure(
        gateway.updateCard({ customerId: ref.customerId, token: mastercard, idempotencyKey: 'n' }),
      )
      expect(reused.code).toBe('token_already_used')
    })

    it("refuses another customer's subscription", async () => {
      const { gateway, ref } = await subscribed(['lite_month'], null)
      const error = await failure(
        gateway.getSubscription({
          customerId: 'cus_test_other',
          subscriptionId: ref.subscriptionId,
        }),
      )
      expect(error).toMatchObject({ status: 400, code: 'invalid_request' })
    })
  })
})

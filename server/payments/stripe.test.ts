import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PaymentError, PROVIDER_UNAVAILABLE_MESSAGE } from './provider.ts'
import { createStripeProvider } from './stripe.ts'

interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  form: Record<string, string>
}

interface StubAnswer {
  status: number
  body: unknown
}

/** A local stand-in for api.stripe.com that records every request and answers from a queue. */
function startStripeStub() {
  const requests: RecordedRequest[] = []
  const answers: StubAnswer[] = []
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(raw)),
      })
      const answer = answers.shift() ?? {
        status: 500,
        body: { error: { message: 'no answer queued' } },
      }
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Request-Id': 'req_stub' })
      res.end(JSON.stringify(answer.body))
    })
  })
  return {
    requests,
    answers,
    server,
    async listen(): Promise<number> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return (server.address() as AddressInfo).port
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const billing = {
  name: 'Glow Med Spa',
  line1: '1 Main Street',
  line2: 'Suite 200',
  city: 'Austin',
  state: 'TX',
  postalCode: '73301',
}

describe('Stripe payment provider against a recording stub', () => {
  const stub = startStripeStub()
  let provider: ReturnType<typeof createStripeProvider>

  beforeAll(async () => {
    const port = await stub.listen()
    provider = createStripeProvider({
      secretKey: 'sk_test_stub',
      host: '127.0.0.1',
      port,
      protocol: 'http',
      maxNetworkRetries: 0,
    })
  })
  afterAll(() => stub.close())
  beforeEach(() => {
    stub.requests.length = 0
    stub.answers.length = 0
  })

  it('creates the customer with the token as source, the billing address and the idempotency key', async () => {
    stub.answers.push({ status: 200, body: { id: 'cus_123', object: 'customer' } })
    const result = await provider.createCustomer({
      token: 'tok_visa',
      email: 'clinic@example.com',
      billingInformation: billing,
      idempotencyKey: 'pay-tok_visa',
    })
    expect(result).toEqual({ customerId: 'cus_123' })
    expect(stub.requests).toHaveLength(1)
    const [request] = stub.requests
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe('/v1/customers')
    expect(request?.headers['idempotency-key']).toBe('pay-tok_visa')
    expect(request?.headers.authorization).toBe('Bearer sk_test_stub')
    expect(request?.form).toEqual({
      email: 'clinic@example.com',
      source: 'tok_visa',
      name: 'Glow Med Spa',
      'address[line1]': '1 Main Street',
      'address[line2]': 'Suite 200',
      'address[city]': 'Austin',
      'address[state]': 'TX',
      'address[postal_code]': '73301',
      'address[country]': 'US',
    })
  })

  it('creates the subscription with every plan and the coupon as a discount', async () => {
    stub.answers.push({ status: 200, body: { id: 'sub_123', object: 'subscription' } })
    const result = await provider.createSubscription({
      customerId: 'cus_123',
      planIds: ['price_lite', 'price_ehr'],
      coupon: 'WELCOME10',
      idempotencyKey: 'subscribe-cus_123',
    })
    expect(result).toEqual({ subscriptionId: 'sub_123' })
    const [request] = stub.requests
    expect(request?.path).toBe('/v1/subscriptions')
    expect(request?.headers['idempotency-key']).toBe('subscribe-cus_123')
    expect(request?.form).toEqual({
      customer: 'cus_123',
      'items[0][price]': 'price_lite',
      'items[1][price]': 'price_ehr',
      'discounts[0][coupon]': 'WELCOME10',
    })
  })

  it('sends no discount when no coupon was applied', async () => {
    stub.answers.push({ status: 200, body: { id: 'sub_124', object: 'subscription' } })
    await provider.createSubscription({
      customerId: 'cus_1',
      planIds: ['price_lite'],
      idempotencyKey: 'k',
    })
    expect(stub.requests[0]?.form).toEqual({ customer: 'cus_1', 'items[0][price]': 'price_lite' })
  })

  it.each([
    ['card_declined', 'generic_decline', 'Your card was declined.', 'card_declined'],
    [
      'card_declined',
      'insufficient_funds',
      'Your card has insufficient funds.',
      'insufficient_funds',
    ],
  ])(
    "turns a Stripe card error (%s/%s) into a 402 with Stripe's message",
    async (code, decline, message, ours) => {
      stub.answers.push({
        status: 402,
        body: { error: { type: 'card_error', code, decline_code: decline, message, param: '' } },
      })
      const error = await provider
        .createCustomer({
          token: 'tok_x',
          email: 'a@b.co',
          billingInformation: billing,
          idempotencyKey: 'k',
        })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(PaymentError)
      expect(error).toMatchObject({ status: 402, code: ours, message })
    },
  )

  it('turns an invalid request into a 400 and a server failure into a calm 502', async () => {
    stub.answers.push({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          message: "No such token: 'tok_x'",
          param: 'source',
        },
      },
    })
    const invalid = await provider
      .createCustomer({
        token: 'tok_x',
        email: 'a@b.co',
        billingInformation: billing,
        idempotencyKey: 'k',
      })
      .catch((e: unknown) => e)
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid_token',
      message: "No such token: 'tok_x'",
    })

    stub.answers.push({ status: 500, body: { error: { type: 'api_error', message: 'boom' } } })
    const down = await provider
      .createSubscription({ customerId: 'cus_1', planIds: ['p'], idempotencyKey: 'k2' })
      .catch((e: unknown) => e)
    expect(down).toMatchObject({ status: 502, message: PROVIDER_UNAVAILABLE_MESSAGE })
  })

  describe('the subscription in Settings', () => {
    const subscriptionObject = (overrides: Record<string, unknown> = {}) => ({
      id: 'sub_123',
      object: 'subscription',
      status: 'active',
      cancel_at_period_end: false,
      customer: 'cus_123',
      discounts: [
        {
          id: 'di_1',
          object: 'discount',
          source: {
            type: 'coupon',
            coupon: {
              id: 'WELCOME10',
              object: 'coupon',
              percent_off: 10,
              amount_off: null,
              duration: 'once',
            },
          },
        },
      ],
      items: {
        object: 'list',
        data: [
          {
            id: 'si_1',
            object: 'subscription_item',
            quantity: 1,
            current_period_end: 1_826_000_000,
            price: {
              id: 'price_lite',
              object: 'price',
              nickname: 'Glow Yearly Lite',
              unit_amount: 106800,
              recurring: { interval: 'year', interval_count: 1 },
            },
          },
        ],
      },
      ...overrides,
    })
    const customerObject = {
      id: 'cus_123',
      object: 'customer',
      default_source: {
        id: 'card_1',
        object: 'card',
        brand: 'Visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2028,
      },
      invoice_settings: { default_payment_method: null },
    }

    it("reads Stripe's subscription, customer and upcoming invoice", async () => {
      stub.answers.push(
        { status: 200, body: subscriptionObject() },
        { status: 200, body: customerObject },
        { status: 200, body: { id: 'upcoming', object: 'invoice', amount_due: 106800 } },
      )
      const state = await provider.getSubscription({
        customerId: 'cus_123',
        subscriptionId: 'sub_123',
      })
      expect(state).toEqual({
        id: 'sub_123',
        status: 'active',
        items: [
          {
            priceId: 'price_lite',
            name: 'Glow Yearly Lite',
            amount: 106800,
            interval: 'year',
            intervalCount: 1,
          },
        ],
        currentPeriodEnd: new Date(1_826_000_000 * 1000),
        cancelAtPeriodEnd: false,
        discount: { coupon: 'WELCOME10', percentOff: 10, amountOff: null, duration: 'once' },
        nextAmount: 106800,
        card: { brand: 'Visa', last4: '4242', expMonth: 12, expYear: 2028 },
      })
      expect(stub.requests.map((r) => `${r.method} ${decodeURIComponent(r.path)}`)).toEqual([
        'GET /v1/subscriptions/sub_123?expand[0]=discounts.source.coupon',
        'GET /v1/customers/cus_123?expand[0]=default_source&expand[1]=invoice_settings.default_payment_method',
        'POST /v1/invoices/create_preview',
      ])
      expect(stub.requests[2]?.form).toEqual({ customer: 'cus_123', subscription: 'sub_123' })
    })

    it('asks for no upcoming invoice once the subscription is set to cancel, and reads a payment method card', async () => {
      stub.answers.push(
        { status: 200, body: subscriptionObject({ cancel_at_period_end: true, discounts: [] }) },
        {
          status: 200,
          body: {
            ...customerObject,
            default_source: null,
            invoice_settings: {
              default_payment_method: {
                id: 'pm_1',
                object: 'payment_method',
                card: { brand: 'mastercard', last4: '4444', exp_month: 3, exp_year: 2029 },
              },
            },
          },
        },
      )
      const state = await provider.getSubscription({
        customerId: 'cus_123',
        subscriptionId: 'sub_123',
      })
      expect(state).toMatchObject({
        cancelAtPeriodEnd: true,
        nextAmount: null,
        discount: null,
        card: { brand: 'mastercard', last4: '4444', expMonth: 3, expYear: 2029 },
      })
      expect(stub.requests).toHaveLength(2)
    })

    it('makes the new token the default source with the idempotency key, and passes a decline on', async () => {
      stub.answers.push({
        status: 200,
        body: {
          ...customerObject,
          default_source: { ...customerObject.default_source, last4: '1881' },
        },
      })
      const card = await provider.updateCard({
        customerId: 'cus_123',
        token: 'tok_new',
        idempotencyKey: 'card:tok_new',
      })
      expect(card).toEqual({ brand: 'Visa', last4: '1881', expMonth: 12, expYear: 2028 })
      const [request] = stub.requests
      expect(request?.path).toBe('/v1/customers/cus_123')
      expect(request?.headers['idempotency-key']).toBe('card:tok_new')
      expect(request?.form).toEqual({
        source: 'tok_new',
        'invoice_settings[default_payment_method]': '',
        'expand[0]': 'default_source',
      })

      stub.answers.push({
        status: 402,
        body: {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: 'generic_decline',
            message: 'Your card was declined.',
          },
        },
      })
      const declined = await provider
        .updateCard({ customerId: 'cus_123', token: 'tok_bad', idempotencyKey: 'card:tok_bad' })
        .catch((e: unknown) => e)
      expect(declined).toMatchObject({
        status: 402,
        code: 'card_declined',
        message: 'Your card was declined.',
      })
    })

    it('sets and clears cancel_at_period_end', async () => {
      stub.answers.push(
        { status: 200, body: subscriptionObject({ cancel_at_period_end: true }) },
        { status: 200, body: subscriptionObject() },
      )
      await provider.setCancelAtPeriodEnd({
        subscriptionId: 'sub_123',
        cancel: true,
        idempotencyKey: 'cancel:1',
      })
      await provider.setCancelAtPeriodEnd({
        subscriptionId: 'sub_123',
        cancel: false,
        idempotencyKey: 'resume:1',
      })
      expect(stub.requests.map((r) => [r.path, r.form, r.headers['idempotency-key']])).toEqual([
        ['/v1/subscriptions/sub_123', { cancel_at_period_end: 'true' }, 'cancel:1'],
        ['/v1/subscriptions/sub_123', { cancel_at_period_end: 'false' }, 'resume:1'],
      ])
    })
  })
})

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
})

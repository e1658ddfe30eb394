import { describe, expect, it, vi } from 'vitest'
import { failureOf, json, stubFetch } from '#src/lib/testing/fetch-stub.ts'
import {
  CARD_FIELDS_NOT_READY_MESSAGE,
  CardTokenError,
  createCardToken,
  paymentErrorMessage,
  TEST_GATEWAY_OFF_MESSAGE,
} from './payments.ts'
import { paymentsMode, type StripeCardFields } from './stripe-fields.ts'

const fetchMock = stubFetch()

const card = {
  number: '4242 4242 4242 4242',
  exp_month: 12,
  exp_year: 2030,
  cvc: '123',
  name: 'Jane Doe',
}

describe('paymentsMode', () => {
  it('uses Stripe only when a publishable key is configured', () => {
    expect(paymentsMode(undefined)).toBe('test')
    expect(paymentsMode('pk_test_123')).toBe('stripe')
  })
})

describe('createCardToken in test mode', () => {
  it('posts the card to the server test tokeniser and answers the token id', async () => {
    let sent: unknown
    fetchMock.mockImplementation(async (request) => {
      sent = await request.clone().json()
      return json({ id: 'tok_abc' })
    })
    await expect(createCardToken(card, { mode: 'test' })).resolves.toEqual({ id: 'tok_abc' })
    const request = fetchMock.mock.calls[0]?.[0]
    expect(request?.method).toBe('POST')
    expect(request?.url).toBe(`${location.origin}/api/payments/test-tokens`)
    expect(sent).toEqual({
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
      name: 'Jane Doe',
    })
  })

  it("shows the tokeniser's reason for a bad card", async () => {
    fetchMock.mockResolvedValue(
      json(
        {
          error: {
            status: 400,
            name: 'PaymentError',
            message: 'Your card number is incorrect.',
            details: { code: 'incorrect_number' },
          },
        },
        400,
      ),
    )
    const error = await failureOf(
      createCardToken({ ...card, number: '4242424242424241' }, { mode: 'test' }),
    )
    expect(await paymentErrorMessage(error)).toBe('Your card number is incorrect.')
  })

  it('explains a server without the test gateway instead of a bare 404', async () => {
    fetchMock.mockResolvedValue(
      json({ error: { status: 404, name: 'NotFoundError', message: 'Not found' } }, 404),
    )
    const error = await failureOf(createCardToken(card, { mode: 'test' }))
    expect(error).toBeInstanceOf(CardTokenError)
    expect(await paymentErrorMessage(error)).toBe(TEST_GATEWAY_OFF_MESSAGE)
  })

  it('refuses an answer that is not a token', async () => {
    fetchMock.mockResolvedValue(json({ id: 'cus_123' }))
    const error = await failureOf(createCardToken(card, { mode: 'test' }))
    expect(await paymentErrorMessage(error)).toBe(
      'The server sent an unexpected answer. Please try again.',
    )
  })
})

describe('createCardToken in Stripe mode', () => {
  it('asks the mounted Elements for a token with the name and billing address, never calling our API', async () => {
    const createToken = vi
      .fn<StripeCardFields['createToken']>()
      .mockResolvedValue({ token: { id: 'tok_stripe' } })
    const result = await createCardToken(card, {
      mode: 'stripe',
      fields: { createToken },
      billing: { line1: '1 Main St', city: 'Austin', state: 'TX', zip: '73301' },
    })
    expect(result).toEqual({ id: 'tok_stripe' })
    expect(createToken).toHaveBeenCalledWith({
      name: 'Jane Doe',
      address_line1: '1 Main St',
      address_city: 'Austin',
      address_state: 'TX',
      address_zip: '73301',
      address_country: 'US',
    })
    expect(fetchMock).not.toHaveBeenCalled()
  })

  it("rejects with Stripe's own message when Stripe refuses the card", async () => {
    const fields: StripeCardFields = {
      createToken: async () => ({ error: { message: 'Your card number is invalid.' } }),
    }
    const error = await failureOf(createCardToken(card, { mode: 'stripe', fields }))
    expect(error).toBeInstanceOf(CardTokenError)
    expect(await paymentErrorMessage(error)).toBe('Your card number is invalid.')
  })

  it('says the fields are not ready when the Elements are not mounted', async () => {
    const error = await failureOf(createCardToken(card, { mode: 'stripe', fields: null }))
    expect(await paymentErrorMessage(error)).toBe(CARD_FIELDS_NOT_READY_MESSAGE)
  })
})

import { afterEach, describe, expect, it, vi } from 'vitest'
import { SAMPLE_PAY_BILLING_INFORMATION } from '#domain/sign-up/sample-values.ts'
import {
  type LockPaymentInput,
  TOKENISATION_ERROR_NAME,
} from '#machines/sign-up/sign-up.machine.ts'
import { lockPayment, type StripeCardFields } from '#src/features/sign-up/sign-up.actors.ts'
import { apiError, stubApi } from '#tests/support/fake-api.ts'

const input: LockPaymentInput = {
  // With Stripe Elements the page never sees the number or the CVV.
  card: { number: '', cvv: '', exp_month: 0, exp_year: 0, name: 'Jane Doe' },
  email: 'practice@example.com',
  billingInformation: SAMPLE_PAY_BILLING_INFORMATION,
}

function stripeFields(answer: Awaited<ReturnType<StripeCardFields['createToken']>>) {
  const createToken = vi.fn<StripeCardFields['createToken']>(async () => answer)
  return { createToken }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('lockPayment with Stripe Elements', () => {
  it("pays with Stripe's token and answers the card as Stripe describes it", async () => {
    const calls = stubApi({ 'POST /auth/pay': { id: 'cus_1' } })
    const fields = stripeFields({
      token: {
        id: 'tok_1',
        card: { last4: '4444', brand: 'MasterCard', exp_month: 3, exp_year: 2031 },
      },
    })
    const answer = await lockPayment(input, { mode: 'stripe', getStripeFields: () => fields })
    expect(answer).toEqual({
      id: 'cus_1',
      card: { last4: '4444', type: 'mastercard', name: 'Jane Doe', exp_month: 3, exp_year: 2031 },
    })
    expect(fields.createToken).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'Jane Doe', address_zip: '62701', address_country: 'US' }),
    )
    expect(calls.map((call) => call.body)).toEqual([
      { token: 'tok_1', email: input.email, billingInformation: input.billingInformation },
    ])
  })

  it("rejects with a TokenisationError carrying Stripe's message when the card is refused", async () => {
    const calls = stubApi({})
    const fields = stripeFields({ error: { message: 'Your card number is invalid.' } })
    const failure = lockPayment(input, { mode: 'stripe', getStripeFields: () => fields })
    await expect(failure).rejects.toMatchObject({
      name: TOKENISATION_ERROR_NAME,
      message: 'Your card number is invalid.',
    })
    expect(calls).toEqual([])
  })

  it('rejects with the provider message when the payment is declined', async () => {
    stubApi({ 'POST /auth/pay': apiError(402, 'Your card was declined.') })
    const fields = stripeFields({ token: { id: 'tok_2' } })
    const failure = lockPayment(input, { mode: 'stripe', getStripeFields: () => fields })
    await expect(failure).rejects.toThrow('Your card was declined.')
    await expect(failure).rejects.not.toMatchObject({ name: TOKENISATION_ERROR_NAME })
  })
})

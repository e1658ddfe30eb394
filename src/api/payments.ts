import type { CreateTokenCardData } from '@stripe/stripe-js'
import { HTTPError } from 'ky'
import * as v from 'valibot'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import {
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
  type TokenCard,
} from '#src/api/stripe-fields.ts'
import { apiErrorMessage, http } from '#src/lib/http.ts'

/**
 * Card tokenisation in the browser. The card never reaches
 * our API's sign-up calls: it becomes a one-time token (`tok_…`) that `POST /auth/pay` charges.
 * - Test mode (no `VITE_STRIPE_PUBLISHABLE_KEY`): the card goes to the server's test tokeniser,
 *   `POST /payments/test-tokens`, which follows Stripe's test cards.
 * - Stripe mode: the card fields are Stripe Elements that the wizard view mounts; it hands them
 *   over as {@link StripeCardFields} and Stripe.js makes the token.
 */

/** The card as the wizard collects it (Stripe's card object shape). */
export type CardInput = {
  number: string
  exp_month: number | string
  exp_year: number | string
  cvc: string
  name: string
}

/** The billing address sent along with a Stripe token (it helps Stripe's address checks). */
export type CardBillingAddress = {
  line1?: string
  line2?: string
  city?: string
  state?: string
  zip?: string
  country?: string
}

/** A tokenisation failure whose message is the provider's own, for the wizard to show as is. */
export class CardTokenError extends Error {
  override readonly name = 'CardTokenError'
}

/** Shown when the browser is in Stripe mode but the card Elements are not mounted. */
export const CARD_FIELDS_NOT_READY_MESSAGE =
  'The card fields are still loading. Please wait a moment and try again.'
/** Shown when the browser expects the test gateway but the server runs with Stripe. */
export const TEST_GATEWAY_OFF_MESSAGE =
  'Card payments are not set up correctly on this site. Please contact support.'

const TokenSchema = v.object({ id: v.pipe(v.string(), v.startsWith('tok_')) })

/** Options of {@link createCardToken}. */
export type CreateCardTokenOptions = {
  /** Defaults to {@link paymentsMode} from the build's configuration. */
  mode?: PaymentsMode
  /** Required in Stripe mode: the mounted card Elements. */
  fields?: StripeCardFields | null
  billing?: CardBillingAddress
}

/**
 * Turns the card into a one-time token id for `POST /auth/pay` (with Stripe, also the card's
 * last four digits, brand and expiry, for the review). In test mode it posts the card to
 * the server's test tokeniser (a 400 carries the reason, e.g. `Your card number is incorrect.`);
 * in Stripe mode it asks Stripe.js, and a refusal rejects with {@link CardTokenError} carrying
 * Stripe's message. Show failures with {@link paymentErrorMessage}.
 */
export async function createCardToken(
  card: CardInput,
  options: CreateCardTokenOptions = {},
): Promise<{ id: string; card?: TokenCard }> {
  const mode = options.mode ?? paymentsMode()
  if (mode === 'test') {
    try {
      const answer = await http
        .post('payments/test-tokens', {
          json: {
            number: card.number.replace(/\s/g, ''),
            exp_month: card.exp_month,
            exp_year: card.exp_year,
            cvc: card.cvc,
            name: card.name,
          } satisfies Body<'POST /api/payments/test-tokens'>,
        })
        .json()
      return parseAnswer('POST /api/payments/test-tokens', TokenSchema, answer)
    } catch (error) {
      if (error instanceof HTTPError && error.response.status === 404) {
        throw new CardTokenError(TEST_GATEWAY_OFF_MESSAGE)
      }
      throw error
    }
  }

  if (!options.fields) throw new CardTokenError(CARD_FIELDS_NOT_READY_MESSAGE)
  const billing = options.billing ?? {}
  const data: CreateTokenCardData = {
    name: card.name,
    ...(billing.line1 ? { address_line1: billing.line1 } : {}),
    ...(billing.line2 ? { address_line2: billing.line2 } : {}),
    ...(billing.city ? { address_city: billing.city } : {}),
    ...(billing.state ? { address_state: billing.state } : {}),
    ...(billing.zip ? { address_zip: billing.zip } : {}),
    address_country: billing.country ?? 'US',
  }
  const result = await options.fields.createToken(data)
  if (result.error || !result.token) {
    throw new CardTokenError(result.error?.message ?? CARD_FIELDS_NOT_READY_MESSAGE)
  }
  const { last4, brand, exp_month, exp_year } = result.token.card ?? {}
  if (last4 && brand && exp_month && exp_year) {
    return { id: result.token.id, card: { last4, brand, exp_month, exp_year } }
  }
  return { id: result.token.id }
}

/**
 * The sentence to show for a failed tokenisation or payment: the provider's message for a
 * {@link CardTokenError}, else what {@link apiErrorMessage} makes of the API's answer.
 */
export async function paymentErrorMessage(error: unknown): Promise<string> {
  if (error instanceof CardTokenError) return error.message
  return apiErrorMessage(error)
}

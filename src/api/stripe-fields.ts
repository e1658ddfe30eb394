import type {
  CreateTokenCardData,
  Stripe,
  StripeCardNumberElement,
  StripeError,
} from '@stripe/stripe-js'
import { env } from '#src/lib/env.ts'

// Which tokeniser is in use, and the Stripe card fields the wizard mounts: what a page needs to
// render its card fields. Making the token is in payments.ts, which the sign-up wizard loads
// only when it pays, so step 1 of /signup does not download it.

/** Which tokeniser is in use. */
export type PaymentsMode = 'test' | 'stripe'

/** `stripe` when a publishable key is configured, else the built-in `test` gateway. */
export function paymentsMode(
  publishableKey: string | undefined = env.VITE_STRIPE_PUBLISHABLE_KEY,
): PaymentsMode {
  return publishableKey ? 'stripe' : 'test'
}

/**
 * The mounted Stripe card fields, as the wizard view hands them over: one function that makes a
 * token from them. Build it with {@link stripeCardFields}; tests pass a fake.
 */
export interface StripeCardFields {
  createToken(data: CreateTokenCardData): Promise<{
    token?: { id: string; card?: TokenCard | null | undefined } | undefined
    error?: Pick<StripeError, 'message'> | undefined
  }>
}

/** What Stripe tells about a tokenised card (the page never sees its number). */
export type TokenCard = { last4: string; brand: string; exp_month: number; exp_year: number }

/** Binds a Stripe.js instance and the mounted card-number Element into {@link StripeCardFields}. */
export function stripeCardFields(
  stripe: Pick<Stripe, 'createToken'>,
  cardNumber: StripeCardNumberElement,
): StripeCardFields {
  return { createToken: (data) => stripe.createToken(cardNumber, data) }
}

let stripeJs: Promise<Stripe | null> | undefined

/**
 * Loads Stripe.js once, with the configured publishable key, for the view that mounts the card
 * Elements. The module is imported lazily so the test-mode bundle never carries it.
 */
export function loadStripeJs(
  publishableKey: string | undefined = env.VITE_STRIPE_PUBLISHABLE_KEY,
): Promise<Stripe | null> {
  if (!publishableKey) return Promise.resolve(null)
  stripeJs ??= import('@stripe/stripe-js').then(({ loadStripe }) => loadStripe(publishableKey))
  return stripeJs
}

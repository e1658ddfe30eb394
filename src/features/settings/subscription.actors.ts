import { HTTPError } from 'ky'
import type { SubscriptionAnswer } from '#domain/subscription.ts'
import { type CardInput, createCardToken, paymentErrorMessage } from '#src/api/payments.ts'
import {
  loadStripeJs,
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from '#src/api/stripe-fields.ts'
import {
  cancelSubscription,
  changeSubscriptionCard,
  getSubscription,
  resumeSubscription,
} from '#src/api/subscription.ts'
import { apiErrorMessage } from '#src/lib/http.ts'

/**
 * An answer, or the sentence the person should read; `refused` when the server answered 403 (no
 * longer an Admin): trying again cannot help, so no "Try again" is offered.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string; refused?: boolean }

async function outcome<T>(
  call: () => Promise<T>,
  describe: (error: unknown) => Promise<string> = apiErrorMessage,
): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() }
  } catch (error) {
    const refused = error instanceof HTTPError && error.response.status === 403
    return { ok: false, message: await describe(error), ...(refused ? { refused } : {}) }
  }
}

// The card change mounts Stripe Elements in Stripe mode; it reaches Stripe.js through this file,
// the feature's only door to src/api.
export { loadStripeJs, type PaymentsMode, type StripeCardFields, stripeCardFields }

/** The subscription calls of Settings; every failure comes back as a sentence. */
export type SubscriptionCalls = {
  mode: PaymentsMode
  load(): Promise<Outcome<SubscriptionAnswer>>
  cancel(): Promise<Outcome<SubscriptionAnswer>>
  resume(): Promise<Outcome<SubscriptionAnswer>>
  /** Tokenises the card as the sign-up does (test tokeniser or Stripe.js), then puts it on file. */
  changeCard(card: CardInput, fields: StripeCardFields | null): Promise<Outcome<SubscriptionAnswer>>
}

/** The real calls: the API and the build's tokeniser. */
export const subscriptionCalls: SubscriptionCalls = {
  mode: paymentsMode(),
  load: () => outcome(getSubscription),
  cancel: () => outcome(cancelSubscription),
  resume: () => outcome(resumeSubscription),
  changeCard: (card, fields) =>
    outcome(async () => {
      const token = await createCardToken(card, { fields })
      return changeSubscriptionCard(token.id)
    }, paymentErrorMessage),
}

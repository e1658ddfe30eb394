import type { PaymentProvider } from './provider.ts'
import { createStripeProvider } from './stripe.ts'
import { createTestGateway, type PriceCatalog, type TestGatewayStore } from './test-gateway.ts'

export { databaseGatewayStore } from './gateway-store.ts'
export type {
  CancelAtPeriodEndInput,
  CardTokeniser,
  CreateCustomerInput,
  CreateSubscriptionInput,
  CustomerBilling,
  PaymentProvider,
  ProviderCard,
  SubscriptionDiscount,
  SubscriptionItem,
  SubscriptionRef,
  SubscriptionState,
  TestCardInput,
  UpdateCardInput,
} from './provider.ts'
export { PaymentError, PROVIDER_UNAVAILABLE_MESSAGE } from './provider.ts'
export { createStripeProvider } from './stripe.ts'
export {
  createTestGateway,
  memoryGatewayStore,
  type PriceCatalog,
  type TestGateway,
  type TestGatewayStore,
} from './test-gateway.ts'

/**
 * Chooses the payment provider from the environment: Stripe when
 * `STRIPE_SECRET_KEY` is set, else the built-in test gateway (on `store`: the server passes the
 * database's, so its customers and subscriptions outlive a restart).
 */
export function createPaymentProvider(
  env: { STRIPE_SECRET_KEY?: string | undefined } = process.env,
  options: { now?: () => Date; catalog?: PriceCatalog; store?: TestGatewayStore } = {},
): PaymentProvider {
  const secretKey = env.STRIPE_SECRET_KEY?.trim()
  return secretKey ? createStripeProvider({ secretKey }) : createTestGateway(options)
}

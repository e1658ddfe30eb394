/**
 * The demo practice's subscription on the built-in test gateway: the customer and the
 * subscription sign-up would have made, stored in the gateway's tables so that Settings shows the
 * plan, the card and the next renewal from the first start on, and after every restart. Only for
 * the test gateway: with Stripe the demo would name a customer Stripe does not know.
 */
import { eq } from 'drizzle-orm'
import { DAY_MS } from '#domain/time.ts'
import type { Database } from '#server/db/client.ts'
import { practices } from '#server/db/schema.ts'
import { databaseGatewayStore } from '#server/payments/gateway-store.ts'
import { addMonths, randomId, termMonths } from '#server/payments/test-gateway.ts'

/** The card on file: Stripe's test Visa. */
export const DEMO_CARD = { brand: 'Visa', last4: '4242', expMonth: 12 } as const

/** How long ago the demo practice subscribed: within the seeded year of history. */
export const DEMO_SUBSCRIBED_MONTHS_AGO = 11

export type DemoSubscriptionInput = {
  practiceId: number
  now: Date
  email: string
  billing: { name: string; line1: string; city: string; state: string; postalCode: string }
  /** The plan sign-up chose, with its term. */
  plan: { id: string; interval: 'month' | 'year' }
}

/** What {@link seedDemoSubscription} made. */
export type DemoSubscription = { customerId: string; subscriptionId: string; anchor: Date }

/**
 * Creates the demo practice's customer (Visa •••• 4242) and its subscription to `plan`, started
 * {@link DEMO_SUBSCRIBED_MONTHS_AGO} months (and a few days) before `now`, with every renewal
 * since then already begun, and keeps their ids on the practice as sign-up does.
 */
export async function seedDemoSubscription(
  db: Database,
  { practiceId, now, email, billing, plan }: DemoSubscriptionInput,
): Promise<DemoSubscription> {
  const store = databaseGatewayStore(db)
  const customerId = randomId('cus_test_')
  const card = { ...DEMO_CARD, expYear: now.getUTCFullYear() + 3 }
  await store.addCustomer({
    id: customerId,
    email,
    last4: card.last4,
    card,
    billing: { ...billing, country: 'US' },
  })
  // A few days past the month, so the next renewal is some weeks away rather than today.
  const anchor = new Date(addMonths(now, -DEMO_SUBSCRIBED_MONTHS_AGO).getTime() - 9 * DAY_MS)
  const months = termMonths({ interval: plan.interval, intervalCount: 1 })
  let periods = 1
  while (addMonths(anchor, months * periods).getTime() <= now.getTime()) periods += 1
  const subscriptionId = randomId('sub_test_')
  await store.addSubscription({
    id: subscriptionId,
    customerId,
    planIds: [plan.id],
    coupon: null,
    couponDuration: null,
    anchor,
    periods,
    currentPeriodStart: addMonths(anchor, months * (periods - 1)),
    currentPeriodEnd: addMonths(anchor, months * periods),
    cancelAtPeriodEnd: false,
    canceledAt: null,
    endedAt: null,
    status: 'active',
  })
  await db
    .update(practices)
    .set({ stripe_customer_id: customerId, stripe_subscription_id: subscriptionId })
    .where(eq(practices.id, practiceId))
  return { customerId, subscriptionId, anchor }
}

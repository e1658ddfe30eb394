import { and, asc, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import {
  testGatewayCustomers,
  testGatewayIdempotency,
  testGatewaySubscriptions,
} from '#server/db/schema.ts'
import type { CustomerBilling } from './provider.ts'
import type {
  StoredAnswer,
  TestCustomer,
  TestGatewayStore,
  TestSubscription,
} from './test-gateway.ts'

type CustomerRow = typeof testGatewayCustomers.$inferSelect
type SubscriptionRow = typeof testGatewaySubscriptions.$inferSelect

function toCustomer(row: CustomerRow): TestCustomer {
  return {
    id: row.id,
    email: row.email,
    last4: row.card_last4,
    card: {
      brand: row.card_brand,
      last4: row.card_last4,
      expMonth: row.card_exp_month,
      expYear: row.card_exp_year,
    },
    billing: row.billing as unknown as CustomerBilling,
  }
}

function toSubscription(row: SubscriptionRow): TestSubscription {
  return {
    id: row.id,
    customerId: row.customer_id,
    planIds: row.plan_ids,
    coupon: row.coupon,
    couponDuration:
      row.coupon_duration === 'forever'
        ? 'forever'
        : row.coupon_duration === 'once'
          ? 'once'
          : null,
    anchor: row.billing_cycle_anchor,
    periods: row.periods,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    canceledAt: row.canceled_at,
    endedAt: row.ended_at,
    status: row.status === 'canceled' ? 'canceled' : 'active',
  }
}

/** The columns a subscription's changes write (everything but who and what it is for). */
function changes(subscription: TestSubscription) {
  return {
    status: subscription.status,
    periods: subscription.periods,
    current_period_start: subscription.currentPeriodStart,
    current_period_end: subscription.currentPeriodEnd,
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: subscription.canceledAt,
    ended_at: subscription.endedAt,
  }
}

/**
 * The test gateway's customers, subscriptions and idempotency answers in the database (tables
 * `test_gateway_*`), so that, like Stripe's, they outlive a restart of the server and are shared
 * by every instance on the same database.
 */
export function databaseGatewayStore(db: Database): TestGatewayStore {
  return {
    async addCustomer(customer) {
      await db.insert(testGatewayCustomers).values({
        id: customer.id,
        email: customer.email,
        card_brand: customer.card.brand,
        card_last4: customer.card.last4,
        card_exp_month: customer.card.expMonth,
        card_exp_year: customer.card.expYear,
        billing: { ...customer.billing },
      })
    },
    async customer(id) {
      const [row] = await db
        .select()
        .from(testGatewayCustomers)
        .where(eq(testGatewayCustomers.id, id))
        .limit(1)
      return row ? toCustomer(row) : null
    },
    async setCard(customerId, card) {
      await db
        .update(testGatewayCustomers)
        .set({
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.expMonth,
          card_exp_year: card.expYear,
        })
        .where(eq(testGatewayCustomers.id, customerId))
    },
    async addSubscription(subscription) {
      await db.insert(testGatewaySubscriptions).values({
        id: subscription.id,
        customer_id: subscription.customerId,
        plan_ids: [...subscription.planIds],
        coupon: subscription.coupon,
        coupon_duration: subscription.couponDuration,
        billing_cycle_anchor: subscription.anchor,
        ...changes(subscription),
      })
    },
    async subscription(id) {
      const [row] = await db
        .select()
        .from(testGatewaySubscriptions)
        .where(eq(testGatewaySubscriptions.id, id))
        .limit(1)
      return row ? toSubscription(row) : null
    },
    async saveSubscription(subscription) {
      await db
        .update(testGatewaySubscriptions)
        .set(changes(subscription))
        .where(eq(testGatewaySubscriptions.id, subscription.id))
    },
    async customers() {
      const rows = await db
        .select()
        .from(testGatewayCustomers)
        .orderBy(asc(testGatewayCustomers.created_at), asc(testGatewayCustomers.id))
      return rows.map(toCustomer)
    },
    async subscriptions() {
      const rows = await db
        .select()
        .from(testGatewaySubscriptions)
        .orderBy(asc(testGatewaySubscriptions.created_at), asc(testGatewaySubscriptions.id))
      return rows.map(toSubscription)
    },
    async answer(operation, key) {
      const [row] = await db
        .select({ answer: testGatewayIdempotency.answer })
        .from(testGatewayIdempotency)
        .where(
          and(eq(testGatewayIdempotency.operation, operation), eq(testGatewayIdempotency.key, key)),
        )
        .limit(1)
      return row ? (row.answer as StoredAnswer) : null
    },
    async remember(operation, key, answer) {
      await db
        .insert(testGatewayIdempotency)
        .values({ operation, key, answer })
        .onConflictDoNothing()
    },
  }
}

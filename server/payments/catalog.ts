import { eq } from 'drizzle-orm'
import type { Plan } from '#domain/plans.ts'
import { planAmountCents } from '#domain/pricing.ts'
import type { Database } from '#server/db/client.ts'
import { coupons, planColumns, plans } from '#server/db/schema.ts'
import type { PriceCatalog } from './test-gateway.ts'

/**
 * The test gateway's price list: our plans and coupons tables, which stand for the prices and
 * coupons configured in Stripe (the seed's plans are the product's).
 */
export function databaseCatalog(db: Database): PriceCatalog {
  return {
    async price(id) {
      const [row] = await db.select(planColumns).from(plans).where(eq(plans.id, id)).limit(1)
      if (!row) return null
      const plan: Plan = { ...row, interval: row.interval === 'year' ? 'year' : 'month' }
      return {
        name: plan.nickname,
        amount: planAmountCents(plan),
        interval: plan.interval,
        intervalCount: plan.interval_count,
      }
    },
    async coupon(id) {
      const [row] = await db
        .select({
          percent_off: coupons.percent_off,
          amount_off: coupons.amount_off,
          duration: coupons.duration,
        })
        .from(coupons)
        .where(eq(coupons.id, id))
        .limit(1)
      if (!row) return null
      return {
        percentOff: row.percent_off,
        amountOff: row.amount_off,
        duration: row.duration === 'forever' ? 'forever' : 'once',
      }
    },
  }
}

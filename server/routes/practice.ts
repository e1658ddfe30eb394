import { asc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import type { PlansAnswer } from '#domain/plans.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { coupons, plans } from '#server/db/schema.ts'
import { notFound } from '#server/http/errors.ts'

const couponColumns = {
  id: coupons.id,
  amount_off: coupons.amount_off,
  percent_off: coupons.percent_off,
}

const COUPON_CODE = /^[\w-]{1,64}$/

/**
 * Plans and coupons, public because the sign-up wizard needs them before an account exists
 * (DESIGN.md section 4). `GET /practice/plans` lists the active plans and only the coupons marked
 * public; `GET /practice/coupons/{code}` finds any coupon by its exact code, or 404
 * `Invalid promo code`, so private codes are never shipped to every browser.
 */
export function practiceRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .get('/plans', async (c) => {
      const [planRows, couponRows] = await Promise.all([
        ctx.db
          .select({
            id: plans.id,
            nickname: plans.nickname,
            interval: plans.interval,
            interval_count: plans.interval_count,
            amount: plans.amount,
            tiers: plans.tiers,
          })
          .from(plans)
          .where(eq(plans.active, true))
          .orderBy(asc(plans.sort_order), asc(plans.id)),
        ctx.db
          .select(couponColumns)
          .from(coupons)
          .where(eq(coupons.public, true))
          .orderBy(asc(coupons.id)),
      ])
      const answer: PlansAnswer = {
        plans: {
          data: planRows.map((plan) => ({
            ...plan,
            interval: plan.interval === 'year' ? 'year' : 'month',
          })),
        },
        coupons: { data: couponRows },
      }
      return c.json(answer)
    })
    .get('/coupons/:code', async (c) => {
      const code = c.req.param('code')
      const [row] = COUPON_CODE.test(code)
        ? await ctx.db.select(couponColumns).from(coupons).where(eq(coupons.id, code)).limit(1)
        : []
      if (!row) throw notFound('Invalid promo code')
      return c.json(row)
    })
}

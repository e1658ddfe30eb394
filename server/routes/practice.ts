import { asc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import type { PlansAnswer } from '#domain/plans.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { coupons, planColumns, plans } from '#server/db/schema.ts'
import { notFound } from '#server/http/errors.ts'
import { securedResponse, withSecurityHeaders } from '#server/security/headers.ts'

const couponColumns = {
  id: coupons.id,
  amount_off: coupons.amount_off,
  percent_off: coupons.percent_off,
}

const COUPON_CODE = /^[\w-]{1,64}$/

/** How long `GET /practice/plans` answers from memory before reading the tables again. */
export const PLANS_MAX_AGE_MS = 30_000

/**
 * Plans and coupons, public because the sign-up wizard needs them before an account exists
 * (DESIGN.md section 4). `GET /practice/plans` lists the active plans and only the coupons marked
 * public; `GET /practice/coupons/{code}` finds any coupon by its exact code, or 404
 * `Invalid promo code`, so private codes are never shipped to every browser.
 */
export function practiceRoutes(ctx: ServerContext) {
  // Plans and public coupons change with a deploy or a manual edit, not per request, and every
  // wizard asks for them: the serialized answer is kept for PLANS_MAX_AGE_MS (issue 8).
  let plansAnswer: { json: Uint8Array<ArrayBuffer>; readAt: number } | undefined
  let readingPlans: Promise<Uint8Array<ArrayBuffer>> | undefined
  // The same headers on every answer: built once, sent as they are (server/security/headers.ts).
  const plansHeaders = withSecurityHeaders(ctx.config, { 'Content-Type': 'application/json' })

  async function readPlans(): Promise<Uint8Array<ArrayBuffer>> {
    const readAt = ctx.now().getTime()
    const [planRows, couponRows] = await Promise.all([
      ctx.db
        .select(planColumns)
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
    // Encoded once: each answer then writes the same bytes.
    const json = new TextEncoder().encode(JSON.stringify(answer))
    plansAnswer = { json, readAt }
    return json
  }

  return new Hono<AppEnv>()
    .get('/plans', async () => {
      let json = plansAnswer?.json
      if (!json || !plansAnswer || ctx.now().getTime() - plansAnswer.readAt >= PLANS_MAX_AGE_MS) {
        // One read for all the requests that find the answer missing or old.
        readingPlans ??= readPlans().finally(() => {
          readingPlans = undefined
        })
        json = await readingPlans
      }
      return securedResponse(json, 200, plansHeaders)
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

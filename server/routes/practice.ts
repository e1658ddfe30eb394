import { asc, eq, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import type { PlansAnswer } from '#domain/plans.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { coupons, planColumns, plans } from '#server/db/schema.ts'
import { ApiError, notFound } from '#server/http/errors.ts'
import { securedResponse, withSecurityHeaders } from '#server/security/headers.ts'
import { createRateLimiter } from '#server/services/rate-limit.ts'

const couponColumns = {
  id: coupons.id,
  amount_off: coupons.amount_off,
  percent_off: coupons.percent_off,
}

const COUPON_CODE = /^[\w-]{1,64}$/

/** Promo code lookups per client address: a person tries a few codes, a guesser thousands. */
export const COUPON_LOOKUP_LIMIT = { max: 20, windowMs: 15 * 60 * 1000 } as const

/** The 429 of {@link COUPON_LOOKUP_LIMIT}. */
export const COUPON_LOOKUP_TOO_MANY =
  'Too many promo codes were tried. Please wait a few minutes and try again.'

/** How long `GET /practice/plans` answers from memory before reading the tables again. */
export const PLANS_MAX_AGE_MS = 30_000

/**
 * Plans and coupons, public because the sign-up wizard needs them before an account exists
 * (DESIGN.md section 4). `GET /practice/plans` lists the active plans and only the coupons marked
 * public; `GET /practice/coupons/{code}` finds any coupon by its code in any case, or 404
 * `Invalid promo code`, so private codes are never shipped to every browser.
 */
export function practiceRoutes(ctx: ServerContext) {
  const couponLimiter = createRateLimiter(ctx.rateLimitStore)
  // PROMO_LOOKUPS_PER_ADDRESS raises the lookups one address may make in 15 minutes where every
  // caller shares one address (a clinic behind one NAT, or the test harness); the default stays 20.
  const couponLimit = {
    ...COUPON_LOOKUP_LIMIT,
    max:
      Number(process.env.PROMO_LOOKUPS_PER_ADDRESS?.trim() || Number.NaN) ||
      COUPON_LOOKUP_LIMIT.max,
  }
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
      // Private codes are secrets of a kind: guessing them costs time (issue 14: 170 a second).
      const decision = await couponLimiter.consume(
        `coupon:ip:${ctx.clientIp(c)}`,
        couponLimit,
        ctx.now().getTime(),
      )
      if (!decision.allowed) {
        throw new ApiError(429, API_ERROR_NAMES.rateLimit, COUPON_LOOKUP_TOO_MANY, {
          retryAfterSeconds: decision.retryAfterSeconds,
        })
      }
      const code = c.req.param('code')
      const [row] = COUPON_CODE.test(code)
        ? await ctx.db
            .select(couponColumns)
            .from(coupons)
            // Promo codes are the same in any case: 'welcome10' is WELCOME10 (issue 21).
            .where(sql`upper(${coupons.id}) = upper(${code})`)
            .limit(1)
        : []
      if (!row) throw notFound('Invalid promo code')
      return c.json(row)
    })
}

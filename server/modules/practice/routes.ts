import { Hono } from 'hono'
import { CouponSchema, PlansAnswerSchema } from '#domain/plans.ts'
import {
  PracticeAnswerSchema,
  PracticeSettingsPayloadSchema,
  PracticeSettingsSchema,
  withStoredCredentials,
} from '#domain/practice-settings.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { notFound } from '#server/http/errors.ts'
import { refuseWhenLimited } from '#server/http/rate-limited.ts'
import { jsonBody, parseOr400 } from '#server/http/validate.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { securedResponse, withSecurityHeaders } from '#server/security/headers.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { couponByCode, readPlansAnswer } from './queries.ts'
import { practiceDetailsService } from './service.ts'

const COUPON_CODE = /^[\w-]{1,64}$/

/** Promo code lookups per client address: a person tries a few codes, a guesser thousands. */
export const COUPON_LOOKUP_LIMIT = { max: 20, windowMs: 15 * 60 * 1000 } as const

/** The 429 of {@link COUPON_LOOKUP_LIMIT}. */
export const COUPON_LOOKUP_TOO_MANY =
  'Too many promo codes were tried. Please wait a few minutes and try again.'

/** How long `GET /practice/plans` answers from memory before reading the tables again. */
export const PLANS_MAX_AGE_MS = 30_000

/**
 * `GET /practice` (any member of the practice) and `PUT /practice` (Admin: `practice.settings`):
 * the practice's details in Settings, with the sign-up wizard's rules
 * (domain/practice-settings.ts). The Nextech username and password are write-only: answered as
 * set or not, and an empty one on save keeps the stored value. Each save is an audit event
 * naming the fields that changed, never their values.
 */
export function practiceDetailRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const details = practiceDetailsService(ctx)
  return new Hono<AppEnv>()
    .get(
      '/',
      operation({
        summary: "Read the practice's details",
        description:
          'Any member of the practice: name, office, website, phone, e-mail, address, the health record choice and the footer links. The Nextech username and password are never answered: only `username_set` and `password_set`.',
        tag: 'Settings',
        responses: { 200: { description: 'The practice.', json: PracticeAnswerSchema } },
      }),
      auth,
      anyStaffMember(),
      async (c) => {
        return c.json(await details.read(c.var.user.practice_id))
      },
    )
    .put(
      '/',
      operation({
        summary: "Change the practice's details",
        description:
          "Admin only. The sign-up wizard's rules and messages for each field (a US zip or a Canadian postal code matching the country, a state or province of that country); footer links are https addresses (support: an e-mail too), each optional. An empty Nextech username or password keeps the stored one. 400 names each field (`details.issues`). Audited with the names of the changed fields.",
        tag: 'Settings',
        responses: { 200: { description: 'The practice as saved.', json: PracticeAnswerSchema } },
      }),
      auth,
      requirePermission(ctx, 'practice.settings'),
      jsonBody(PracticeSettingsPayloadSchema),
      async (c) => {
        const before = await details.stored(c.var.user.practice_id)
        // The body with each empty credential filled from the stored settings, then the wizard's
        // cross-field rules: "Please fill Password field" speaks only when nothing is stored.
        const next = parseOr400(
          PracticeSettingsSchema,
          withStoredCredentials(c.req.valid('json'), before.nextech ?? {}),
        )
        return c.json(await details.save(actorOf(ctx, c), before, next))
      },
    )
}

/**
 * Plans and coupons, public because the sign-up wizard needs them before an account exists.
 * `GET /practice/plans` lists the active plans and only the coupons marked
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
  // wizard asks for them: the serialized answer is kept for PLANS_MAX_AGE_MS.
  let plansAnswer: { json: Uint8Array<ArrayBuffer>; readAt: number } | undefined
  let readingPlans: Promise<Uint8Array<ArrayBuffer>> | undefined
  // The same headers on every answer: built once, sent as they are (server/security/headers.ts).
  const plansHeaders = withSecurityHeaders(ctx.config, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
  })

  async function readPlans(): Promise<Uint8Array<ArrayBuffer>> {
    const readAt = ctx.now().getTime()
    const answer = await readPlansAnswer(ctx.db)
    // Encoded once: each answer then writes the same bytes.
    const json = new TextEncoder().encode(JSON.stringify(answer))
    plansAnswer = { json, readAt }
    return json
  }

  return new Hono<AppEnv>()
    .get(
      '/plans',
      operation({
        summary: 'List plans and public coupons',
        description:
          'The active subscription plans and the coupons marked public, in Stripe list shape. Public: the sign-up wizard needs them before an account exists. Private coupons are never listed.',
        tag: 'Sign-up',
        public: true,
        responses: { 200: { description: 'Plans and public coupons.', json: PlansAnswerSchema } },
      }),
      async () => {
        let json = plansAnswer?.json
        if (!json || !plansAnswer || ctx.now().getTime() - plansAnswer.readAt >= PLANS_MAX_AGE_MS) {
          // One read for all the requests that find the answer missing or old.
          readingPlans ??= readPlans().finally(() => {
            readingPlans = undefined
          })
          json = await readingPlans
        }
        return securedResponse(json, 200, plansHeaders)
      },
    )
    .get(
      '/coupons/:code',
      operation({
        summary: 'Look up a promo code',
        description: 'Finds any coupon, public or private, by its exact code.',
        tag: 'Sign-up',
        public: true,
        path: {
          code: {
            description: 'The promo code, as typed.',
            schema: { type: 'string', maxLength: 64 },
          },
        },
        responses: {
          200: { description: 'The coupon.', json: CouponSchema },
          404: 'Invalid promo code',
          429: TOO_MANY,
        },
      }),
      async (c) => {
        // Private codes are secrets of a kind: guessing them costs time (170 a second).
        const decision = await couponLimiter.consume(
          `coupon:ip:${ctx.clientIp(c)}`,
          couponLimit,
          ctx.now().getTime(),
        )
        refuseWhenLimited(decision, COUPON_LOOKUP_TOO_MANY)
        const code = c.req.param('code')
        const row = COUPON_CODE.test(code) ? await couponByCode(ctx.db, code) : undefined
        if (!row) throw notFound('Invalid promo code')
        return c.json(row)
      },
    )
}

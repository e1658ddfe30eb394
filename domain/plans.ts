import * as v from 'valibot'

/** A price tier of a plan, Stripe's shape; amounts in cents. */
export const PlanTierSchema = v.object({
  amount: v.nullable(v.number()),
  flat_amount: v.nullable(v.number()),
  up_to: v.optional(v.nullable(v.number())),
})

/**
 * A subscription plan as the server lists it (Stripe's shape, amounts in cents). The nickname
 * tells the kind: it contains `Lite` or `EHR`, and `Monthly` or `Yearly`.
 */
export const PlanSchema = v.object({
  id: v.string(),
  nickname: v.string(),
  interval: v.picklist(['month', 'year']),
  interval_count: v.number(),
  amount: v.nullable(v.number()),
  tiers: v.nullable(v.array(PlanTierSchema)),
})
export type Plan = v.InferOutput<typeof PlanSchema>

/** A promo coupon: the id is the promo code; it takes either an amount (cents) or a percent off. */
export const CouponSchema = v.object({
  id: v.string(),
  amount_off: v.nullable(v.number()),
  percent_off: v.nullable(v.number()),
})
export type Coupon = v.InferOutput<typeof CouponSchema>

/** `GET /practice/plans`: the plans and the public coupons, in Stripe's list shape. */
export const PlansAnswerSchema = v.object({
  plans: v.object({ data: v.array(PlanSchema) }),
  coupons: v.object({ data: v.array(CouponSchema) }),
})
export type PlansAnswer = v.InferOutput<typeof PlansAnswerSchema>

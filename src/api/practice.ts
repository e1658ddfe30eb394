import { type Coupon, CouponSchema, type PlansAnswer, PlansAnswerSchema } from '#domain/plans.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /practice/plans`: the subscription plans and the public promo coupons. */
export async function getPlans(): Promise<PlansAnswer> {
  return parseAnswer(
    'GET /api/practice/plans',
    PlansAnswerSchema,
    await http.get('practice/plans').json(),
  )
}

/** `GET /practice/coupons/{code}`: one coupon by its promo code; 404 `Invalid promo code`. */
export async function getCoupon(code: string): Promise<Coupon> {
  return parseAnswer(
    'GET /api/practice/coupons/:code',
    CouponSchema,
    await http.get(`practice/coupons/${encodeURIComponent(code)}`).json(),
  )
}

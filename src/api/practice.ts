import * as v from 'valibot'
import { type Coupon, CouponSchema, type PlansAnswer, PlansAnswerSchema } from '#domain/plans.ts'
import {
  type PracticeAnswer,
  PracticeAnswerSchema,
  type PracticeSettingsInput,
} from '#domain/practice-settings.ts'
import { http } from '#src/lib/http.ts'

/** `GET /practice/plans`: the subscription plans and the public promo coupons. */
export async function getPlans(): Promise<PlansAnswer> {
  return v.parse(PlansAnswerSchema, await http.get('practice/plans').json())
}

/** `GET /practice/coupons/{code}`: one coupon by its promo code; 404 `Invalid promo code`. */
export async function getCoupon(code: string): Promise<Coupon> {
  return v.parse(
    CouponSchema,
    await http.get(`practice/coupons/${encodeURIComponent(code)}`).json(),
  )
}

/** `GET /practice`: the practice's details (the Nextech secrets only as set or not). */
export async function getPractice(): Promise<PracticeAnswer> {
  return v.parse(PracticeAnswerSchema, await http.get('practice').json())
}

/** `PUT /practice` (Admin): an empty Nextech username or password keeps the stored one. */
export async function savePractice(values: PracticeSettingsInput): Promise<PracticeAnswer> {
  return v.parse(PracticeAnswerSchema, await http.put('practice', { json: values }).json())
}

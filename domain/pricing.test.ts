import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Coupon, Plan } from '#domain/plans.ts'
import {
  centsToDollars,
  computePricing,
  describePlan,
  EHR_PRICE_PER_MONTH,
  findPlan,
  formatUsd,
  planAmountCents,
  planMonthlyPrice,
  planOptionLabel,
  promoDeduction,
  selectedPlanIds,
  termMonths,
  termOptions,
} from '#domain/pricing.ts'

function plan(id: string, nickname: string, interval: 'month' | 'year', amount: number): Plan {
  return { id, nickname, interval, interval_count: 1, amount, tiers: null }
}

const PLANS: Plan[] = [
  plan('lite-m', 'Glow Monthly Lite', 'month', 9900),
  plan('lite-y', 'Glow Yearly Lite', 'year', 106800),
  plan('ehr-m', 'Glow EHR Monthly', 'month', 49900),
  plan('ehr-y', 'Glow EHR Yearly', 'year', 540000),
]

const percent = (value: number): Coupon => ({ id: 'PCT', percent_off: value, amount_off: null })
const amount = (cents: number): Coupon => ({ id: 'AMT', percent_off: null, amount_off: cents })

describe('plans', () => {
  it('finds plans by nickname and term', () => {
    expect(findPlan(PLANS, 'lite', 'month')?.id).toBe('lite-m')
    expect(findPlan(PLANS, 'lite', 'year')?.id).toBe('lite-y')
    expect(findPlan(PLANS, 'ehr', 'month')?.id).toBe('ehr-m')
    expect(findPlan(PLANS, 'ehr', 'year')?.id).toBe('ehr-y')
    expect(findPlan([], 'lite', 'month')).toBeNull()
    expect(describePlan(PLANS[3] as Plan)).toEqual({ kind: 'ehr', term: 'year' })
    expect(describePlan(plan('x', 'Something else', 'month', 1))).toBeNull()
  })

  it('converts cents to dollars; yearly Lite is shown per month (÷12)', () => {
    expect(centsToDollars(9900)).toBe(99)
    expect(planMonthlyPrice(PLANS[0] as Plan)).toBe(99)
    expect(planMonthlyPrice(PLANS[1] as Plan)).toBe(89)
  })

  it('reads a tiered plan from its first tier', () => {
    const tiered: Plan = {
      ...plan('t', 'Tiered Monthly Lite', 'month', 0),
      amount: null,
      tiers: [{ amount: null, flat_amount: 1500 }],
    }
    expect(planAmountCents(tiered)).toBe(1500)
    expect(planAmountCents({ ...tiered, tiers: [{ amount: 700, flat_amount: null }] })).toBe(700)
    expect(planAmountCents({ ...tiered, tiers: null })).toBe(0)
  })

  it('labels plan options by interval and interval_count', () => {
    expect(planOptionLabel({ interval: 'month', interval_count: 1 })).toBe('Monthly')
    expect(planOptionLabel({ interval: 'year', interval_count: 1 })).toBe('Yearly')
    expect(planOptionLabel({ interval: 'month', interval_count: 3 })).toBe('Every 3 months')
    expect(planOptionLabel({ interval: 'year', interval_count: 2 })).toBe('Every 2 years')
    expect(termOptions(PLANS)).toEqual([
      { value: 'month', label: 'Monthly' },
      { value: 'year', label: 'Yearly' },
    ])
  })

  it('selects the plan ids of the choice', () => {
    expect(selectedPlanIds(PLANS, 'month', false)).toEqual(['lite-m'])
    expect(selectedPlanIds(PLANS, 'year', true)).toEqual(['lite-y', 'ehr-y'])
    expect(termMonths('month')).toBe(1)
    expect(termMonths('year')).toBe(12)
  })
})

describe('promo deduction', () => {
  it('takes the rounded percentage or the amount ÷ 100', () => {
    expect(promoDeduction(99, percent(10))).toBe(9.9)
    expect(promoDeduction(99.99, percent(15))).toBe(15)
    expect(promoDeduction(99, amount(5000))).toBe(50)
    expect(promoDeduction(99, null)).toBe(0)
  })

  it('never exceeds the subscription', () => {
    expect(promoDeduction(30, amount(5000))).toBe(30)
    expect(promoDeduction(30, percent(150))).toBe(30)
  })

  it('percent deductions are whole cents between 0 and the subscription (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        (cents, pct) => {
          const deduction = promoDeduction(cents / 100, percent(pct))
          expect(Number.isInteger(Math.round(deduction * 100))).toBe(true)
          expect(Math.abs(deduction * 100 - Math.round((cents * pct) / 100))).toBeLessThan(1e-6)
          expect(deduction).toBeLessThanOrEqual(cents / 100)
        },
      ),
    )
  })
})

describe('computePricing', () => {
  it('monthly Lite alone', () => {
    expect(computePricing({ plans: PLANS, term: 'month', ehr: false, coupon: null })).toEqual({
      term: 'month',
      basic: { plan: PLANS[0], perMonth: 99, billed: 99 },
      ehr: null,
      subscription: 99,
      deduction: 0,
      subTotal: 99,
    })
  })

  it('yearly Lite with EHR ($450 a month billed yearly) and 10% off', () => {
    const pricing = computePricing({ plans: PLANS, term: 'year', ehr: true, coupon: percent(10) })
    expect(pricing.basic).toEqual({ plan: PLANS[1], perMonth: 89, billed: 1068 })
    expect(pricing.ehr).toEqual({ plan: PLANS[3], perMonth: 450, billed: 5400 })
    expect(pricing.subscription).toBe(6468)
    expect(pricing.deduction).toBe(646.8)
    expect(pricing.subTotal).toBe(5821.2)
  })

  it('monthly EHR is $499 and an amount coupon takes dollars off', () => {
    const pricing = computePricing({ plans: PLANS, term: 'month', ehr: true, coupon: amount(5000) })
    expect(pricing.ehr?.perMonth).toBe(499)
    expect(pricing.subscription).toBe(598)
    expect(pricing.deduction).toBe(50)
    expect(pricing.subTotal).toBe(548)
  })

  it('uses the static EHR prices when the server has no EHR plan', () => {
    const litesOnly = PLANS.slice(0, 2)
    const pricing = computePricing({ plans: litesOnly, term: 'year', ehr: true, coupon: null })
    expect(pricing.ehr).toEqual({ plan: null, perMonth: EHR_PRICE_PER_MONTH.year, billed: 5400 })
  })

  it('is zero before plans arrive', () => {
    const pricing = computePricing({ plans: [], term: 'month', ehr: false, coupon: percent(10) })
    expect(pricing.subscription).toBe(0)
    expect(pricing.subTotal).toBe(0)
  })

  it('sub-total = subscription − deduction, never negative (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('month' as const, 'year' as const),
        fc.boolean(),
        fc.option(
          fc.oneof(fc.integer({ min: 0, max: 100 }).map(percent), fc.nat(1_000_000).map(amount)),
        ),
        (term, ehr, coupon) => {
          const pricing = computePricing({ plans: PLANS, term, ehr, coupon })
          expect(pricing.subTotal).toBeCloseTo(pricing.subscription - pricing.deduction, 2)
          expect(pricing.subTotal).toBeGreaterThanOrEqual(0)
        },
      ),
    )
  })
})

describe('formatUsd', () => {
  it('formats US dollars with Intl', () => {
    expect(formatUsd(1068)).toBe('$1,068.00')
    expect(formatUsd(9.9)).toBe('$9.90')
    expect(formatUsd(499, { whole: true })).toBe('$499')
  })
})

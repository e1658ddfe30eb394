import type { Coupon, Plan } from '#domain/plans.ts'

/**
 * Prices of the sign-up wizard: plan amounts come in cents; the basic (Lite)
 * plan follows the chosen term; the EHR add-on costs $499 a month or $450 a month on a yearly
 * plan; a promo takes a rounded percentage or a fixed amount off; the sub-total is the
 * subscription minus the deduction. Amounts returned here are US dollars.
 */

/** The billing terms a practice can choose. */
export const TERMS = ['month', 'year'] as const
export type Term = (typeof TERMS)[number]

/** The two plan kinds: the basic Lite plan and the EHR integration add-on. */
export type PlanKind = 'lite' | 'ehr'

/** What a plan's nickname contains for each kind and term. */
export const PLAN_NICKNAMES: Readonly<Record<PlanKind, Readonly<Record<Term, string>>>> = {
  lite: { month: 'Monthly Lite', year: 'Yearly Lite' },
  ehr: { month: 'EHR Monthly', year: 'EHR Yearly' },
}

/** The static EHR plan card: dollars per month for each term. */
export const EHR_PRICE_PER_MONTH: Readonly<Record<Term, number>> = { month: 499, year: 450 }

/** How many months a term lasts. */
export function termMonths(term: Term): 1 | 12 {
  return term === 'year' ? 12 : 1
}

/** Cents to dollars. */
export function centsToDollars(cents: number): number {
  return cents / 100
}

/** The plan of a kind and term, found by its nickname; null when the server has none. */
export function findPlan(plans: readonly Plan[], kind: PlanKind, term: Term): Plan | null {
  const name = PLAN_NICKNAMES[kind][term]
  return plans.find((plan) => plan.nickname.includes(name)) ?? null
}

/** The kind and term a plan's nickname names, or null for a plan of neither kind. */
export function describePlan(plan: Plan): { kind: PlanKind; term: Term } | null {
  for (const kind of ['lite', 'ehr'] as const) {
    for (const term of TERMS) {
      if (plan.nickname.includes(PLAN_NICKNAMES[kind][term])) return { kind, term }
    }
  }
  return null
}

/**
 * A plan's price per billing period in cents: its amount, or for a tiered plan the first tier's
 * unit or flat amount.
 */
export function planAmountCents(plan: Plan): number {
  if (plan.amount !== null) return plan.amount
  const tier = plan.tiers?.[0]
  return tier?.amount ?? tier?.flat_amount ?? 0
}

/** How many months one billing period of a plan lasts. */
function planPeriodMonths(plan: Pick<Plan, 'interval' | 'interval_count'>): number {
  const count = Math.max(1, plan.interval_count)
  return plan.interval === 'year' ? 12 * count : count
}

/** A plan's price in dollars per month (a yearly plan's amount divided by 12). */
export function planMonthlyPrice(plan: Plan): number {
  return centsToDollars(planAmountCents(plan)) / planPeriodMonths(plan)
}

/** The label of a plan option, from its interval and interval_count. */
export function planOptionLabel(plan: Pick<Plan, 'interval' | 'interval_count'>): string {
  const count = Math.max(1, plan.interval_count)
  if (count === 1) return plan.interval === 'year' ? 'Yearly' : 'Monthly'
  return `Every ${count} ${plan.interval === 'year' ? 'years' : 'months'}`
}

/** The term choices the server's Lite plans allow, each labelled from its plan. */
export function termOptions(plans: readonly Plan[]): { value: Term; label: string }[] {
  return TERMS.flatMap((term) => {
    const plan = findPlan(plans, 'lite', term)
    return plan ? [{ value: term, label: planOptionLabel(plan) }] : []
  })
}

/** The plan ids to subscribe to: the Lite plan of the term and, when chosen, the EHR plan. */
export function selectedPlanIds(plans: readonly Plan[], term: Term, ehr: boolean): string[] {
  const ids: string[] = []
  const lite = findPlan(plans, 'lite', term)
  if (lite) ids.push(lite.id)
  const ehrPlan = ehr ? findPlan(plans, 'ehr', term) : null
  if (ehrPlan) ids.push(ehrPlan.id)
  return ids
}

/**
 * The promo deduction from a subscription (dollars): percent_off takes that percentage rounded
 * to the cent, amount_off takes the amount (cents) divided by 100; never more than the
 * subscription itself.
 */
export function promoDeduction(subscription: number, coupon: Coupon | null): number {
  if (!coupon) return 0
  const subscriptionCents = Math.round(subscription * 100)
  let cents = 0
  if (coupon.percent_off !== null) {
    cents = Math.round((subscriptionCents * coupon.percent_off) / 100)
  } else if (coupon.amount_off !== null) {
    cents = coupon.amount_off
  }
  return centsToDollars(Math.min(Math.max(cents, 0), subscriptionCents))
}

/** One line of the price summary. */
export type PriceLine = {
  /** The server's plan, or null when it does not offer one for this kind and term. */
  plan: Plan | null
  /** Dollars per month, as the plan card shows it. */
  perMonth: number
  /** Dollars billed for one term (a month, or a year). */
  billed: number
}

/** The price summary of the billing step. */
export type Pricing = {
  term: Term
  basic: PriceLine
  /** The EHR add-on, when chosen (or forced by Nextech). */
  ehr: PriceLine | null
  /** Dollars billed for the term: basic plus EHR. */
  subscription: number
  deduction: number
  subTotal: number
}

/**
 * The price summary: the Lite plan of the term (a yearly price also shown per month), the EHR
 * add-on when chosen ($499 a month, or $450 a month billed yearly, unless the server's plan says
 * otherwise), the promo deduction and the sub-total.
 */
export function computePricing(input: {
  plans: readonly Plan[]
  term: Term
  ehr: boolean
  coupon: Coupon | null
}): Pricing {
  const { plans, term, ehr, coupon } = input
  const months = termMonths(term)
  const litePlan = findPlan(plans, 'lite', term)
  const basic: PriceLine = litePlan
    ? {
        plan: litePlan,
        perMonth: planMonthlyPrice(litePlan),
        billed: centsToDollars(planAmountCents(litePlan)),
      }
    : { plan: null, perMonth: 0, billed: 0 }
  let ehrLine: PriceLine | null = null
  if (ehr) {
    const ehrPlan = findPlan(plans, 'ehr', term)
    ehrLine = {
      plan: ehrPlan,
      perMonth: EHR_PRICE_PER_MONTH[term],
      billed: ehrPlan
        ? centsToDollars(planAmountCents(ehrPlan))
        : EHR_PRICE_PER_MONTH[term] * months,
    }
  }
  const subscription = centsToDollars(Math.round((basic.billed + (ehrLine?.billed ?? 0)) * 100))
  const deduction = promoDeduction(subscription, coupon)
  const subTotal = centsToDollars(Math.round((subscription - deduction) * 100))
  return { term, basic, ehr: ehrLine, subscription, deduction, subTotal }
}

// Made on first use: the first Intl.NumberFormat of a page sets up the browser's number data,
// about 130 ms at 4x CPU slowdown, which the wizard should not pay before step 3 shows a price.
let usd: Intl.NumberFormat | undefined
let usdWhole: Intl.NumberFormat | undefined

/** US dollars for display: `$1,068.00`; `{ whole: true }` drops the cents (`$499`). */
export function formatUsd(amount: number, options: { whole?: boolean } = {}): string {
  if (options.whole) {
    usdWhole ??= new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      maximumFractionDigits: 0,
      minimumFractionDigits: 0,
    })
    return usdWhole.format(amount)
  }
  usd ??= new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
  return usd.format(amount)
}

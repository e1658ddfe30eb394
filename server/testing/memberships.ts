/** Test cards, tokens and a plan for the memberships' tests and the bench. */
import type { TestApp } from './test-app.ts'

export const CARDS = {
  ok: '4242424242424242',
  declined: '4000000000000002',
  failsWhenCharged: '4000000000000341',
} as const

/** A one-time token of a test card, as the browser gets it. */
export function cardToken(t: Pick<TestApp, 'payments'>, number: string): string {
  return t.payments.tokeniser.createToken({ number, exp_month: 12, exp_year: 2034, cvc: '123' }).id
}

export const PLAN = {
  name: 'Glow Monthly',
  description: 'A facial a month and $50 banked.',
  price_cents: 9900,
  interval: 'month' as const,
  setup_fee_cents: 2500,
  min_cycles: 3,
  notice_days: 0,
  perks: {
    bank_cents: 5000,
    allowances: [] as { catalogue_item_id: number; quantity: number; rollover_cap: number }[],
    discount_percent: 10,
    discount_item_ids: [] as number[],
    points_multiplier: 2,
    join_bonus_points: 100,
  },
}

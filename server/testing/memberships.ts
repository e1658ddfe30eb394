/** Test cards, tokens and a plan for the memberships' tests and the bench. */
import { procedures } from '#server/db/schema.ts'
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

/**
 * A member's catalogue and plan, as the checkout's tests use them: payments connected, a
 * HydraFacial ($199.00) of which the plan includes 1 a cycle, a peel (`peel` price and points),
 * and a monthly $99.00 plan banking `bankCents`, 15% member price, 2× points. `request` is the
 * suite's, signed in as a Manager.
 */
export async function memberPlan(
  t: Pick<TestApp, 'db' | 'demo' | 'request'>,
  managerToken: string,
  options: { bankCents: number; rolloverCap: number; peel: { price: number; points: number } },
): Promise<{ planId: number; hydra: number; peel: number; suffix: string }> {
  const connected = await t.request('/api/practice/payments/connect', {
    method: 'POST',
    token: t.demo.adminToken,
  })
  if (connected.status >= 300) throw new Error(`payments not connected: ${connected.status}`)
  const suffix = Math.random().toString(36).slice(2, 8)
  const [hydra] = await t.db
    .insert(procedures)
    .values({ practice_id: t.demo.practiceId, name: `HydraFacial ${suffix}`, price: 19900 })
    .returning()
  const [peel] = await t.db
    .insert(procedures)
    .values({ practice_id: t.demo.practiceId, name: `Peel ${suffix}`, ...options.peel })
    .returning()
  if (!hydra || !peel) throw new Error('no procedures')
  const plan = await t.request('/api/membership-plans', {
    method: 'POST',
    token: managerToken,
    json: {
      name: `Glow ${suffix}`,
      price_cents: 9900,
      interval: 'month',
      perks: {
        bank_cents: options.bankCents,
        allowances: [
          { catalogue_item_id: hydra.id, quantity: 1, rollover_cap: options.rolloverCap },
        ],
        discount_percent: 15,
        discount_item_ids: [],
        points_multiplier: 2,
        join_bonus_points: 0,
      },
    },
  })
  if (plan.status !== 201) throw new Error(`plan not created: ${plan.status}`)
  const { id } = (await plan.json()) as { id: number }
  return { planId: id, hydra: hydra.id, peel: peel.id, suffix }
}

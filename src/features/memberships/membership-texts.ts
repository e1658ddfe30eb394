import {
  type Card,
  INTERVAL_LABELS,
  MEMBERSHIP_AGREEMENT,
  type MembershipStatus,
  money,
  type Plan,
} from '#domain/memberships.ts'
import { cardExpiry, cardLabel } from '#domain/subscription.ts'
import { type MembershipEvent, membershipMachine } from '#machines/membership/membership.machine.ts'

/** "$99.00 · Monthly". */
export function planPrice(plan: Pick<Plan, 'price_cents' | 'interval'>): string {
  return `${money(plan.price_cents)} · ${INTERVAL_LABELS[plan.interval]}`
}

/** "$99.00 · Monthly · $25.00 setup fee", as the plan select shows each plan. */
export function planOffer(plan: Pick<Plan, 'price_cents' | 'interval' | 'setup_fee_cents'>) {
  const fee = plan.setup_fee_cents > 0 ? ` · ${money(plan.setup_fee_cents)} setup fee` : ''
  return `${planPrice(plan)}${fee}`
}

/** What the first charge is: the setup fee and the first cycle. */
export function firstCharge(plan: Pick<Plan, 'price_cents' | 'setup_fee_cents'>): number {
  return plan.price_cents + plan.setup_fee_cents
}

/**
 * The perks of a paid cycle in one line: "$50.00 banked · 1 × HydraFacial · 10% off everything
 * · 2× points · 500 joining points", or "No perks".
 */
export function perksSummary(
  perks: Plan['perks'],
  names: ReadonlyMap<number, string> = new Map(),
): string {
  const name = (id: number) => names.get(id) ?? `treatment ${id}`
  const parts: string[] = []
  if (perks.bank_cents > 0) parts.push(`${money(perks.bank_cents)} banked`)
  for (const allowance of perks.allowances) {
    const rollover =
      allowance.rollover_cap > 0 ? ` (rolls over up to ${allowance.rollover_cap})` : ''
    parts.push(`${allowance.quantity} × ${name(allowance.catalogue_item_id)}${rollover}`)
  }
  if (perks.discount_percent > 0) {
    const on =
      perks.discount_item_ids.length === 0
        ? 'everything'
        : perks.discount_item_ids.map(name).join(', ')
    parts.push(`${perks.discount_percent}% off ${on}`)
  }
  if (perks.points_multiplier > 1) parts.push(`${perks.points_multiplier}× points`)
  if (perks.join_bonus_points > 0) {
    parts.push(`${perks.join_bonus_points.toLocaleString('en-US')} joining points`)
  }
  return parts.length === 0 ? 'No perks' : parts.join(' · ')
}

/** "Declined renewals are retried 1, 3, 5 and 7 days later." */
export function retryScheduleSentence(days: readonly number[]): string {
  if (days.length === 0) return 'Declined renewals are not retried automatically.'
  const list =
    days.length === 1
      ? String(days[0])
      : `${days.slice(0, -1).join(', ')} and ${days[days.length - 1]}`
  const unit = days.length === 1 && days[0] === 1 ? 'day' : 'days'
  return `Declined renewals are retried ${list} ${unit} later.`
}

/** The agreement the patient accepts for `plan`, in full. */
export function agreementText(plan: Plan): string {
  return MEMBERSHIP_AGREEMENT.text({
    name: plan.name,
    price: money(plan.price_cents),
    cadence: INTERVAL_LABELS[plan.interval],
    minCycles: plan.min_cycles,
    noticeDays: plan.notice_days,
  })
}

/** The badge colour of each status: the ones the desk must act on stand out. */
export const STATUS_COLORS: Record<MembershipStatus, string> = {
  active: 'green',
  past_due: 'orange',
  paused: 'blue',
  // Filled: white on red 9 is 5.5:1 (on red 6, 3.3:1).
  unpaid: 'red.9',
  cancelled: 'gray',
  ended: 'gray',
}

/** "Visa •••• 4242, expires 04/28". */
export function cardText(card: Card | null): string {
  if (!card) return 'No card on file'
  return `${cardLabel(card)}, expires ${cardExpiry(card)}`
}

/** Whether the lifecycle chart takes `event` in `status`: what the panel offers. */
export function chartAllows(status: MembershipStatus, event: MembershipEvent['type']): boolean {
  return membershipMachine.resolveState({ value: status }).can({ type: event } as MembershipEvent)
}

/** Whether a membership still belongs to the patient (not cancelled or ended). */
export function isLive(status: MembershipStatus): boolean {
  return status !== 'cancelled' && status !== 'ended'
}

import {
  type Card,
  INTERVAL_LABELS,
  MEMBERSHIP_AGREEMENT,
  type Membership,
  type MembershipStatus,
  money,
  type Plan,
  type PlanInterval,
} from '#domain/memberships.ts'
import { cardExpiry, cardLabel } from '#domain/subscription.ts'
import { type MembershipEvent, membershipMachine } from '#machines/membership/membership.machine.ts'
import { formatDate } from '#src/lib/format.ts'

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

/** How a cycle of each cadence is named in the perks' sentences. */
const CYCLE_WORDS: Record<
  PlanInterval,
  { current: string; next: string; each: string; per: string }
> = {
  month: { current: 'this month', next: 'next month', each: 'each month', per: 'a month' },
  quarter: {
    current: 'these 3 months',
    next: 'the next 3 months',
    each: 'every 3 months',
    per: 'every 3 months',
  },
  year: { current: 'this year', next: 'next year', each: 'each year', per: 'a year' },
}

/**
 * What is left of an allowance this cycle: "1 of 1 HydraFacial left this month", or with units
 * rolled over "3 HydraFacial left this month (2 a month, 1 rolled over)".
 */
export function allowanceLeftText(
  allowance: { name: string; remaining: number },
  quantity: number | undefined,
  interval: PlanInterval,
): string {
  const { current } = CYCLE_WORDS[interval]
  if (quantity === undefined) return `${allowance.remaining} ${allowance.name} left ${current}`
  if (allowance.remaining <= quantity)
    return `${allowance.remaining} of ${quantity} ${allowance.name} left ${current}`
  const { per } = CYCLE_WORDS[interval]
  return `${allowance.remaining} ${allowance.name} left ${current} (${quantity} ${per}, ${allowance.remaining - quantity} rolled over)`
}

/** The rollover cap in words: "Up to 2 unused roll over to next month." */
export function rolloverText(cap: number, interval: PlanInterval): string {
  const { next } = CYCLE_WORDS[interval]
  if (cap <= 0) return `Unused ones do not roll over to ${next}.`
  return `Up to ${cap} unused ${cap === 1 ? 'one rolls' : 'roll'} over to ${next}.`
}

/**
 * The perks of the cycle besides the allowances, one sentence each: the member price, the points
 * multiplier, what each paid cycle puts in the bank.
 */
export function otherPerksTexts(
  plan: Pick<Plan, 'perks' | 'interval'>,
  names: ReadonlyMap<number, string> = new Map(),
): string[] {
  const { perks } = plan
  const lines: string[] = []
  if (perks.discount_percent > 0) {
    const on =
      perks.discount_item_ids.length === 0
        ? 'everything'
        : perks.discount_item_ids.map((id) => names.get(id) ?? `treatment ${id}`).join(', ')
    lines.push(`${perks.discount_percent}% off ${on} (member price)`)
  }
  if (perks.points_multiplier > 1) lines.push(`${perks.points_multiplier}× points at every visit`)
  if (perks.bank_cents > 0)
    lines.push(`${money(perks.bank_cents)} paid into the bank ${CYCLE_WORDS[plan.interval].each}`)
  return lines
}

/** Why the perks do not apply now, in the status where they do not; null while active. */
export function perksOnHold(status: MembershipStatus): string | null {
  switch (status) {
    case 'past_due':
      return 'On hold while the payment is past due: no allowances, member price or extra points until it is paid. The bank can still pay.'
    case 'unpaid':
      return 'Stopped while unpaid: no allowances, member price or extra points until it is paid. The bank can still pay.'
    case 'paused':
      return 'On hold while paused: they come back with the first paid cycle. The bank can still pay.'
    default:
      return null
  }
}

/**
 * The next bill in words: "Dec 1, 2026 · $99.00", the next retry of a declined renewal, when a
 * pause ends, or why none will come.
 */
export function nextBillText(
  membership: Pick<
    Membership,
    | 'status'
    | 'plan'
    | 'next_plan'
    | 'next_payment_attempt_at'
    | 'resumes_at'
    | 'cancel_at'
    | 'cancel_at_period_end'
  >,
): string {
  const amount = money(membership.next_plan?.price_cents ?? membership.plan.price_cents)
  const next = membership.next_payment_attempt_at
  switch (membership.status) {
    case 'past_due':
      return next
        ? `Retry on ${formatDate(next)} · ${amount}`
        : `${amount} is due: no retry is scheduled`
    case 'unpaid':
      return `${amount} is due: no more automatic retries`
    case 'paused':
      return membership.resumes_at
        ? `${formatDate(membership.resumes_at)} · ${amount}, when billing resumes`
        : 'None while paused'
    case 'cancelled':
    case 'ended':
      return 'None: the membership is over'
  }
  if (
    membership.cancel_at_period_end &&
    membership.cancel_at &&
    (!next || Date.parse(next) >= Date.parse(membership.cancel_at))
  ) {
    return `None: it ends on ${formatDate(membership.cancel_at)}`
  }
  return next ? `${formatDate(next)} · ${amount}` : 'None'
}

/** A bank entry's amount with its sign: "+$50.00", "−$30.00". */
export function signedMoney(cents: number): string {
  return `${cents > 0 ? '+' : cents < 0 ? '−' : ''}${money(Math.abs(cents))}`
}

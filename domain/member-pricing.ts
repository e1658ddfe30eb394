/**
 * A member at checkout (../shared/MEMBERSHIPS.md section 4): what the membership does to a visit's
 * lines, worked out by the server and shown by the checkout in the server's numbers.
 *
 * The order is the one the desk reads top to bottom, and each step works on what the last left:
 * 1. **Allowances**: units of a procedure the plan includes this cycle are used first; a used unit
 *    costs nothing and earns no points (the membership fee paid for it).
 * 2. **Member price**: the plan's percentage off the units still charged, for the items it names
 *    (none named: the whole catalogue); points follow what is paid, as with an offer.
 * 3. **Offer**: a claimed offer with value comes off what is left (`applyOffer` with `net_cents`).
 * 4. **Points multiplier**: the points the visit earns after all of it, multiplied, rounded down.
 * 5. **The bank** pays part or all of what is left, like money; it never changes points.
 *
 * Perks (allowances, member price, multiplier) apply only while the membership is `active`: a
 * past-due, unpaid or paused member is flagged instead, before anything is used. The bank's paid
 * value stays the patient's whatever the status.
 */
import { discountedPoints, percentOf } from './offer-value.ts'

/** What the membership's plan version gives at this visit, and what is left of its allowances. */
export type MemberPerks = {
  discount_percent: number
  /** The procedures the member price is for; empty: the whole catalogue (products too). */
  discount_item_ids: readonly number[]
  points_multiplier: number
  /** Units left this cycle, by procedure id. */
  allowances: ReadonlyMap<number, number>
}

/** A priced line, before the membership. */
export type MemberLineInput = {
  kind: 'procedure' | 'product'
  item_id: number
  unit_price_cents: number
  quantity: number
  points: number
}

/** A line after the membership: what it takes off, and what is left to pay and earn. */
export type MemberLine = {
  /** Units covered by an allowance (free). */
  allowance_units: number
  /** What those units are worth at the line's price. */
  allowance_cents: number
  /** What the member price takes off the units still charged. */
  member_discount_cents: number
  /** What is left of the line to pay (before an offer and the bank). */
  net_cents: number
  /** The points the line earns on what is left (before the offer and the multiplier). */
  points: number
}

export type MemberPricing = {
  lines: MemberLine[]
  /** Units used per procedure id. */
  allowances_used: Map<number, number>
  allowance_cents: number
  member_discount_cents: number
}

/** Whether the member price applies to this line. */
export function memberPriceApplies(
  perks: Pick<MemberPerks, 'discount_percent' | 'discount_item_ids'>,
  line: Pick<MemberLineInput, 'kind' | 'item_id'>,
): boolean {
  if (perks.discount_percent <= 0) return false
  if (perks.discount_item_ids.length === 0) return true
  return line.kind === 'procedure' && perks.discount_item_ids.includes(line.item_id)
}

/** The lines without a membership (or with perks on hold): nothing taken off. */
export function noMembership(lines: readonly MemberLineInput[]): MemberPricing {
  return {
    lines: lines.map((line) => ({
      allowance_units: 0,
      allowance_cents: 0,
      member_discount_cents: 0,
      net_cents: line.unit_price_cents * line.quantity,
      points: line.points,
    })),
    allowances_used: new Map(),
    allowance_cents: 0,
    member_discount_cents: 0,
  }
}

/**
 * Allowances first, then the member price on what is still charged, line by line in the visit's
 * order (a second line of the same procedure gets what the first left). Integer cents only.
 */
export function applyMembership(
  lines: readonly MemberLineInput[],
  perks: MemberPerks | null,
): MemberPricing {
  if (!perks) return noMembership(lines)
  const left = new Map(perks.allowances)
  const used = new Map<number, number>()
  let allowanceCents = 0
  let discountCents = 0
  const result = lines.map((line) => {
    const gross = line.unit_price_cents * line.quantity
    let units = 0
    if (line.kind === 'procedure') {
      units = Math.min(line.quantity, Math.max(left.get(line.item_id) ?? 0, 0))
      if (units > 0) {
        left.set(line.item_id, (left.get(line.item_id) ?? 0) - units)
        used.set(line.item_id, (used.get(line.item_id) ?? 0) + units)
      }
    }
    const allowance = units * line.unit_price_cents
    const charged = gross - allowance
    const pointsCharged =
      line.quantity > 0
        ? Number((BigInt(line.points) * BigInt(line.quantity - units)) / BigInt(line.quantity))
        : 0
    const discount = memberPriceApplies(perks, line)
      ? Math.min(charged, percentOf(charged, perks.discount_percent))
      : 0
    allowanceCents += allowance
    discountCents += discount
    return {
      allowance_units: units,
      allowance_cents: allowance,
      member_discount_cents: discount,
      net_cents: charged - discount,
      points: discountedPoints(pointsCharged, charged, discount),
    }
  })
  return {
    lines: result,
    allowances_used: used,
    allowance_cents: allowanceCents,
    member_discount_cents: discountCents,
  }
}

/** Points earned while a member: multiplied by the plan's multiplier, rounded down. */
export function multipliedPoints(points: number, multiplier: number): number {
  if (multiplier <= 1 || points <= 0) return points
  // The multiplier has at most 2 decimals (1.5×, 2×): integer arithmetic keeps it exact.
  return Math.floor((points * Math.round(multiplier * 100)) / 100)
}

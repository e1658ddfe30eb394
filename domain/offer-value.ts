/**
 * Offers with value: a promotion may take an amount (`discount_cents`, once per
 * visit) or a percentage (`discount_percent`, off each matching line) off the procedures it names
 * (`procedure_ids`, empty = any procedure). Redeemed at checkout, it lowers the matching lines;
 * the visit's total is what the patient pays, and each discounted line earns points in proportion
 * to what is paid for it. The server works the discount out with {@link applyOffer}; the checkout
 * shows the server's numbers, and never sends a discount of its own.
 */

/** The value an offer carries: an amount or a percentage (or neither), and its procedures. */
export type OfferValue = {
  discount_cents: number | null
  discount_percent: number | null
  /** The procedures it applies to; empty: any procedure. */
  procedure_ids: readonly number[]
}

/** A line of a visit as priced before the offer: gross price and points. */
export type OfferLine = {
  kind: 'procedure' | 'product'
  item_id: number
  unit_price_cents: number
  quantity: number
  points: number
  /** What is left of the line to pay before the offer (after a membership's perks); absent: price × quantity. */
  net_cents?: number
}

/** A line after the offer: what it takes off the line, and the points the line now earns. */
export type DiscountedLine = { discount_cents: number; points: number }

export type OfferResult = {
  lines: DiscountedLine[]
  /** What the offer takes off the visit, in cents. */
  discount_cents: number
  /** The lines' prices before the offer. */
  subtotal_cents: number
  /** What the patient pays: the subtotal less the discount. */
  total_cents: number
  /** The points the visit earns after the offer. */
  points: number
  /** Whether a line of the visit is one the offer applies to. */
  matched: boolean
}

/** The most an offer may take off, in cents ($1,000,000), like the highest price of a line. */
export const MAX_DISCOUNT_CENTS = 100_000_000

/** Whether the offer carries a value (an amount or a percentage off). */
export function hasValue(offer: Pick<OfferValue, 'discount_cents' | 'discount_percent'>): boolean {
  return (offer.discount_cents ?? 0) > 0 || (offer.discount_percent ?? 0) > 0
}

/** Whether the offer applies to this line: a procedure it names, or any procedure. */
export function offerMatches(offer: Pick<OfferValue, 'procedure_ids'>, line: OfferLine): boolean {
  if (line.kind !== 'procedure') return false
  return offer.procedure_ids.length === 0 || offer.procedure_ids.includes(line.item_id)
}

/** A percentage of an amount in cents, rounded half up to the cent (integers only). */
export function percentOf(cents: number, percent: number): number {
  return Math.floor((cents * percent + 50) / 100)
}

/** A line's points once `discount` of its `gross` is taken off, in proportion, rounded down. */
export function discountedPoints(points: number, gross: number, discount: number): number {
  if (discount <= 0 || gross <= 0) return points
  return Number((BigInt(points) * BigInt(gross - discount)) / BigInt(gross))
}

/**
 * The visit's lines with the offer applied: a percentage comes off each matching line; an
 * amount comes off once, from the first matching line on, never taking a line below $0. No
 * offer (or one without value): the lines as they are.
 */
export function applyOffer(lines: readonly OfferLine[], offer: OfferValue | null): OfferResult {
  const gross = lines.map((line) => line.net_cents ?? line.unit_price_cents * line.quantity)
  const subtotal = gross.reduce((sum, cents) => sum + cents, 0)
  let remaining = offer?.discount_cents ?? 0
  const result = lines.map((line, index) => {
    const lineGross = gross[index] ?? 0
    let discount = 0
    if (offer && offerMatches(offer, line)) {
      if (offer.discount_percent) {
        discount = Math.min(lineGross, percentOf(lineGross, offer.discount_percent))
      } else if (remaining > 0) {
        discount = Math.min(lineGross, remaining)
        remaining -= discount
      }
    }
    return { discount_cents: discount, points: discountedPoints(line.points, lineGross, discount) }
  })
  const discount = result.reduce((sum, line) => sum + line.discount_cents, 0)
  return {
    lines: result,
    discount_cents: discount,
    subtotal_cents: subtotal,
    total_cents: subtotal - discount,
    points: result.reduce((sum, line) => sum + line.points, 0),
    matched: offer !== null && lines.some((line) => offerMatches(offer, line)),
  }
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })

/**
 * The offer's value in words: "$50.00 off any procedure", "20% off HydraFacial or Botox", or null
 * when it carries none. `names` are its procedures' names, in the order of `procedure_ids`.
 */
export function offerValueWords(
  offer: Pick<OfferValue, 'discount_cents' | 'discount_percent'>,
  names: readonly string[],
): string | null {
  if (!hasValue(offer)) return null
  const amount = offer.discount_percent
    ? `${offer.discount_percent}% off`
    : `${usd.format((offer.discount_cents ?? 0) / 100)} off`
  if (names.length === 0) return `${amount} any procedure`
  const list =
    names.length === 1
      ? names[0]
      : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1] as string}`
  return `${amount} ${list}`
}

/** The sentences of offers with value, as the API answers them. */
export const OFFER_VALUE_MESSAGES = {
  discountCents:
    'discount_cents (the amount off, in cents) must be a whole number from 1 to 100000000, or null.',
  discountPercent:
    'discount_percent (the percentage off) must be a whole number from 1 to 100, or null.',
  discountBoth: 'Give discount_cents or discount_percent, not both.',
  procedureIds: 'procedure_ids must be a list of procedure ids (empty: any procedure).',
  procedureIdsLength: 'procedure_ids can name at most 100 procedures.',
  procedureUnknown: (id: number) =>
    `procedure_ids: procedure ${id} is not in this practice's catalogue.`,
  /** A visit that redeems an offer with value and has no line it applies to. */
  noMatchingLine: (title: string, what: string) =>
    `The offer “${title}” is ${what}, and this visit has no such line: add the procedure or choose no offer.`,
  /** An offer with value redeemed away from a visit. */
  valueAtCheckout: (title: string) =>
    `The offer “${title}” takes money off a visit: redeem it at the checkout, with the visit's procedures.`,
} as const

/**
 * The practice's subscription as Settings shows it: the
 * plans and term chosen at sign-up, the card on file, the next renewal and its amount, and the
 * cancellation at the end of the term the Terms promise ("Cancellation takes effect at the end of
 * the term already paid"). Amounts are cents.
 */
import * as v from 'valibot'

/** A coupon's reach, in Stripe's words: the first invoice only, or every invoice. */
export const COUPON_DURATIONS = ['once', 'forever'] as const
export type CouponDuration = (typeof COUPON_DURATIONS)[number]

/** Where the subscription stands; `none` when the payment provider has none for the practice. */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled', 'none'] as const
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

const Instant = v.pipe(v.string(), v.isoTimestamp())

/** The card on file, as the provider describes it (never more than brand, last four, expiry). */
export const CardOnFileSchema = v.object({
  brand: v.string(),
  last4: v.string(),
  exp_month: v.number(),
  exp_year: v.number(),
})
export type CardOnFile = v.InferOutput<typeof CardOnFileSchema>

/** `GET /practice/subscription`. */
export const SubscriptionAnswerSchema = v.object({
  /** The subscribed plans, each with its price for one term (cents). */
  plans: v.array(v.object({ id: v.string(), name: v.string(), amount: v.number() })),
  term: v.picklist(['month', 'year']),
  status: v.picklist(SUBSCRIPTION_STATUSES),
  card: v.nullable(CardOnFileSchema),
  /** The end of the term already paid. */
  current_period_end: v.nullable(Instant),
  /** When the next term is charged; null once the subscription is set to end. */
  renews_at: v.nullable(Instant),
  /** What the next renewal charges, the coupon taken off when it still applies (cents). */
  next_amount: v.nullable(v.number()),
  coupon: v.nullable(
    v.object({
      id: v.string(),
      percent_off: v.nullable(v.number()),
      amount_off: v.nullable(v.number()),
      duration: v.picklist(COUPON_DURATIONS),
    }),
  ),
  cancel_at_period_end: v.boolean(),
  /** When the subscription ends (set to cancel at the end of the term, or already ended). */
  cancels_at: v.nullable(Instant),
})
export type SubscriptionAnswer = v.InferOutput<typeof SubscriptionAnswerSchema>

/** `PUT /practice/subscription/card`: the one-time token of the new card. */
export const ChangeCardBodySchema = v.object({
  token: v.pipe(
    v.string('The card could not be read. Please enter it again.'),
    v.regex(/^tok_\w{1,200}$/, 'The card could not be read. Please enter it again.'),
  ),
})
export type ChangeCardBody = v.InferOutput<typeof ChangeCardBodySchema>

/** The answers beyond the card's own messages. */
export const SUBSCRIPTION_MESSAGES = {
  none: 'This practice has no subscription with the payment service yet.',
  ended: 'The subscription has ended, so it can no longer be kept. Please contact support.',
} as const

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  'american express': 'American Express',
  'american-express': 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  'diners club': 'Diners Club',
  'diners-club': 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
}

/** A card brand as people read it, from Stripe's `Visa`/`MasterCard` (cards) or `visa` (methods). */
export function cardBrandName(brand: string): string {
  return BRANDS[brand.trim().toLowerCase()] ?? (brand.trim() || 'Card')
}

/** "Visa •••• 4242". */
export function cardLabel(card: Pick<CardOnFile, 'brand' | 'last4'>): string {
  return `${cardBrandName(card.brand)} •••• ${card.last4}`
}

/** "12/28". */
export function cardExpiry(card: Pick<CardOnFile, 'exp_month' | 'exp_year'>): string {
  return `${String(card.exp_month).padStart(2, '0')}/${String(card.exp_year % 100).padStart(2, '0')}`
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** A day as the activity log and Settings write it, "12 Nov 2027" (UTC, like the provider's dates). */
export function subscriptionDate(at: Date | string): string {
  const date = typeof at === 'string' ? new Date(at) : at
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`
}

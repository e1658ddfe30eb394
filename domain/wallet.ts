/**
 * The patient's wallet (../shared/MEMBERSHIPS.md sections 6 and 7, issue 35): the contract of its
 * calls. A patient signs in with a 6-digit code sent to their e-mail or phone and gets a patient
 * session (an opaque bearer token, never a staff token) that opens only `/wallet/me…` in the
 * practice that issued it. Field names are the API's (snake_case); amounts are integer cents.
 *
 * Names here are stable: later needs add fields, never rename.
 */
import * as v from 'valibot'
import { toE164 } from './phone.ts'

/** The length of a sign-in code. */
export const WALLET_CODE_LENGTH = 6
/** Seconds before the wallet offers "Send a new code". */
export const WALLET_RESEND_AFTER_SECONDS = 30
/** Minutes a sign-in code can be used. */
export const WALLET_CODE_MINUTES = 10
/** Wrong codes for one contact before sign-in is locked for that contact. */
export const WALLET_MAX_CODE_TRIES = 5
/** Minutes sign-in stays locked for a contact after too many wrong codes. */
export const WALLET_LOCK_MINUTES = 15
/** A patient session ends after this many minutes without a call (each call renews it). */
export const WALLET_SESSION_IDLE_MINUTES = 30
/** A patient session ends this many hours after sign-in, however active. */
export const WALLET_SESSION_MAX_HOURS = 12

/** The sentences of the wallet's calls, as the wallet shows them. */
export const WALLET_MESSAGES = {
  contactRequired: 'Please enter your e-mail or mobile phone number.',
  contactInvalid:
    'Please enter a valid e-mail (name@example.com) or a mobile phone number with its area code.',
  codeFormat: 'Please enter the 6-digit code we sent you.',
  codeWrong: 'This code is not right. Please check it, or ask for a new code.',
  codeExpired: 'This code has expired. Please ask for a new code.',
  locked: (minutes: number) =>
    `Too many wrong codes. For your security, sign-in is locked: please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  tooManyCodes: 'Too many codes were asked for. Please wait a few minutes and try again.',
  signedOut: 'Your session has ended. Please sign in again with a new code.',
  staffToken: 'This is the patient’s wallet: staff accounts cannot open it.',
  practiceNotFound: 'This wallet link is not valid. Please ask your practice for its link.',
  offerNotFound: 'This offer is not available to you.',
  offerClaimed: 'You claimed this offer. Show your wallet at your next visit.',
  consentSaved: 'Your choices are saved.',
  smsNeedsPhone: 'We have no mobile number for you: ask the practice to add it to receive texts.',
  emailNeedsEmail: 'We have no e-mail for you: ask the practice to add it to receive e-mails.',
  noMembership: 'You have no membership with this practice.',
  cardSaved: 'Your card is saved.',
  cardCharged: (amount: string) => `Your card is saved and ${amount} was charged. Thank you!`,
  cancelScheduled: (date: string) =>
    `Your membership is cancelled: it ends on ${date}. You keep its perks until then.`,
  paused: (date: string) => `Your membership is paused: billing starts again on ${date}.`,
  signedOutNow: 'You are signed out.',
} as const

/** A contact as the server compares it: a lowercase e-mail or an E.164 phone. */
export type WalletContact = { kind: 'email'; value: string } | { kind: 'phone'; value: string }

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * The contact a patient typed, normalised: an e-mail lowercased and trimmed, or a phone in E.164
 * (domain/phone.ts, as every phone the product stores); `null` when it is neither.
 */
export function parseContact(text: string): WalletContact | null {
  const written = text.trim()
  if (!written) return null
  if (written.includes('@')) {
    const email = written.toLowerCase()
    return email.length <= 254 && EMAIL_PATTERN.test(email) ? { kind: 'email', value: email } : null
  }
  const phone = toE164(written)
  return phone ? { kind: 'phone', value: phone } : null
}

/** What the patient types: an e-mail or a phone, any common writing. */
export const WalletContactSchema = v.pipe(
  v.string(WALLET_MESSAGES.contactRequired),
  v.trim(),
  v.nonEmpty(WALLET_MESSAGES.contactRequired),
  v.maxLength(254, WALLET_MESSAGES.contactInvalid),
  v.check((text) => parseContact(text) !== null, WALLET_MESSAGES.contactInvalid),
)

/** A sign-in code: exactly 6 digits (spaces the patient typed are dropped). */
export const WalletCodeSchema = v.pipe(
  v.string(WALLET_MESSAGES.codeFormat),
  v.transform((text) => text.replace(/\s+/g, '')),
  v.regex(/^\d{6}$/, WALLET_MESSAGES.codeFormat),
)

/** The practice a wallet belongs to, as its pages show it. */
export const WalletPracticeSchema = v.object({
  id: v.number(),
  name: v.string(),
  /** A path the server serves, or null. */
  logo_url: v.nullable(v.string()),
})
export type WalletPractice = v.InferOutput<typeof WalletPracticeSchema>

/**
 * `GET /api/wallet/{practiceId}` (public): the practice's name and logo for the sign-in page;
 * 404 with {@link WALLET_MESSAGES}.practiceNotFound for an id that is no practice.
 */
export const WalletPracticeAnswerSchema = v.object({ practice: WalletPracticeSchema })
export type WalletPracticeAnswer = v.InferOutput<typeof WalletPracticeAnswerSchema>

/** `POST /api/wallet/{practiceId}/code` (public, rate-limited). */
export const WalletCodeInputSchema = v.object({ contact: WalletContactSchema })
export type WalletCodeInput = v.InferOutput<typeof WalletCodeInputSchema>

/**
 * Its answer, always 202 and always the same, whether the contact is a patient of the practice or
 * not (a code is sent only when it is).
 */
export const WalletCodeAnswerSchema = v.object({
  sent: v.literal(true),
  /** Seconds before the wallet may ask for another code. */
  resend_after_seconds: v.number(),
})
export type WalletCodeAnswer = v.InferOutput<typeof WalletCodeAnswerSchema>

/**
 * `POST /api/wallet/{practiceId}/session`: 200 with a session; 401 for a wrong code (the same
 * answer for an unknown contact), 410 for an expired code, 429 when locked or rate-limited.
 * The error's `details.reason` says which: `wrong`, `expired`, `locked`, `rate_limited`; a 429
 * also gives `details.retry_after_seconds` (and `details.retryAfterSeconds`, and the `Retry-After`
 * header). The code call's 429 (too many codes asked for) has the same details.
 */
export const WalletSessionInputSchema = v.object({
  contact: WalletContactSchema,
  code: WalletCodeSchema,
})
export type WalletSessionInput = v.InferOutput<typeof WalletSessionInputSchema>

export const WalletSessionAnswerSchema = v.object({
  /** The patient session, sent as `Authorization: Bearer <token>` on `/api/wallet/me…`. */
  token: v.string(),
  /** When it ends if unused; each call moves it (sliding), never past 12 hours after sign-in. */
  expires_at: v.string(),
})
export type WalletSessionAnswer = v.InferOutput<typeof WalletSessionAnswerSchema>

/** Why a sign-in was refused, in `error.details.reason`. */
export const WALLET_REFUSALS = ['wrong', 'expired', 'locked', 'rate_limited', 'signed_out'] as const
export type WalletRefusal = (typeof WALLET_REFUSALS)[number]

export const WalletCardSchema = v.object({
  brand: v.string(),
  last4: v.string(),
  exp_month: v.number(),
  exp_year: v.number(),
})

export const WalletMembershipSchema = v.object({
  id: v.number(),
  plan_name: v.string(),
  status: v.picklist(['active', 'past_due', 'paused', 'unpaid', 'cancelled', 'ended'] as const),
  /** The status in a sentence: "Active: renews on December 27, 2026", "Past due: …". */
  status_text: v.string(),
  price_cents: v.number(),
  interval: v.picklist(['month', 'quarter', 'year'] as const),
  /** The next charge (renewal or retry); null when none will come (paused with no date, ending). */
  next_bill_at: v.nullable(v.string()),
  /** What is owed now on a past-due or unpaid membership (0 when paid up). */
  amount_due_cents: v.number(),
  /** Allowances left this cycle. */
  perks_left: v.array(v.object({ name: v.string(), remaining: v.number() })),
  /** Member price, in words ("10% off every treatment"); null without one. */
  discount_text: v.nullable(v.string()),
  bank_cents: v.number(),
  card: v.nullable(WalletCardSchema),
  cancel_at_period_end: v.boolean(),
  /** When a scheduled cancellation ends it; null without one. */
  cancel_at: v.nullable(v.string()),
  /** While paused: when billing starts again. */
  resumes_at: v.nullable(v.string()),
  can_pause: v.boolean(),
  /** Cycles a pause may last: 1 to this. */
  pause_max_cycles: v.number(),
  can_cancel: v.boolean(),
  /** When a cancellation asked now would end it (minimum term and notice kept); null if it cannot. */
  cancel_effective_at: v.nullable(v.string()),
  /** The plan's rules in a sentence: minimum term, notice, what cancelling does. */
  cancel_rules_text: v.string(),
  /** The card can be replaced (any live membership); a past-due one is charged at once. */
  can_update_card: v.boolean(),
})
export type WalletMembership = v.InferOutput<typeof WalletMembershipSchema>

export const WalletOfferSchema = v.object({
  promotion_id: v.number(),
  title: v.string(),
  /** What it gives and costs, in words ("$50.00 off HydraFacial · Costs 200 points"). */
  detail: v.string(),
  description: v.string(),
  points_cost: v.number(),
  ends_at: v.nullable(v.string()),
  claimed: v.boolean(),
  /** It can be claimed now (not claimed, enough points, not ended). */
  can_claim: v.boolean(),
  /** Why it cannot be claimed now; null when it can, or was claimed. */
  reason: v.nullable(v.string()),
})
export type WalletOffer = v.InferOutput<typeof WalletOfferSchema>

export const WalletHistorySchema = v.object({
  at: v.string(),
  /** The ledger's kind (`earn`, `bonus`, `adjust`, `redeem`, `expire`, `reverse`). */
  kind: v.string(),
  /** The line in words, "Earned 120 points for a visit". */
  text: v.string(),
  /** Signed points. */
  points: v.number(),
})
export type WalletHistoryLine = v.InferOutput<typeof WalletHistorySchema>

/** `GET /api/wallet/me`: the patient's own things in this practice. */
export const WalletMeSchema = v.object({
  practice: WalletPracticeSchema,
  patient: v.object({
    first_name: v.string(),
    points: v.number(),
    /** The points' worth at the practice's point value. */
    points_value_cents: v.number(),
    /** Points that lapse within 60 days, soonest first (`expires_on`: YYYY-MM-DD). */
    expiring: v.array(v.object({ points: v.number(), expires_on: v.string() })),
    email_subscription: v.boolean(),
    sms_subscription: v.boolean(),
    /** The practice has an e-mail / a mobile number for the patient (consent needs one). */
    has_email: v.boolean(),
    has_phone: v.boolean(),
    /** A link to share with friends: the practice's wallet with the patient's referral mark. */
    referral_url: v.string(),
  }),
  /** The newest 50 lines, newest first. */
  history: v.array(WalletHistorySchema),
  offers: v.array(WalletOfferSchema),
  membership: v.nullable(WalletMembershipSchema),
  session: v.object({ expires_at: v.string() }),
})
export type WalletMe = v.InferOutput<typeof WalletMeSchema>

/** What each change answers: a sentence to show, and the wallet as it is now. */
export const WalletActionAnswerSchema = v.object({ message: v.string(), wallet: WalletMeSchema })
export type WalletActionAnswer = v.InferOutput<typeof WalletActionAnswerSchema>

/** `PUT /api/wallet/me/consent`. */
export const WalletConsentInputSchema = v.object({
  email_subscription: v.boolean('Please say whether you want e-mails.'),
  sms_subscription: v.boolean('Please say whether you want text messages.'),
})
export type WalletConsentInput = v.InferOutput<typeof WalletConsentInputSchema>

/** `PUT /api/wallet/me/card` (idempotent: the same token twice charges at most once). */
export const WalletCardInputSchema = v.object({
  payment_method_token: v.pipe(
    v.string('Please enter your card.'),
    v.trim(),
    v.nonEmpty('Please enter your card.'),
    v.maxLength(255),
  ),
})
export type WalletCardInput = v.InferOutput<typeof WalletCardInputSchema>

/** Its answer: the sentence, whether this call charged the card, and the wallet. */
export const WalletCardAnswerSchema = v.object({
  ...WalletActionAnswerSchema.entries,
  charged: v.boolean(),
})
export type WalletCardAnswer = v.InferOutput<typeof WalletCardAnswerSchema>

/** `POST /api/wallet/me/membership/pause`. */
export const WalletPauseInputSchema = v.object({
  cycles: v.pipe(
    v.number('A pause lasts 1 to 3 cycles.'),
    v.integer('A pause lasts 1 to 3 cycles.'),
    v.minValue(1, 'A pause lasts 1 to 3 cycles.'),
    v.maxValue(3, 'A pause lasts 1 to 3 cycles.'),
  ),
})
export type WalletPauseInput = v.InferOutput<typeof WalletPauseInputSchema>

/** `POST /api/wallet/me/membership/cancel`: at the end of the term the plan's rules allow. */
export const WalletCancelInputSchema = v.optional(v.object({}), {})

/** `POST /api/wallet/logout`. */
export const WalletLogoutAnswerSchema = v.object({ signed_out: v.literal(true) })

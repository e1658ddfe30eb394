import * as v from 'valibot'
import { CouponSchema, PlanSchema } from '#domain/plans.ts'
import { TERMS } from '#domain/pricing.ts'
import { COUNTRY_CODES } from '#domain/regions.ts'
import {
  AgreementSignatureSchema,
  type BillingAddress,
  BillingAddressSchema,
} from '#domain/sign-up/billing-information.ts'
import { type PracticeDetails, PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'

/** The wizard's four steps in order, with the names the stepper shows. */
export const SIGN_UP_STEPS = ['clientDetails', 'accountSetup', 'billing', 'confirmation'] as const
export type SignUpStep = (typeof SIGN_UP_STEPS)[number]

/** The stepper's name of each step. */
export const SIGN_UP_STEP_LABELS: Readonly<Record<SignUpStep, string>> = {
  clientDetails: 'Client Information',
  accountSetup: 'Account Setup',
  billing: 'Billing Information',
  confirmation: 'Confirmation',
}

/**
 * What a form holds of step 1 so far, not yet validated. In memory it may hold the passwords;
 * the stored copy never does.
 */
export type ClientDetailsDraft = {
  title?: string
  name?: string
  last_name?: string
  country_code?: string
  phone?: string
  email?: string
  password?: string
  password_confirm?: string
  position?: string
}

/** What a form holds of step 2 so far, not yet validated. */
export type PracticeDetailsDraft = {
  practice_name?: string
  office_name?: string
  url?: string
  practice_phone?: string
  practice_email?: string
  practice_address?: string
  practice_address_2?: string
  city?: string
  practice_zip?: string
  state?: string
  country?: string
  e_record?: string
  nextech?: {
    client_id?: string
    username?: string
    password?: string
    nx_practice_id?: string
  } | null
}

/** What a form holds of step 3 so far, not yet validated. */
export type BillingDraft = {
  card?: {
    number?: string
    exp_month?: string | number
    exp_year?: string | number
    cvv?: string
    name?: string
  }
  billing_address_1?: string
  billing_address_2?: string
  billing_city?: string
  billing_state?: string
  billing_zip?: string
  promo_code?: string
  terms?: boolean
  business_agreement?: boolean
}

/** The drafts of the three form steps. */
export type SignUpDrafts = {
  clientDetails: ClientDetailsDraft
  accountSetup: PracticeDetailsDraft
  billing: BillingDraft
}

// A field of a stored draft: a value of the wrong kind is dropped rather than failing the whole.
const text = v.fallback(v.optional(v.string()), undefined)
const numberOrText = v.fallback(v.optional(v.union([v.string(), v.number()])), undefined)
const flag = v.fallback(v.optional(v.boolean()), undefined)

// The stored drafts list only the fields that may be kept. Parsing drops
// every other key, so passwords, the card number, the CVV and the code can never be stored,
// whatever the caller passes.
const StoredClientDetailsDraftSchema = v.object({
  title: text,
  name: text,
  last_name: text,
  country_code: text,
  phone: text,
  email: text,
  position: text,
})

const StoredPracticeDetailsDraftSchema = v.object({
  practice_name: text,
  office_name: text,
  url: text,
  practice_phone: text,
  practice_email: text,
  practice_address: text,
  practice_address_2: text,
  city: text,
  practice_zip: text,
  state: text,
  country: text,
  e_record: text,
  nextech: v.nullish(v.object({ client_id: text, username: text, nx_practice_id: text })),
})

const StoredBillingDraftSchema = v.object({
  card: v.optional(
    v.object({
      exp_month: numberOrText,
      exp_year: numberOrText,
      name: text,
    }),
  ),
  billing_address_1: text,
  billing_address_2: text,
  billing_city: text,
  billing_state: text,
  billing_zip: text,
  promo_code: text,
  terms: flag,
  business_agreement: flag,
})

/** The card as the review shows it after payment: type and last four digits only. */
export const PaidCardSchema = v.object({
  last4: v.pipe(v.string(), v.regex(/^\d{4}$/)),
  type: v.nullable(v.string()),
  name: v.string(),
  exp_month: v.number(),
  exp_year: v.number(),
})
export type PaidCard = v.InferOutput<typeof PaidCardSchema>

/**
 * The wizard's progress as kept in sessionStorage so that a reload loses nothing: the step, the
 * drafts without passwords, card number, CVV or code, the verified phone's id, the plan choice,
 * the promo, and the payment once made.
 */
export const StoredSignUpSchema = v.object({
  version: v.literal(1),
  step: v.picklist(SIGN_UP_STEPS),
  drafts: v.object({
    clientDetails: StoredClientDetailsDraftSchema,
    accountSetup: StoredPracticeDetailsDraftSchema,
    billing: StoredBillingDraftSchema,
  }),
  verifiedPhone: v.nullable(v.object({ authyId: v.string(), phone: v.string() })),
  country: v.picklist(COUNTRY_CODES),
  plans: v.array(PlanSchema),
  publicCoupons: v.array(CouponSchema),
  term: v.picklist(TERMS),
  ehrChosen: v.boolean(),
  coupon: v.nullable(CouponSchema),
  stripeId: v.nullable(v.string()),
  paidCard: v.nullable(PaidCardSchema),
  signature: v.nullable(AgreementSignatureSchema),
})
export type StoredSignUp = v.InferOutput<typeof StoredSignUpSchema>

/**
 * Reads stored progress: the object with every field that must not be stored removed, or null
 * when it is not progress of this version. Progress that claims more than it holds is brought
 * back to what it does hold (see {@link consistentProgress}).
 */
export function parseStoredSignUp(raw: unknown): StoredSignUp | null {
  const result = v.safeParse(StoredSignUpSchema, raw)
  return result.success ? consistentProgress(result.output) : null
}

/**
 * Stored progress as far as it holds together. The wizard only ever stores consistent progress,
 * but sessionStorage can be edited, so a restored wizard trusts no more than this:
 *
 * - A payment is kept only with the billing address it was made with. Once paid, step 3 locks
 *   the card, the address and the plan, so a payment without a valid address could never be
 *   completed: it is dropped (with its card), and step 3 asks for the card and address again.
 *   The dropped customer is never billed: the subscription starts when Submit creates the
 *   account, with the payment the wizard then holds.
 * - Step 4 needs the payment, and so the billing address: without them the wizard resumes on
 *   step 3.
 */
export function consistentProgress(progress: StoredSignUp): StoredSignUp {
  const paid = progress.stripeId !== null && parseBillingAddress(progress.drafts.billing) !== null
  const step = progress.step === 'confirmation' && !paid ? 'billing' : progress.step
  return paid ? { ...progress, step } : { ...progress, step, stripeId: null, paidCard: null }
}

/** Step 2's values from a draft when they pass every rule of the step, else null. */
export function parsePracticeDetails(draft: PracticeDetailsDraft): PracticeDetails | null {
  const result = v.safeParse(PracticeDetailsSchema, draft)
  return result.success ? result.output : null
}

/** Step 3's billing address from a draft when it passes every rule, else null. */
export function parseBillingAddress(draft: BillingDraft): BillingAddress | null {
  const result = v.safeParse(BillingAddressSchema, draft)
  return result.success ? result.output : null
}

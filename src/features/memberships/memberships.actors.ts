import { HTTPError } from 'ky'
import { MEMBERSHIP_AGREEMENT, type Membership, type Preview } from '#domain/memberships.ts'
import {
  type CardLink,
  enrolPatient,
  isCardDeclined,
  makeChange,
  type PricedChange,
  payCardLink,
  previewChange,
  resumeMembership,
  undoCancel,
  updateMembershipCard,
} from '#src/api/memberships.ts'
import { type CardInput, createCardToken, paymentErrorMessage } from '#src/api/payments.ts'
import {
  loadStripeJs,
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
  stripeCardFields,
} from '#src/api/stripe-fields.ts'
import { apiErrorMessage } from '#src/lib/http.ts'

// The card fields mount Stripe Elements in Stripe mode; the feature reaches Stripe.js through
// this file, its only door to src/api (as Settings' subscription does).
export {
  type CardInput,
  type CardLink,
  loadStripeJs,
  type PaymentsMode,
  type PricedChange,
  type StripeCardFields,
  stripeCardFields,
}

/**
 * An answer, or the sentence the person should read. `declined`: the card was declined (402),
 * nothing was charged or created; `refused`: a 403, which trying again cannot mend.
 */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; message: string; declined?: boolean; refused?: boolean }

async function outcome<T>(
  call: () => Promise<T>,
  describe: (error: unknown) => Promise<string> = apiErrorMessage,
): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() }
  } catch (error) {
    const status = error instanceof HTTPError ? error.response.status : undefined
    return {
      ok: false,
      message: await describe(error),
      ...(isCardDeclined(error) ? { declined: true } : {}),
      ...(status === 403 ? { refused: true } : {}),
    }
  }
}

/** What the enrolment form sends, before the card is tokenised. */
export type EnrolRequest = {
  plan_id: number
  card: CardInput
  /** The mounted Stripe Elements (Stripe mode), else null. */
  fields: StripeCardFields | null
  accepted_by_name: string
  idempotencyKey: string
}

/** The membership calls of the profile, Settings and the patient's card page. */
export type MembershipCalls = {
  /** Which card fields to show: the test gateway's, or Stripe Elements. */
  mode: PaymentsMode
  /** Tokenises the card (as the sign-up does), then charges the first cycle and enrols. */
  enrol(patientId: number, request: EnrolRequest): Promise<Outcome<Membership>>
  /** What a change would cost; nothing changes. */
  preview(membershipId: number, change: PricedChange): Promise<Outcome<Preview>>
  /** Makes the change. */
  change(membershipId: number, change: PricedChange): Promise<Outcome<Membership>>
  resume(membershipId: number): Promise<Outcome<Membership>>
  /** Takes back a cancellation at the end of the term: it keeps renewing. */
  undoCancel(membershipId: number): Promise<Outcome<Membership>>
  /** Tokenises the card, then puts it on file (charged at once when something is due). */
  updateCard(
    membershipId: number,
    card: CardInput,
    fields: StripeCardFields | null,
  ): Promise<Outcome<Membership>>
  /** The patient's own card page: tokenises the card, then puts it on file and pays. */
  payByLink(
    token: string,
    card: CardInput,
    fields: StripeCardFields | null,
  ): Promise<Outcome<{ status: string; charged: boolean; message: string }>>
}

/** The real calls: the API and the build's tokeniser. */
export const membershipCalls: MembershipCalls = {
  mode: paymentsMode(),
  enrol: (patientId, request) =>
    outcome(async () => {
      const token = await createCardToken(request.card, { fields: request.fields })
      return enrolPatient(patientId, {
        plan_id: request.plan_id,
        payment_method_token: token.id,
        consent: {
          text_version: MEMBERSHIP_AGREEMENT.version,
          accepted_by_name: request.accepted_by_name,
        },
        idempotencyKey: request.idempotencyKey,
      })
    }, paymentErrorMessage),
  preview: (id, change) => outcome(() => previewChange(id, change)),
  change: (id, change) => outcome(() => makeChange(id, change), paymentErrorMessage),
  resume: (id) => outcome(() => resumeMembership(id)),
  undoCancel: (id) => outcome(() => undoCancel(id)),
  updateCard: (id, card, fields) =>
    outcome(async () => {
      const token = await createCardToken(card, { fields })
      return updateMembershipCard(id, token.id)
    }, paymentErrorMessage),
  payByLink: (linkToken, card, fields) =>
    outcome(async () => {
      const token = await createCardToken(card, { fields })
      return payCardLink(linkToken, token.id)
    }, paymentErrorMessage),
}

import { HTTPError } from 'ky'
import * as v from 'valibot'
import {
  CardLinkSchema,
  type EnrolInput,
  type Membership,
  type MembershipBank,
  MembershipBankAnswerSchema,
  type MembershipEventSchema,
  MembershipEventsAnswerSchema,
  MembershipPlanSchema,
  MembershipPlansAnswerSchema,
  MembershipSchema,
  type MembershipStatus,
  MembershipsAnswerSchema,
  type PaymentAccount,
  PaymentAccountSchema,
  type Plan,
  type PlanInput,
  type Preview,
  PreviewSchema,
} from '#domain/memberships.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

// The membership routes are new: until the server declares them and `npm run api:contract`
// writes them into contract.gen.ts, their answers are parsed with the domain's schemas directly
// (`v.parse`, as `parseAnswer` does at run time); then each call moves to `parseAnswer`.

/** How many memberships one page of the members list holds: the server's page (50). */
export const MEMBERSHIP_PAGE_SIZE = 50

/** `GET /membership-plans` (`?archived=true`: the archived ones). */
export async function listPlans(query: { archived?: boolean } = {}): Promise<Plan[]> {
  const searchParams: Record<string, string> = query.archived ? { archived: 'true' } : {}
  const answer = await http.get('membership-plans', { searchParams }).json()
  return v.parse(MembershipPlansAnswerSchema, answer).data
}

/** `POST /membership-plans` (Manager, Admin): a new plan, version 1. */
export async function createPlan(input: PlanInput): Promise<Plan> {
  return v.parse(MembershipPlanSchema, await http.post('membership-plans', { json: input }).json())
}

/**
 * `PUT /membership-plans/{id}`: a change of price, cadence, terms or perks makes a new version for
 * new members; existing members keep theirs.
 */
export async function updatePlan(id: number, input: PlanInput): Promise<Plan> {
  return v.parse(
    MembershipPlanSchema,
    await http.put(`membership-plans/${id}`, { json: input }).json(),
  )
}

/** `POST /membership-plans/{id}/archive`: nobody new joins it; its members keep it. */
export async function archivePlan(id: number): Promise<Plan> {
  return v.parse(MembershipPlanSchema, await http.post(`membership-plans/${id}/archive`).json())
}

/** A page of the practice's memberships, as the members list shows it. */
export type MembershipPage = v.InferOutput<typeof MembershipsAnswerSchema> & { pageSize: number }

/** `GET /memberships?status=&plan_id=&page=`: the practice's members, a page at a time. */
export async function listMemberships(
  query: {
    status?: MembershipStatus | undefined
    plan_id?: number | undefined
    page?: number
  } = {},
): Promise<MembershipPage> {
  const searchParams: Record<string, string | number> = { page: query.page ?? 1 }
  if (query.status) searchParams.status = query.status
  if (query.plan_id) searchParams.plan_id = query.plan_id
  const answer = v.parse(
    MembershipsAnswerSchema,
    await http.get('memberships', { searchParams }).json(),
  )
  return { ...answer, pageSize: MEMBERSHIP_PAGE_SIZE }
}

const PatientMembershipsSchema = v.object({ data: v.array(MembershipSchema) })

/** `GET /patients/{id}/memberships`: the patient's memberships, newest first. */
export async function listPatientMemberships(patientId: number): Promise<Membership[]> {
  const answer = await http.get(`patients/${patientId}/memberships`).json()
  return v.parse(PatientMembershipsSchema, answer).data
}

/**
 * `POST /patients/{id}/memberships`: the first charge (setup fee and first cycle), then the
 * membership. A declined card answers 402 with the card's sentence and creates nothing.
 */
export async function enrolPatient(patientId: number, input: EnrolInput): Promise<Membership> {
  return v.parse(
    MembershipSchema,
    await http.post(`patients/${patientId}/memberships`, { json: input }).json(),
  )
}

/** Whether a failed call was a declined card (402): nothing was charged or created. */
export function isCardDeclined(error: unknown): boolean {
  return error instanceof HTTPError && error.response.status === 402
}

/** The changes that cost (or refund) money and so are previewed before they are made. */
export type PricedChange =
  | { kind: 'pause'; cycles: number }
  | {
      kind: 'cancel'
      at: 'period_end' | 'now'
      refund: boolean
      /** Who asked: the patient, or the practice ending it. */
      requested_by: 'patient' | 'staff'
    }
  | { kind: 'change-plan'; plan_id: number; at: 'now' | 'period_end' }
  | { kind: 'retry-payment' }

function changeCall(id: number, change: PricedChange, preview: boolean) {
  const { kind, ...body } = change
  return http.post(`memberships/${id}/${kind}`, {
    json: body,
    ...(preview ? { searchParams: { preview: 'true' } } : {}),
  })
}

/** `POST /memberships/{id}/{change}?preview=true`: what the change would cost; nothing changes. */
export async function previewChange(id: number, change: PricedChange): Promise<Preview> {
  return v.parse(PreviewSchema, await changeCall(id, change, true).json()).preview
}

/** `POST /memberships/{id}/{change}`: makes the change; answers the membership. */
export async function makeChange(id: number, change: PricedChange): Promise<Membership> {
  return v.parse(MembershipSchema, await changeCall(id, change, false).json())
}

/** `POST /memberships/{id}/resume`: billing starts again. */
export async function resumeMembership(id: number): Promise<Membership> {
  return v.parse(MembershipSchema, await http.post(`memberships/${id}/resume`, { json: {} }).json())
}

/** `POST /memberships/{id}/undo-cancel`: a cancellation at the end of the term is taken back. */
export async function undoCancel(id: number): Promise<Membership> {
  return v.parse(
    MembershipSchema,
    await http.post(`memberships/${id}/undo-cancel`, { json: {} }).json(),
  )
}

/** `PUT /memberships/{id}/card`: the tokenised card goes on file (charged at once when due). */
export async function updateMembershipCard(
  id: number,
  paymentMethodToken: string,
): Promise<Membership> {
  return v.parse(
    MembershipSchema,
    await http
      .put(`memberships/${id}/card`, { json: { payment_method_token: paymentMethodToken } })
      .json(),
  )
}

/** One line of a membership's history. */
export type MembershipEvent = v.InferOutput<typeof MembershipEventSchema>

/** `GET /memberships/{id}/events`: charges, failures, perks, changes, newest first. */
export async function listMembershipEvents(id: number): Promise<MembershipEvent[]> {
  const answer = await http.get(`memberships/${id}/events`).json()
  return v.parse(MembershipEventsAnswerSchema, answer).data
}

/** `GET /memberships/{id}/bank`: the bank's entries, newest first, and its balance. */
export async function getMembershipBank(id: number): Promise<MembershipBank> {
  return parseAnswer(
    'GET /api/memberships/:id/bank',
    MembershipBankAnswerSchema,
    await http.get(`memberships/${id}/bank`).json(),
  )
}

/** `GET /practice/payments`: the practice's own payment account and its retry schedule. */
export async function getPaymentAccount(): Promise<PaymentAccount> {
  return v.parse(PaymentAccountSchema, await http.get('practice/payments').json())
}

/** `POST /practice/payments/connect` (Admin): connects the practice's payment account. */
export async function connectPayments(): Promise<PaymentAccount> {
  return v.parse(
    PaymentAccountSchema,
    await http.post('practice/payments/connect', { json: {} }).json(),
  )
}

/** What the patient's card page shows (public, by the link's token). */
export type CardLink = v.InferOutput<typeof CardLinkSchema>

/** `GET /membership-card/{token}` (public): null when the link is unknown or no longer valid. */
export async function getCardLink(token: string): Promise<CardLink | null> {
  try {
    const answer = await http.get(`membership-card/${encodeURIComponent(token)}`).json()
    return v.parse(CardLinkSchema, answer)
  } catch (error) {
    if (error instanceof HTTPError && [400, 404, 410].includes(error.response.status)) return null
    throw error
  }
}

const CardLinkPaidSchema = v.object({
  status: v.string(),
  charged: v.boolean(),
  message: v.string(),
})

/** `PUT /membership-card/{token}` (public): the new card, charged at once when something is due. */
export async function payCardLink(
  token: string,
  paymentMethodToken: string,
): Promise<v.InferOutput<typeof CardLinkPaidSchema>> {
  return v.parse(
    CardLinkPaidSchema,
    await http
      .put(`membership-card/${encodeURIComponent(token)}`, {
        json: { payment_method_token: paymentMethodToken },
      })
      .json(),
  )
}

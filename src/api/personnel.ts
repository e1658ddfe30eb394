import { HTTPError } from 'ky'
import * as v from 'valibot'
import { type RegisteredUserAnswer, RegisteredUserAnswerSchema } from '#domain/api-answers.ts'
import {
  InvitationClosedDetailsSchema,
  InvitationClosedError,
  type InvitePersonnelInput,
  type PersonnelInvitation,
  PersonnelInvitationSchema,
  type PersonnelRegisterPayloadInput,
} from '#domain/personnel.ts'
import { type InvitationPreview, InvitationPreviewSchema } from '#domain/practice-data.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** The registered person as `POST /auth/personnel/register` answers it. */
export type Registered = RegisteredUserAnswer

/** Body of `POST /auth/personnel/register` (personnel registration). */
export type RegisterPersonnelInput = PersonnelRegisterPayloadInput

export type { InvitePersonnelInput, PersonnelInvitation }

const path = (id: string) => `personnel/${encodeURIComponent(id)}`

/**
 * `GET /personnel/{id}`: what an invitation pre-fills (names, e-mail, position, title) and the
 * practice's name. A used or expired invitation (410) rejects with {@link InvitationClosedError},
 * which the registration page explains; anything else (404 for an unknown or revoked one) rejects
 * as it came, and the route goes to /404.
 */
export async function getInvitation(id: string): Promise<InvitationPreview> {
  try {
    return parseAnswer(
      'GET /api/personnel/:id',
      InvitationPreviewSchema,
      await http.get(path(id)).json(),
    )
  } catch (error) {
    if (error instanceof HTTPError && error.response.status === 410) {
      const body = v.safeParse(ClosedAnswerSchema, await error.response.clone().json())
      if (body.success) {
        throw new InvitationClosedError(body.output.error.details, body.output.error.message)
      }
    }
    throw error
  }
}

const ClosedAnswerSchema = v.object({
  error: v.object({ message: v.string(), details: InvitationClosedDetailsSchema }),
})

/** `POST /auth/personnel/register`: an invited person creates an account (phone verified first). */
export async function registerPersonnel(
  input: Body<'POST /api/auth/personnel/register'>,
): Promise<Registered> {
  return parseAnswer(
    'POST /api/auth/personnel/register',
    RegisteredUserAnswerSchema,
    await http.post('auth/personnel/register', { json: input }).json(),
  )
}

/** `GET /personnel`: the practice's invitations with their status (ids for an Admin only). */
export async function listInvitations(): Promise<PersonnelInvitation[]> {
  return parseAnswer(
    'GET /api/personnel',
    v.array(PersonnelInvitationSchema),
    await http.get('personnel').json(),
  )
}

/** `POST /personnel` (Admin): invites a staff member; the server e-mails the registration link. */
export async function invitePersonnel(
  input: Body<'POST /api/personnel'>,
): Promise<PersonnelInvitation> {
  return parseAnswer(
    'POST /api/personnel',
    PersonnelInvitationSchema,
    await http.post('personnel', { json: input }).json(),
  )
}

/** `POST /personnel/{id}/resend` (Admin): e-mails the link again; it works 14 more days. */
export async function resendInvitation(id: string): Promise<PersonnelInvitation> {
  return parseAnswer(
    'POST /api/personnel/:id/resend',
    PersonnelInvitationSchema,
    await http.post(`${path(id)}/resend`).json(),
  )
}

/** `DELETE /personnel/{id}` (Admin): revokes a pending invitation; its link stops working. */
export async function revokeInvitation(id: string): Promise<PersonnelInvitation> {
  return parseAnswer(
    'DELETE /api/personnel/:id',
    PersonnelInvitationSchema,
    await http.delete(path(id)).json(),
  )
}

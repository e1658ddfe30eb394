import * as v from 'valibot'
import { type InvitationPreview, InvitationPreviewSchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** The registered person as `POST /auth/personnel/register` answers it (extra fields are kept). */
const RegisteredSchema = v.object({
  user: v.looseObject({ id: v.number(), email: v.string() }),
})
export type Registered = v.InferOutput<typeof RegisteredSchema>

/**
 * Body of `POST /auth/personnel/register` (spec section 3, personnel registration). The
 * registration form (issue 5) validates it before it is sent.
 */
export type RegisterPersonnelInput = {
  id: string
  title?: string | null
  first_name: string
  last_name: string
  email: string
  position: string
  cell_phone: string
  password: string
  password_confirm: string
  authyId: string
  confirm_code: string
  username?: string
}

/** Body of `POST /personnel`: an Admin invites a staff member by e-mail. */
export type InvitePersonnelInput = {
  email: string
  first_name: string
  last_name: string
  position: string
  title?: string | null
}

/**
 * `GET /personnel/{id}`: what an invitation pre-fills (names, e-mail, position). 404 for an
 * unknown, used or expired invitation, which the registration route turns into /404.
 */
export async function getInvitation(id: string): Promise<InvitationPreview> {
  return v.parse(
    InvitationPreviewSchema,
    await http.get(`personnel/${encodeURIComponent(id)}`).json(),
  )
}

/** `POST /auth/personnel/register`: an invited person creates an account (phone verified first). */
export async function registerPersonnel(input: RegisterPersonnelInput): Promise<Registered> {
  return v.parse(
    RegisteredSchema,
    await http.post('auth/personnel/register', { json: input }).json(),
  )
}

/** `POST /personnel` (Admin): invites a staff member; the server e-mails the registration link. */
export async function invitePersonnel(input: InvitePersonnelInput): Promise<void> {
  await http.post('personnel', { json: input })
}

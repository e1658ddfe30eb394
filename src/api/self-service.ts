import * as v from 'valibot'
import type { Role } from '#domain/permissions.ts'
import { type StaffMember, StaffMemberSchema } from '#domain/practice-data.ts'
import type { ChangePasswordPayload, ProfileUpdatePayload } from '#domain/self-service.ts'
import { type Session, SessionSchema } from '#domain/session.ts'
import { http } from '#src/lib/http.ts'

/** `POST /auth/change-password`: the fresh session (every other one has ended). */
export async function changePassword(payload: ChangePasswordPayload): Promise<Session> {
  return v.parse(SessionSchema, await http.post('auth/change-password', { json: payload }).json())
}

/** `PUT /users/{id}/role` (Admin). */
export async function setMemberRole(id: number, role: Role): Promise<StaffMember> {
  return v.parse(
    StaffMemberSchema,
    await http.put(`users/${id}/role`, { json: { access_rights: role } }).json(),
  )
}

/** `POST /users/{id}/deactivate` or `/reactivate` (Admin). */
export async function setMemberActive(id: number, active: boolean): Promise<StaffMember> {
  const action = active ? 'reactivate' : 'deactivate'
  return v.parse(StaffMemberSchema, await http.post(`users/${id}/${action}`, { json: {} }).json())
}

/** `PUT /users/{own id}`: the own title and names. */
export async function updateOwnProfile(
  id: number,
  payload: ProfileUpdatePayload,
): Promise<StaffMember> {
  return v.parse(StaffMemberSchema, await http.put(`users/${id}`, { json: payload }).json())
}

import type { Role } from '#domain/permissions.ts'
import { type StaffMember, StaffMemberSchema } from '#domain/practice-data.ts'
import { type Session, SessionSchema } from '#domain/session.ts'
import {
  type GetCodeAnswer,
  GetCodeAnswerSchema,
  type VerifyCodeAnswer,
  VerifyCodeAnswerSchema,
} from '#domain/sign-up/api.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `POST /auth/change-password`: the fresh session (every other one has ended). */
export async function changePassword(
  payload: Body<'POST /api/auth/change-password'>,
): Promise<Session> {
  return parseAnswer(
    'POST /api/auth/change-password',
    SessionSchema,
    await http.post('auth/change-password', { json: payload }).json(),
  )
}

/** `PUT /users/{id}/role` (Admin). */
export async function setMemberRole(id: number, role: Role): Promise<StaffMember> {
  return parseAnswer(
    'PUT /api/users/:id/role',
    StaffMemberSchema,
    await http
      .put(`users/${id}/role`, {
        json: { access_rights: role } satisfies Body<'PUT /api/users/:id/role'>,
      })
      .json(),
  )
}

/** `POST /users/{id}/deactivate` or `/reactivate` (Admin). */
export async function setMemberActive(id: number, active: boolean): Promise<StaffMember> {
  const action = active ? 'reactivate' : 'deactivate'
  return parseAnswer(
    `POST /api/users/:id/${action}` as const,
    StaffMemberSchema,
    await http.post(`users/${id}/${action}`, { json: {} }).json(),
  )
}

/** `PUT /users/{own id}`: the own title and names. */
export async function updateOwnProfile(
  id: number,
  payload: Body<'PUT /api/users/:id'>,
): Promise<StaffMember> {
  return parseAnswer(
    'PUT /api/users/:id',
    StaffMemberSchema,
    await http.put(`users/${id}`, { json: payload }).json(),
  )
}

/** `POST /users/{own id}/phone/code`: texts a code to the new phone. */
export async function sendPhoneCode(
  id: number,
  payload: Body<'POST /api/users/:id/phone/code'>,
): Promise<GetCodeAnswer> {
  return parseAnswer(
    'POST /api/users/:id/phone/code',
    GetCodeAnswerSchema,
    await http.post(`users/${id}/phone/code`, { json: payload }).json(),
  )
}

/** `POST /users/{own id}/phone/verify`: checks the code typed. */
export async function verifyPhoneCode(
  id: number,
  payload: Body<'POST /api/users/:id/phone/verify'>,
): Promise<VerifyCodeAnswer> {
  return parseAnswer(
    'POST /api/users/:id/phone/verify',
    VerifyCodeAnswerSchema,
    await http.post(`users/${id}/phone/verify`, { json: payload }).json(),
  )
}

/** `PUT /users/{own id}/phone`: saves the verified new phone. */
export async function changeOwnPhone(
  id: number,
  payload: Body<'PUT /api/users/:id/phone'>,
): Promise<StaffMember> {
  return parseAnswer(
    'PUT /api/users/:id/phone',
    StaffMemberSchema,
    await http.put(`users/${id}/phone`, { json: payload }).json(),
  )
}

import {
  ForgotPasswordAnswerSchema,
  type InitPermissionsAnswer,
  InitPermissionsAnswerSchema,
  ResetCodeStatusAnswerSchema,
} from '#domain/auth.ts'
import { type Session, SessionSchema } from '#domain/session.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `POST /auth/local`: signs in; the answer is the session to store as the current user. */
export async function signIn(payload: Body<'POST /api/auth/local'>): Promise<Session> {
  return parseAnswer(
    'POST /api/auth/local',
    SessionSchema,
    await http.post('auth/local', { json: payload }).json(),
  )
}

/**
 * `POST /auth/forgot-password`: asks for a reset link to be e-mailed. `url` is the reset page the
 * link should open; the server answers alike for every well-formed e-mail.
 */
export async function forgotPassword(
  payload: Body<'POST /api/auth/forgot-password'>,
): Promise<void> {
  parseAnswer(
    'POST /api/auth/forgot-password',
    ForgotPasswordAnswerSchema,
    await http.post('auth/forgot-password', { json: payload }).json(),
  )
}

/** `POST /auth/reset-password`: sets the new password with the e-mailed code and signs in. */
export async function resetPassword(
  payload: Body<'POST /api/auth/reset-password'>,
): Promise<Session> {
  return parseAnswer(
    'POST /api/auth/reset-password',
    SessionSchema,
    await http.post('auth/reset-password', { json: payload }).json(),
  )
}

/**
 * `POST /auth/reset-code-status`: whether a reset link's code can still set a password (unused and
 * not expired), asked before the reset form is shown.
 */
export async function resetCodeStatus(code: string): Promise<boolean> {
  return parseAnswer(
    'POST /api/auth/reset-code-status',
    ResetCodeStatusAnswerSchema,
    await http
      .post('auth/reset-code-status', {
        json: { code } satisfies Body<'POST /api/auth/reset-code-status'>,
      })
      .json(),
  ).valid
}

/** `GET /users-permissions/init` (auth): whether the signed-in user's practice has an Admin. */
export async function initPermissions(): Promise<InitPermissionsAnswer> {
  return parseAnswer(
    'GET /api/users-permissions/init',
    InitPermissionsAnswerSchema,
    await http.get('users-permissions/init').json(),
  )
}

/** How long signing out waits for the server before giving up; the browser forgets the user anyway. */
export const LOGOUT_TIMEOUT_MS = 5_000

/**
 * `POST /auth/logout` (auth): ends every session of the user on the server, so the token stops
 * working even if a copy of it survives. Takes the token explicitly because the browser forgets
 * the stored user first. One try, no retry.
 */
export async function logout(jwt: string): Promise<void> {
  await http.post('auth/logout', {
    headers: { Authorization: `Bearer ${jwt}` },
    timeout: LOGOUT_TIMEOUT_MS,
    retry: 0,
  })
}

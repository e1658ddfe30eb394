import {
  type GetCodeAnswer,
  GetCodeAnswerSchema,
  type PayAnswer,
  PayAnswerSchema,
  type SignUpAnswer,
  SignUpAnswerSchema,
  type VerifyCodeAnswer,
  VerifyCodeAnswerSchema,
} from '#domain/sign-up/api.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/**
 * `POST /auth/check-email`: whether the e-mail and phone are still free. Answers text (`OK`); a
 * 409 carries `Email is already taken.` or `Phone number is already taken.` as text, which
 * `apiErrorMessage` passes on unchanged.
 */
export async function checkEmail(input: Body<'POST /api/auth/check-email'>): Promise<string> {
  return http.post('auth/check-email', { json: input }).text()
}

/** `POST /auth/get-code`: texts a 6-digit code to the phone; answers the verification id. */
export async function getCode(input: Body<'POST /api/auth/get-code'>): Promise<GetCodeAnswer> {
  return parseAnswer(
    'POST /api/auth/get-code',
    GetCodeAnswerSchema,
    await http.post('auth/get-code', { json: input }).json(),
  )
}

/** `POST /auth/verify-code`: checks the code; 400 `Incorrect Confirmation Code entered`. */
export async function verifyCode(
  input: Body<'POST /api/auth/verify-code'>,
): Promise<VerifyCodeAnswer> {
  return parseAnswer(
    'POST /api/auth/verify-code',
    VerifyCodeAnswerSchema,
    await http.post('auth/verify-code', { json: input }).json(),
  )
}

/** `POST /auth/pay`: charges the tokenised card; answers the customer id kept as `stripe_id`. */
export async function pay(input: Body<'POST /api/auth/pay'>): Promise<PayAnswer> {
  return parseAnswer(
    'POST /api/auth/pay',
    PayAnswerSchema,
    await http.post('auth/pay', { json: input }).json(),
  )
}

/**
 * `POST /auth/local/register`: creates the practice and its Admin from the wizard's payload
 *; the server re-validates every field with the same schema.
 */
export async function registerPractice(
  payload: Body<'POST /api/auth/local/register'>,
): Promise<SignUpAnswer> {
  return parseAnswer(
    'POST /api/auth/local/register',
    SignUpAnswerSchema,
    await http.post('auth/local/register', { json: payload }).json(),
  )
}

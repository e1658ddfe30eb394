import {
  type CheckAvailabilityInput,
  type GetCodeAnswer,
  GetCodeAnswerSchema,
  type GetCodeInput,
  type PayAnswer,
  PayAnswerSchema,
  type PayPayload,
  type SignUpAnswer,
  SignUpAnswerSchema,
  type SignUpPayload,
  type VerifyCodeAnswer,
  VerifyCodeAnswerSchema,
  type VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/**
 * `POST /auth/check-email`: whether the e-mail and phone are still free. Answers text (`OK`); a
 * 409 carries `Email is already taken.` or `Phone number is already taken.` as text, which
 * `apiErrorMessage` passes on unchanged.
 */
export async function checkEmail(input: CheckAvailabilityInput): Promise<string> {
  return http.post('auth/check-email', { json: input }).text()
}

/** `POST /auth/get-code`: texts a 6-digit code to the phone; answers the verification id. */
export async function getCode(input: GetCodeInput): Promise<GetCodeAnswer> {
  return parseAnswer(
    'POST /api/auth/get-code',
    GetCodeAnswerSchema,
    await http.post('auth/get-code', { json: input }).json(),
  )
}

/** `POST /auth/verify-code`: checks the code; 400 `Incorrect Confirmation Code entered`. */
export async function verifyCode(input: VerifyCodeInput): Promise<VerifyCodeAnswer> {
  return parseAnswer(
    'POST /api/auth/verify-code',
    VerifyCodeAnswerSchema,
    await http.post('auth/verify-code', { json: input }).json(),
  )
}

/** `POST /auth/pay`: charges the tokenised card; answers the customer id kept as `stripe_id`. */
export async function pay(input: PayPayload): Promise<PayAnswer> {
  return parseAnswer(
    'POST /api/auth/pay',
    PayAnswerSchema,
    await http.post('auth/pay', { json: input }).json(),
  )
}

/**
 * `POST /auth/local/register`: creates the practice and its Admin from the wizard's payload
 * (spec section 7); the server re-validates every field with the same schema.
 */
export async function registerPractice(payload: SignUpPayload): Promise<SignUpAnswer> {
  return parseAnswer(
    'POST /api/auth/local/register',
    SignUpAnswerSchema,
    await http.post('auth/local/register', { json: payload }).json(),
  )
}

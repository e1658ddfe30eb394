import * as v from 'valibot'
import { http } from '#src/lib/http.ts'

const AuthyIdSchema = v.object({ authyId: v.pipe(v.string(), v.nonEmpty()) })
const VerifiedSchema = v.object({ verified: v.boolean() })
const PaidSchema = v.object({ id: v.pipe(v.string(), v.nonEmpty()) })
const RegisteredSchema = v.object({
  user: v.looseObject({ id: v.number(), email: v.string() }),
})

/** Body of `POST /auth/check-email`: the e-mail and phone that must still be free. */
export type AvailabilityInput = { email: string; phone: string }
/** Body of `POST /auth/get-code`. */
export type GetCodeInput = { email: string; phone: string; countryCode: string }
/** Body of `POST /auth/verify-code`. */
export type VerifyCodeInput = { authyId: string; phone: string; code: string }
/** Body of `POST /auth/pay`: the card token, the practice e-mail and the billing details. */
export type PayInput = { token: string; email: string; billingInformation: Record<string, unknown> }

/**
 * `POST /auth/check-email`: whether the e-mail and phone are still free. Answers text (`OK`); a
 * 409 carries `Email is already taken.` or `Phone number is already taken.` as text, which
 * `apiErrorMessage` passes on unchanged.
 */
export async function checkEmail(input: AvailabilityInput): Promise<string> {
  return http.post('auth/check-email', { json: input }).text()
}

/** `POST /auth/get-code`: texts a 6-digit code to the phone; answers the verification id. */
export async function getCode(input: GetCodeInput): Promise<{ authyId: string }> {
  return v.parse(AuthyIdSchema, await http.post('auth/get-code', { json: input }).json())
}

/** `POST /auth/verify-code`: checks the code; 400 `Incorrect Confirmation Code entered`. */
export async function verifyCode(input: VerifyCodeInput): Promise<{ verified: boolean }> {
  return v.parse(VerifiedSchema, await http.post('auth/verify-code', { json: input }).json())
}

/** `POST /auth/pay`: charges the tokenised card; answers the customer id kept as `stripe_id`. */
export async function pay(input: PayInput): Promise<{ id: string }> {
  return v.parse(PaidSchema, await http.post('auth/pay', { json: input }).json())
}

/**
 * `POST /auth/local/register`: creates the practice and its Admin from the wizard's payload
 * (spec section 7); the server re-validates every field.
 */
export async function registerPractice(
  payload: Record<string, unknown>,
): Promise<v.InferOutput<typeof RegisteredSchema>> {
  return v.parse(RegisteredSchema, await http.post('auth/local/register', { json: payload }).json())
}

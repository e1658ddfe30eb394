import * as v from 'valibot'
import { SessionUserSchema } from '#domain/session.ts'

/**
 * Small answers of the API that no screen models on its own; the published contract
 * (`GET /api/openapi.json`) names them, and the API's tests hold every answer to them.
 */

/** A call that only confirms it was done: `GET /health`, `POST /auth/logout`. */
export const OkAnswerSchema = v.object({ ok: v.literal(true) })
export type OkAnswer = v.InferOutput<typeof OkAnswerSchema>

/** `PUT /patients/unsubscribe/{token}`: the patient no longer receives e-mails. */
export const UnsubscribeAnswerSchema = v.object({ email_subscription: v.literal(false) })
export type UnsubscribeAnswer = v.InferOutput<typeof UnsubscribeAnswerSchema>

/** `DELETE /upload/files/{id}`: the removed file (size in bytes). */
export const DeletedFileSchema = v.object({
  id: v.number(),
  name: v.string(),
  mime: v.string(),
  size: v.number(),
})
export type DeletedFile = v.InferOutput<typeof DeletedFileSchema>

/** `POST /payments/test-tokens`: the one-time card token of the test payment gateway. */
export const TestTokenAnswerSchema = v.object({ id: v.string() })
export type TestTokenAnswer = v.InferOutput<typeof TestTokenAnswerSchema>

/** `POST /auth/personnel/register`: the new staff user, who then signs in. */
export const RegisteredUserAnswerSchema = v.object({ user: SessionUserSchema })
export type RegisteredUserAnswer = v.InferOutput<typeof RegisteredUserAnswerSchema>

import * as v from 'valibot'
import { AUTH_MESSAGES, PASSWORD_MAX_LENGTH, RESET_PASSWORD_MIN_LENGTH } from '#domain/auth.ts'
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from '#domain/common-passwords.ts'
import { confirmationMatches } from '#domain/fields.ts'

// The new password of a reset: apart from domain/auth.ts because its check carries the list of
// common passwords (15 KB gzip), which the sign-in view must not download.

/** A new password: required, 8 to 256 characters, not one of the most common passwords. */
export const NewPasswordSchema = v.pipe(
  v.string(),
  v.nonEmpty(AUTH_MESSAGES.passwordRequired),
  v.minLength(RESET_PASSWORD_MIN_LENGTH, AUTH_MESSAGES.passwordTooShort),
  v.maxLength(
    PASSWORD_MAX_LENGTH,
    `Password should contain at most ${PASSWORD_MAX_LENGTH} characters`,
  ),
  v.check((text) => !isCommonPassword(text), COMMON_PASSWORD_MESSAGE),
)

/** The Reset Password form (minimum 8 and matching). */
export const ResetPasswordFormSchema = v.pipe(
  v.object({
    password: NewPasswordSchema,
    confirm_password: v.pipe(v.string(), v.nonEmpty(AUTH_MESSAGES.confirmPasswordRequired)),
  }),
  confirmationMatches('confirm_password', AUTH_MESSAGES.passwordsDoNotMatch),
)
export type ResetPasswordForm = v.InferOutput<typeof ResetPasswordFormSchema>

/** `POST /auth/reset-password` body: the new password twice and the code from the e-mail. */
export const ResetPasswordPayloadSchema = v.pipe(
  v.object({
    password: NewPasswordSchema,
    passwordConfirmation: v.pipe(v.string(), v.nonEmpty(AUTH_MESSAGES.confirmPasswordRequired)),
    code: v.pipe(
      v.string(),
      v.nonEmpty(AUTH_MESSAGES.resetLinkOutdated),
      v.maxLength(512, AUTH_MESSAGES.resetLinkOutdated),
    ),
  }),
  confirmationMatches('passwordConfirmation', AUTH_MESSAGES.passwordsDoNotMatch),
)
export type ResetPasswordPayload = v.InferOutput<typeof ResetPasswordPayloadSchema>

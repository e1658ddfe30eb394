import * as v from 'valibot'

/**
 * Every text the sign-in screen and the auth endpoints show. The spec fixes most of them (sections
 * 2, 5 and 8); the ones marked "ours" fill places where the spec gives no wording.
 */
export const AUTH_MESSAGES = {
  /** Ours: the spec says "email required" without a text; worded like the password message. */
  emailRequired: 'Please fill email field',
  /** Ours for the pattern rule; the same text the spec uses for a failed forgot-password call. */
  emailInvalid: 'Please enter a valid email',
  passwordRequired: 'Please fill password field',
  /** Ours: the spec gives the rule (reset form: minimum 8) but no text. */
  passwordTooShort: 'Password should contain minimum 8 characters',
  /** Ours: the spec's confirm-password hint, used as the "required" message. */
  confirmPasswordRequired: 'Please retype your password',
  /**
   * Ours: the spec says "confirm must match" without a text. Every form says it the same way:
   * the sign-up wizard and the personnel registration use this text too.
   */
  passwordsDoNotMatch: 'Passwords should match',
  captchaRequired: 'This field is required.',
  invalidCredentials: 'Invalid Email or Password',
  resetLinkOutdated: 'Password Reset link is outdated!',
  forgotPasswordSent: 'We have sent the link to your email',
  forgotPasswordSuccess: 'Cool! Password recovery instruction has been sent to your email.',
  forgotPasswordFailure: 'Please enter a valid email',
  personnelSignedUp:
    'You are successfully Signed Up! Use your new credentials to sign into the system.',
  /** Ours: the 429 answer of the rate-limited auth calls. */
  tooManyAttempts: 'Too many attempts. Please wait a few minutes and try again.',
  /** Ours: a captcha token the verifier rejected. */
  captchaInvalid: 'The human check failed. Please try again.',
} as const

/** Longest e-mail address a mailbox can have (RFC 5321). */
export const EMAIL_MAX_LENGTH = 254
/** Passwords longer than this are refused before hashing, so nobody can make the server hash megabytes. */
export const PASSWORD_MAX_LENGTH = 256
/** Minimum length of a new password on the reset form. */
export const RESET_PASSWORD_MIN_LENGTH = 8

const EmailSchema = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty(AUTH_MESSAGES.emailRequired),
  v.maxLength(EMAIL_MAX_LENGTH, AUTH_MESSAGES.emailInvalid),
  v.email(AUTH_MESSAGES.emailInvalid),
)

const RequiredPasswordSchema = v.pipe(
  v.string(),
  v.nonEmpty(AUTH_MESSAGES.passwordRequired),
  v.maxLength(PASSWORD_MAX_LENGTH, AUTH_MESSAGES.invalidCredentials),
)

/** The Sign In form: e-mail required and well-formed, password required. */
export const SignInFormSchema = v.object({
  email: EmailSchema,
  password: RequiredPasswordSchema,
  remember: v.boolean(),
})
export type SignInForm = v.InferOutput<typeof SignInFormSchema>

/** The Forgot Password form: one well-formed e-mail. */
export const ForgotPasswordFormSchema = v.object({
  email: EmailSchema,
})
export type ForgotPasswordForm = v.InferOutput<typeof ForgotPasswordFormSchema>

/**
 * `POST /auth/local` body. The identifier is the e-mail, compared case-insensitively, so it is
 * trimmed and lower-cased here for client and server alike. `remember` picks the token lifetime.
 */
export const SignInPayloadSchema = v.object({
  identifier: v.pipe(EmailSchema, v.toLowerCase()),
  password: RequiredPasswordSchema,
  remember: v.optional(v.boolean()),
  recaptchaToken: v.optional(v.pipe(v.string(), v.maxLength(8192))),
})
export type SignInPayload = v.InferOutput<typeof SignInPayloadSchema>

/** `POST /auth/forgot-password` body: the e-mail and the reset page the link should open. */
export const ForgotPasswordPayloadSchema = v.object({
  email: v.pipe(EmailSchema, v.toLowerCase()),
  url: v.pipe(v.string(), v.maxLength(2048), v.url('Please send the address of the reset page')),
})
export type ForgotPasswordPayload = v.InferOutput<typeof ForgotPasswordPayloadSchema>

/** `POST /auth/forgot-password` answer: the same for every well-formed e-mail. */
export const ForgotPasswordAnswerSchema = v.object({ ok: v.literal(true) })
export type ForgotPasswordAnswer = v.InferOutput<typeof ForgotPasswordAnswerSchema>

/** `POST /auth/reset-code-status` body: the code of a reset link, asked about before the form. */
export const ResetCodeStatusPayloadSchema = v.object({
  code: v.pipe(v.string(), v.maxLength(512, AUTH_MESSAGES.resetLinkOutdated)),
})
export type ResetCodeStatusPayload = v.InferOutput<typeof ResetCodeStatusPayloadSchema>

/** `POST /auth/reset-code-status` answer: whether the link can still set a password, nothing more. */
export const ResetCodeStatusAnswerSchema = v.object({ valid: v.boolean() })
export type ResetCodeStatusAnswer = v.InferOutput<typeof ResetCodeStatusAnswerSchema>

/** `GET /users-permissions/init` answer: whether the signed-in user's practice has an admin. */
export const InitPermissionsAnswerSchema = v.object({ hasAdmin: v.boolean() })
export type InitPermissionsAnswer = v.InferOutput<typeof InitPermissionsAnswerSchema>

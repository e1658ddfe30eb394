import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  AUTH_MESSAGES,
  ForgotPasswordFormSchema,
  ForgotPasswordPayloadSchema,
  InitPermissionsAnswerSchema,
  SignInFormSchema,
  SignInPayloadSchema,
} from '#domain/auth.ts'
import { ResetPasswordFormSchema, ResetPasswordPayloadSchema } from '#domain/reset-password.ts'

/**
 * The message shown for each field, keyed by the dotted field path: the first issue of a path,
 * which is the one Mantine's schemaResolver shows and the server answers with.
 */
function issuesOf(schema: v.GenericSchema, input: unknown): Record<string, string> {
  const result = v.safeParse(schema, input)
  if (result.success) return {}
  const byPath: Record<string, string> = {}
  for (const issue of result.issues) {
    const key = v.getDotPath(issue) ?? ''
    byPath[key] ??= issue.message
  }
  return byPath
}

describe('SignInFormSchema', () => {
  const valid = { email: 'demo@example.com', password: 'DemoPass123', remember: false }

  it('accepts a well-formed e-mail and any non-empty password', () => {
    expect(v.parse(SignInFormSchema, valid)).toEqual(valid)
  })

  it('asks for the e-mail when it is empty or blank', () => {
    expect(issuesOf(SignInFormSchema, { ...valid, email: '' }).email).toBe(
      'Please fill email field',
    )
    expect(issuesOf(SignInFormSchema, { ...valid, email: '   ' }).email).toBe(
      'Please fill email field',
    )
  })

  it('rejects an e-mail without the pattern', () => {
    expect(issuesOf(SignInFormSchema, { ...valid, email: 'demo@' }).email).toBe(
      'Please enter a valid email',
    )
  })

  it("asks for the password with the spec's text", () => {
    expect(issuesOf(SignInFormSchema, { ...valid, password: '' }).password).toBe(
      'Please fill password field',
    )
  })
})

describe('ForgotPasswordFormSchema', () => {
  it('requires a well-formed e-mail', () => {
    expect(issuesOf(ForgotPasswordFormSchema, { email: '' }).email).toBe(
      AUTH_MESSAGES.emailRequired,
    )
    expect(issuesOf(ForgotPasswordFormSchema, { email: 'not-an-email' }).email).toBe(
      'Please enter a valid email',
    )
    expect(v.parse(ForgotPasswordFormSchema, { email: 'a@b.co' })).toEqual({ email: 'a@b.co' })
  })
})

describe('ResetPasswordFormSchema', () => {
  it('accepts two equal passwords of at least 8 characters', () => {
    const input = { password: 'abcdefgh', confirm_password: 'abcdefgh' }
    expect(v.parse(ResetPasswordFormSchema, input)).toEqual(input)
  })

  it('requires the password and at least 8 characters', () => {
    expect(issuesOf(ResetPasswordFormSchema, { password: '', confirm_password: '' }).password).toBe(
      'Please fill password field',
    )
    expect(
      issuesOf(ResetPasswordFormSchema, { password: 'short', confirm_password: 'short' }).password,
    ).toBe('Password should contain minimum 8 characters')
  })

  it('requires the confirmation', () => {
    expect(
      issuesOf(ResetPasswordFormSchema, { password: 'abcdefgh', confirm_password: '' })
        .confirm_password,
    ).toBe('Please retype your password')
  })

  it('reports a mismatch on the confirm field', () => {
    expect(
      issuesOf(ResetPasswordFormSchema, { password: 'abcdefgh', confirm_password: 'abcdefgx' }),
    ).toEqual({ confirm_password: 'Passwords should match' })
  })
})

describe('SignInPayloadSchema', () => {
  it('trims and lower-cases the identifier and keeps the optional fields', () => {
    expect(
      v.parse(SignInPayloadSchema, {
        identifier: ' Demo@Example.COM ',
        password: 'x',
        remember: true,
        recaptchaToken: 'tok',
      }),
    ).toEqual({
      identifier: 'demo@example.com',
      password: 'x',
      remember: true,
      recaptchaToken: 'tok',
    })
  })

  it('answers missing fields with the form texts', () => {
    expect(issuesOf(SignInPayloadSchema, { identifier: '', password: '' })).toEqual({
      identifier: 'Please fill email field',
      password: 'Please fill password field',
    })
  })

  it('refuses an oversized password before anything hashes it', () => {
    expect(
      issuesOf(SignInPayloadSchema, { identifier: 'a@b.co', password: 'x'.repeat(300) }).password,
    ).toBe('Invalid Email or Password')
  })
})

describe('ForgotPasswordPayloadSchema', () => {
  it('needs an e-mail and an absolute url', () => {
    expect(
      v.parse(ForgotPasswordPayloadSchema, { email: 'A@B.co', url: 'http://localhost:3000/reset' }),
    ).toEqual({ email: 'a@b.co', url: 'http://localhost:3000/reset' })
    expect(issuesOf(ForgotPasswordPayloadSchema, { email: 'nope', url: 'x' })).toEqual({
      email: 'Please enter a valid email',
      url: 'Please send the address of the reset page',
    })
  })
})

describe('ResetPasswordPayloadSchema', () => {
  const valid = { password: 'NewPass123', passwordConfirmation: 'NewPass123', code: 'abc' }

  it('accepts matching passwords and a code', () => {
    expect(v.parse(ResetPasswordPayloadSchema, valid)).toEqual(valid)
  })

  it('treats a missing code as an outdated link', () => {
    expect(issuesOf(ResetPasswordPayloadSchema, { ...valid, code: '' }).code).toBe(
      'Password Reset link is outdated!',
    )
  })

  it('reports a short password and a mismatch', () => {
    expect(issuesOf(ResetPasswordPayloadSchema, { ...valid, password: 'short' }).password).toBe(
      'Password should contain minimum 8 characters',
    )
    expect(
      issuesOf(ResetPasswordPayloadSchema, { ...valid, passwordConfirmation: 'Other1234' }),
    ).toEqual({ passwordConfirmation: 'Passwords should match' })
  })
})

describe('InitPermissionsAnswerSchema', () => {
  it('reads hasAdmin', () => {
    expect(v.parse(InitPermissionsAnswerSchema, { hasAdmin: true })).toEqual({ hasAdmin: true })
  })
})

describe('AUTH_MESSAGES', () => {
  it("carries the spec's texts verbatim", () => {
    expect(AUTH_MESSAGES).toMatchObject({
      captchaRequired: 'This field is required.',
      invalidCredentials: 'Invalid Email or Password',
      resetLinkOutdated: 'Password Reset link is outdated!',
      forgotPasswordSent: 'We have sent the link to your email',
      forgotPasswordSuccess: 'Cool! Password recovery instruction has been sent to your email.',
      forgotPasswordFailure: 'Please enter a valid email',
      personnelSignedUp:
        'You are successfully Signed Up! Use your new credentials to sign into the system.',
    })
  })
})

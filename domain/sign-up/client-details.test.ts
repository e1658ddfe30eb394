import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { ClientDetailsSchema, withoutPasswords } from '#domain/sign-up/client-details.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'

const valid = createSignUpSampleValues(1).clientDetails

/** Field path → first message, the way the form shows errors. */
function errors(value: unknown): Record<string, string> {
  const result = v.safeParse(ClientDetailsSchema, value)
  const out: Record<string, string> = {}
  if (result.success) return out
  for (const issue of result.issues) {
    const path = v.getDotPath(issue) ?? ''
    out[path] ??= issue.message
  }
  return out
}

describe('ClientDetailsSchema (step 1)', () => {
  it('accepts the fixture', () => {
    expect(errors(valid)).toEqual({})
  })

  it('reports every empty field with its message', () => {
    expect(
      errors({
        title: '',
        name: '',
        last_name: '',
        country_code: '+1',
        phone: '',
        email: '',
        password: '',
        password_confirm: '',
        position: '',
      }),
    ).toEqual({
      name: 'Please fill first name field',
      last_name: 'Please fill last name field',
      phone: 'Please fill phone number field',
      email: 'Please fill email field',
      password: 'Please fill password field',
      password_confirm: 'Please fill confirm password field',
      position: 'Please fill position field',
    })
  })

  it('uses the wizard wording for a weak password and checks the confirmation', () => {
    expect(errors({ ...valid, password: 'weakpass', password_confirm: 'weakpass' })).toEqual({
      password:
        'At least 8 characters in length, lowercase letters, uppercase letters, numbers and special characters.',
    })
    expect(errors({ ...valid, password_confirm: 'Other!Pass123' })).toEqual({
      password_confirm: 'Passwords should match',
    })
  })

  it('accepts a plus sign in the phone', () => {
    expect(errors({ ...valid, phone: '+5551234567' })).toEqual({})
    expect(errors({ ...valid, phone: '555-123-4567' })).toEqual({
      phone: 'Phone number should contain only numbers',
    })
  })

  it('drops the passwords for storage', () => {
    const safe = withoutPasswords(v.parse(ClientDetailsSchema, valid))
    expect(safe).not.toHaveProperty('password')
    expect(safe).not.toHaveProperty('password_confirm')
    expect(safe.email).toBe(valid.email)
  })
})

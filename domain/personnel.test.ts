import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  InvitePersonnelInputSchema,
  invitationStatus,
  PersonnelRegisterPayloadSchema,
  RegistrationDetailsSchema,
  RegistrationFormSchema,
  registrationFormValues,
  toRegisterPayload,
} from '#domain/personnel.ts'

const filled = {
  title: 'Dr.',
  firstName: 'Jordan',
  lastName: 'Lee',
  countryCode: '+1',
  phoneNumber: '5551234567',
  password: 'Secret123',
  password_confirm: 'Secret123',
  confirmCode: '123456',
}

/** The messages of a failed parse, keyed by field. */
function messages(schema: v.GenericSchema, value: unknown): Record<string, string> {
  const result = v.safeParse(schema, value)
  if (result.success) return {}
  const out: Record<string, string> = {}
  for (const issue of result.issues) {
    const key = v.getDotPath(issue) ?? ''
    out[key] ??= issue.message
  }
  return out
}

describe('registration form', () => {
  it('accepts a filled form', () => {
    expect(v.is(RegistrationFormSchema, filled)).toBe(true)
  })

  it('speaks the spec texts for each field', () => {
    expect(
      messages(RegistrationFormSchema, {
        ...filled,
        firstName: '',
        lastName: 'L',
        phoneNumber: '555-123',
        password: 'weak',
        password_confirm: '',
        confirmCode: '123',
      }),
    ).toEqual({
      firstName: 'Please fill first name field',
      lastName: 'Last name should contain minimum 2 characters',
      phoneNumber: 'Phone number should contain only numbers',
      password: 'At least 8 characters in length, lowercase letters, uppercase letters, numbers.',
      password_confirm: 'Please fill confirm password field',
      confirmCode: 'Confirmation code should contain minimum 6 characters',
    })
  })

  it('applies the personnel phone rules: 7 or 10 digits, and 8 to 21 characters', () => {
    expect(messages(RegistrationDetailsSchema, { ...filled, phoneNumber: '55512' })).toEqual({
      phoneNumber: 'Phone number should contain only 7 or 10 digits',
    })
    expect(messages(RegistrationDetailsSchema, { ...filled, phoneNumber: '5551234' })).toEqual({
      phoneNumber: 'Phone number should contain 8 to 21 characters',
    })
  })

  it('says "Passwords should match" on the confirm field', () => {
    expect(
      messages(RegistrationDetailsSchema, { ...filled, password_confirm: 'Secret124' }),
    ).toEqual({ password_confirm: 'Passwords should match' })
  })

  it('pre-fills the names and title from the invitation', () => {
    expect(
      registrationFormValues({ first_name: 'Jordan', last_name: 'Lee', title: null }),
    ).toMatchObject({ title: '', firstName: 'Jordan', lastName: 'Lee', countryCode: '+1' })
  })
})

describe('register payload', () => {
  it('is built from the form and passes the server schema', () => {
    const details = v.parse(RegistrationDetailsSchema, filled)
    const payload = toRegisterPayload(details, {
      invitationId: 'inv-1',
      email: 'jordan.lee@example.com',
      position: 'Provider',
      authyId: 'authy-1',
    })
    expect(payload).toMatchObject({
      id: 'inv-1',
      first_name: 'Jordan',
      last_name: 'Lee',
      cell_phone: '5551234567',
      email: 'jordan.lee@example.com',
      position: 'Provider',
      authyId: 'authy-1',
      username: 'jordan.lee@example.com',
    })
    expect(v.is(PersonnelRegisterPayloadSchema, payload)).toBe(true)
  })

  it('refuses a payload without a verification id or with different passwords', () => {
    const details = v.parse(RegistrationDetailsSchema, filled)
    const payload = toRegisterPayload(details, {
      invitationId: 'inv-1',
      email: 'a@b.co',
      position: 'Staff',
      authyId: '',
    })
    expect(messages(PersonnelRegisterPayloadSchema, payload)).toEqual({
      authyId: 'Please verify your phone number first',
    })
    expect(
      messages(PersonnelRegisterPayloadSchema, {
        ...payload,
        authyId: 'a',
        password_confirm: 'Other1234',
      }),
    ).toEqual({ password_confirm: 'Passwords should match' })
  })
})

describe('invitations', () => {
  it('needs an e-mail, names and a position of the offered ones', () => {
    expect(
      messages(InvitePersonnelInputSchema, {
        email: 'nope',
        first_name: 'J',
        last_name: '',
        position: 'Boss',
      }),
    ).toEqual({
      email: 'Please enter a valid email',
      first_name: 'First name should contain minimum 2 characters',
      last_name: 'Please fill last name field',
      position: 'Please fill position field',
    })
    expect(
      v.parse(InvitePersonnelInputSchema, {
        email: 'a@b.co',
        first_name: 'Al',
        last_name: 'Bo',
        position: 'Staff',
      }).title,
    ).toBeNull()
  })

  it('reads expired once a pending invitation is past its expiry', () => {
    const expires = new Date('2026-06-15T00:00:00Z')
    expect(invitationStatus('pending', expires, new Date('2026-06-14T23:59:59Z'))).toBe('pending')
    expect(invitationStatus('pending', expires, expires)).toBe('expired')
    expect(invitationStatus('used', expires, new Date('2027-01-01'))).toBe('used')
    expect(invitationStatus('revoked', expires, new Date('2027-01-01'))).toBe('revoked')
  })
})

import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  ConfirmCodeSchema,
  EmailSchema,
  FIELD_MESSAGES,
  FirstNameSchema,
  firstIssue,
  isConfirmCodeValid,
  isStrongPassword,
  LastNameSchema,
  PasswordConfirmSchema,
  PasswordSchema,
  PersonnelPhoneSchema,
  PhoneSchema,
  PositionSchema,
  TitleSchema,
  WizardPasswordSchema,
  WizardPhoneSchema,
} from '#domain/fields.ts'

describe('first and last name', () => {
  it.each([
    ['', 'Please fill first name field'],
    ['   ', 'Please fill first name field'],
    ['A', 'First name should contain minimum 2 characters'],
    ['Al1', "First name should contain only letters, -, ` and '"],
    ['Mary Ann', "First name should contain only letters, -, ` and '"],
    ['Ann_Marie', "First name should contain only letters, -, ` and '"],
  ])('first name %j → %s', (value, message) => {
    expect(firstIssue(FirstNameSchema, value)).toBe(message)
  })

  it.each([
    ['', 'Please fill last name field'],
    ['B', 'Last name should contain minimum 2 characters'],
    ['Smith2', "Last name should contain only letters, -, ` and '"],
  ])('last name %j → %s', (value, message) => {
    expect(firstIssue(LastNameSchema, value)).toBe(message)
  })

  it.each(['Al', "O'Brien", 'Smith-Jones', 'D`Arcy', 'José', 'Zoë'])('accepts %j', (value) => {
    expect(firstIssue(FirstNameSchema, value)).toBeNull()
    expect(firstIssue(LastNameSchema, value)).toBeNull()
  })

  it('answers a missing value with the required message', () => {
    expect(firstIssue(FirstNameSchema, undefined)).toBe(FIELD_MESSAGES.firstName.required)
  })
})

describe('phone', () => {
  it.each([
    ['', 'Please fill phone number field'],
    ['555-1234', 'Phone number should contain only numbers'],
    ['555 123 4567', 'Phone number should contain only numbers'],
    ['12345678', 'Phone number should contain only 7 or 10 digits'],
    ['123456', 'Phone number should contain only 7 or 10 digits'],
  ])('wizard phone %j → %s', (value, message) => {
    expect(firstIssue(WizardPhoneSchema, value)).toBe(message)
  })

  it.each(['5551234', '5551234567', '+5551234567', '+5551234'])('wizard accepts %j', (value) => {
    expect(firstIssue(WizardPhoneSchema, value)).toBeNull()
  })

  it('refuses a plus sign outside the wizard and one not in front', () => {
    expect(firstIssue(PhoneSchema, '+5551234567')).toBe('Phone number should contain only numbers')
    expect(firstIssue(WizardPhoneSchema, '555+1234567')).toBe(
      'Phone number should contain only numbers',
    )
  })

  it('accepts exactly 7 or 10 digits (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,15}$/), (digits) => {
        const ok = digits.length === 7 || digits.length === 10
        expect(v.is(PhoneSchema, digits)).toBe(ok)
        expect(v.is(WizardPhoneSchema, digits)).toBe(ok)
        expect(v.is(WizardPhoneSchema, `+${digits}`)).toBe(ok)
      }),
    )
  })

  it('personnel phone adds the 8 to 21 characters rule', () => {
    expect(firstIssue(PersonnelPhoneSchema, '5551234')).toBe(
      'Phone number should contain 8 to 21 characters',
    )
    expect(firstIssue(PersonnelPhoneSchema, '5551234567')).toBeNull()
    expect(firstIssue(PersonnelPhoneSchema, '')).toBe('Please fill phone number field')
  })
})

describe('email', () => {
  it.each([
    ['', 'Please fill email field'],
    ['jane', 'Please enter a valid email'],
    ['jane@', 'Please enter a valid email'],
    ['jane@clinic', 'Please enter a valid email'],
  ])('%j → %s', (value, message) => {
    expect(firstIssue(EmailSchema, value)).toBe(message)
  })

  it('accepts a well-formed address', () => {
    expect(firstIssue(EmailSchema, 'jane.doe+glow@clinic.example.com')).toBeNull()
  })
})

describe('password', () => {
  const wizard =
    'At least 8 characters in length, lowercase letters, uppercase letters, numbers and special characters.'
  const base = 'At least 8 characters in length, lowercase letters, uppercase letters, numbers.'

  it.each([
    ['', 'Please fill password field'],
    ['Short1A', wizard],
    ['alllower123', wizard],
    ['ALLUPPER123', wizard],
    ['NoDigitsHere', wizard],
    ['Has Space1', wizard],
  ])('wizard %j → %s', (value, message) => {
    expect(firstIssue(WizardPasswordSchema, value)).toBe(message)
  })

  it('uses the base wording outside the wizard', () => {
    expect(firstIssue(PasswordSchema, 'weak')).toBe(base)
    expect(firstIssue(PasswordSchema, '')).toBe('Please fill password field')
  })

  it.each(['Glow2Rewards', 'Sup3r$ecret!', 'DemoPass123'])('accepts %j', (value) => {
    expect(firstIssue(WizardPasswordSchema, value)).toBeNull()
    expect(firstIssue(PasswordSchema, value)).toBeNull()
  })

  it('strength needs a digit, both cases, no whitespace and 8 characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        const expected =
          text.length >= 8 &&
          /\d/.test(text) &&
          /[a-z]/.test(text) &&
          /[A-Z]/.test(text) &&
          !/\s/.test(text)
        expect(isStrongPassword(text)).toBe(expected)
      }),
    )
  })

  it('confirm password is required', () => {
    expect(firstIssue(PasswordConfirmSchema, '')).toBe('Please fill confirm password field')
    expect(firstIssue(PasswordConfirmSchema, 'x')).toBeNull()
  })
})

describe('position, code and title', () => {
  it('position is Staff or Provider', () => {
    expect(firstIssue(PositionSchema, '')).toBe('Please fill position field')
    expect(firstIssue(PositionSchema, 'Janitor')).toBe('Please fill position field')
    expect(firstIssue(PositionSchema, 'Staff')).toBeNull()
    expect(firstIssue(PositionSchema, 'Provider')).toBeNull()
  })

  it.each([
    ['', 'Please fill confirmation code field'],
    ['12345', 'Confirmation code should contain minimum 6 characters'],
  ])('code %j → %s', (value, message) => {
    expect(firstIssue(ConfirmCodeSchema, value)).toBe(message)
    expect(isConfirmCodeValid(value)).toBe(false)
  })

  it('accepts a code of 6 or more characters', () => {
    expect(isConfirmCodeValid('123456')).toBe(true)
    expect(isConfirmCodeValid('1234567')).toBe(true)
  })

  it('title is optional', () => {
    expect(v.parse(TitleSchema, undefined)).toBe('')
    expect(v.parse(TitleSchema, 'Dr.')).toBe('Dr.')
  })
})

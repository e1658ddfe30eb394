import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  FirstNameSchema,
  FREE_TEXT_MAX_LENGTH,
  LastNameSchema,
  NAME_MAX_LENGTH,
  TEXT_MESSAGES,
} from '#domain/fields.ts'
import { InvitePersonnelInputSchema } from '#domain/personnel.ts'
import { PatientInputSchema } from '#domain/practice-data.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'

/** Every free-text field has a length limit; names hide nothing. */

// Right-to-left override, left-to-right isolate, zero-width space and joiner, byte-order mark.
const HIDDEN = ['\u202e', '\u2066', '\u200b', '\u200d', '\ufeff']

const issuesAt = (schema: v.GenericSchema, value: unknown) => {
  const result = v.safeParse(schema, value)
  return result.success
    ? []
    : result.issues.map((issue) => ({
        path: v.getDotPath(issue),
        message: issue.message,
      }))
}

describe('free-text fields', () => {
  const fixtures = createSignUpSampleValues(42)
  const practice = fixtures.practiceDetails
  const nextech = {
    ...practice,
    e_record: 'nextech' as const,
    nextech: { client_id: 'c-1', username: 'nx-user', password: 'Secret-1', nx_practice_id: '77' },
  }

  it('starts from values that pass', () => {
    expect(issuesAt(PracticeDetailsSchema, practice)).toEqual([])
    expect(issuesAt(PracticeDetailsSchema, nextech)).toEqual([])
    expect(issuesAt(BillingInformationSchema, fixtures.billingInformation)).toEqual([])
  })

  it('limits the practice name, office, address, city, state and the Nextech ids', () => {
    const long = 'a'.repeat(FREE_TEXT_MAX_LENGTH + 1)
    const tooLong = TEXT_MESSAGES.tooLong(FREE_TEXT_MAX_LENGTH)
    for (const field of [
      'practice_name',
      'office_name',
      'practice_address',
      'practice_address_2',
      'city',
      'state',
    ]) {
      expect(issuesAt(PracticeDetailsSchema, { ...practice, [field]: long }), field).toContainEqual(
        { path: field, message: tooLong },
      )
    }
    for (const field of ['client_id', 'username', 'password', 'nx_practice_id']) {
      const value = { ...nextech, nextech: { ...nextech.nextech, [field]: long } }
      expect(issuesAt(PracticeDetailsSchema, value), field).toContainEqual({
        path: `nextech.${field}`,
        message: tooLong,
      })
    }
    for (const field of ['billing_address_1', 'billing_address_2', 'billing_city']) {
      const value = { ...fixtures.billingInformation, [field]: long }
      expect(issuesAt(BillingInformationSchema, value), field).toContainEqual({
        path: field,
        message: tooLong,
      })
    }
  })

  it('limits names to 100 characters', () => {
    const long = 'a'.repeat(NAME_MAX_LENGTH + 1)
    expect(issuesAt(FirstNameSchema, long)).toEqual([
      { path: null, message: TEXT_MESSAGES.tooLong(NAME_MAX_LENGTH) },
    ])
    expect(issuesAt(LastNameSchema, 'a'.repeat(NAME_MAX_LENGTH))).toEqual([])
    expect(issuesAt(PatientInputSchema, { first_name: long, last_name: 'Doe' })).toEqual([
      { path: 'first_name', message: TEXT_MESSAGES.tooLong(NAME_MAX_LENGTH) },
    ])
  })

  it('refuses bidi controls and zero-width characters in every name', () => {
    for (const hidden of HIDDEN) {
      const name = `Jo${hidden}hn`
      expect(v.is(FirstNameSchema, name), JSON.stringify(hidden)).toBe(false)
      expect(
        v.is(InvitePersonnelInputSchema, {
          email: 'a@b.co',
          first_name: 'Ann',
          last_name: name,
          position: 'Staff',
        }),
      ).toBe(false)
      expect(issuesAt(PatientInputSchema, { first_name: name, last_name: 'Doe' })).toEqual([
        { path: 'first_name', message: TEXT_MESSAGES.invisible },
      ])
      expect(issuesAt(PracticeDetailsSchema, { ...practice, practice_name: name })).toEqual([
        { path: 'practice_name', message: TEXT_MESSAGES.invisible },
      ])
      expect(issuesAt(PracticeDetailsSchema, { ...practice, office_name: name })).toEqual([
        { path: 'office_name', message: TEXT_MESSAGES.invisible },
      ])
    }
    // Letters of any script stay welcome.
    expect(v.is(FirstNameSchema, 'Zoë')).toBe(true)
    expect(v.is(LastNameSchema, 'نور')).toBe(true)
    expect(issuesAt(PatientInputSchema, { first_name: 'Łucja', last_name: "O'Brien" })).toEqual([])
  })
})

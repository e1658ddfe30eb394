import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  CANADA_ZIP_PATTERN,
  forcesEhr,
  isValidPracticeUrl,
  isValidZip,
  PracticeDetailsSchema,
  US_ZIP_PATTERN,
  withoutNextechPassword,
} from '#domain/sign-up/practice-details.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'

const valid = createSignUpSampleValues(2).practiceDetails

function errors(value: unknown): Record<string, string> {
  const result = v.safeParse(PracticeDetailsSchema, value)
  const out: Record<string, string> = {}
  if (result.success) return out
  for (const issue of result.issues) out[v.getDotPath(issue) ?? ''] ??= issue.message
  return out
}

const nextech = { client_id: 'C1', username: 'nx-user', password: 'secret', nx_practice_id: 'P9' }

describe('PracticeDetailsSchema (step 2)', () => {
  it('accepts the fixture and outputs nextech: null without Nextech', () => {
    expect(errors(valid)).toEqual({})
    expect(v.parse(PracticeDetailsSchema, { ...valid, nextech }).nextech).toBeNull()
  })

  it('reports every empty required field with its message', () => {
    expect(
      errors({
        practice_name: '',
        office_name: '',
        url: '',
        practice_phone: '',
        practice_email: '',
        practice_address: '',
        practice_address_2: '',
        city: '',
        practice_zip: '',
        state: '',
        country: 'US',
        e_record: '',
      }),
    ).toEqual({
      practice_name: 'Please fill practice name field',
      url: 'Please fill URL field',
      practice_phone: 'Please fill practice phone field',
      practice_email: 'Please fill practice email field',
      practice_address: 'Please fill address field',
      city: 'Please fill city field',
      practice_zip: 'Please fill zip code field',
      state: 'Please fill state field',
      e_record: 'Please fill health record field',
    })
  })

  it.each([
    ['practice_name', 'A', 'Practice name should contain minimum 2 characters'],
    ['url', 'not a url', 'Please enter a valid URL'],
    ['url', 'clinic', 'Please enter a valid URL'],
    ['practice_phone', '555-1234', 'Phone number should contain only numbers'],
    ['practice_email', 'clinic@', 'Please enter a valid email'],
    ['practice_address', '1 A', 'Address should contain minimum 4 characters'],
    ['practice_address_2', 'B2', 'Address 2 should contain minimum 4 characters'],
    ['city', 'NY', 'City should contain minimum 3 characters'],
    ['practice_zip', '1234', 'Incorrect zip code entered!'],
    ['state', 'ON', 'Please choose a state or province from the list'],
  ])('%s %j → %s', (field, value, message) => {
    expect(errors({ ...valid, [field]: value })).toEqual({ [field]: message })
  })

  it('takes address line 2 only when given', () => {
    expect(errors({ ...valid, practice_address_2: '' })).toEqual({})
    expect(errors({ ...valid, practice_address_2: 'Suite 200' })).toEqual({})
  })

  it('accepts web addresses of a domain', () => {
    for (const url of [
      'clinic.com',
      'www.clinic.co.uk',
      'https://clinic.com/spa?x=1',
      'http://a-b.io:8080',
    ])
      expect(isValidPracticeUrl(url)).toBe(true)
    for (const url of ['clinic', 'http://', 'clinic .com', 'ftp://clinic.com'])
      expect(isValidPracticeUrl(url)).toBe(false)
  })

  it('requires a zip of the chosen country', () => {
    expect(errors({ ...valid, country: 'CA', state: 'ON', practice_zip: 'K1A 0B1' })).toEqual({})
    expect(errors({ ...valid, country: 'CA', state: 'ON', practice_zip: '62701' })).toEqual({
      practice_zip: 'Incorrect zip code entered!',
    })
    expect(errors({ ...valid, country: 'US', practice_zip: 'K1A0B1' })).toEqual({
      practice_zip: 'Incorrect zip code entered!',
    })
  })

  it('defaults the country to the US', () => {
    const { country: _country, ...withoutCountry } = valid
    expect(v.parse(PracticeDetailsSchema, withoutCountry).country).toBe('US')
  })

  it('requires the four Nextech fields when Nextech is chosen', () => {
    expect(errors({ ...valid, e_record: 'nextech', nextech: null })).toEqual({
      'nextech.client_id': 'Please fill Client ID field',
      'nextech.username': 'Please fill Username field',
      'nextech.password': 'Please fill Password field',
      'nextech.nx_practice_id': 'Please fill NX Practice ID field',
    })
    expect(
      errors({ ...valid, e_record: 'nextech', nextech: { ...nextech, client_id: ' ' } }),
    ).toEqual({ 'nextech.client_id': 'Please fill Client ID field' })
    const parsed = v.parse(PracticeDetailsSchema, { ...valid, e_record: 'nextech', nextech })
    expect(parsed.nextech).toEqual(nextech)
    expect(forcesEhr(parsed)).toBe(true)
    expect(forcesEhr(valid)).toBe(false)
    expect(withoutNextechPassword(parsed).nextech?.password).toBe('')
  })
})

describe('zip codes (property)', () => {
  const digit = fc.constantFrom(...'0123456789')
  const letter = fc.constantFrom(...'ABCEGHJKLMNPRSTVXY', ...'abceghjklmnprstvxy')
  const digits = (n: number) =>
    fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''))

  it('accepts US 5 digits and 5+4 with a hyphen', () => {
    fc.assert(
      fc.property(digits(5), fc.option(digits(4)), (five, four) => {
        const zip = four === null ? five : `${five}-${four}`
        expect(isValidZip(zip)).toBe(true)
        expect(isValidZip(zip, 'US')).toBe(true)
        expect(isValidZip(zip, 'CA')).toBe(false)
      }),
    )
  })

  it('accepts Canadian A1A 1A1 with an optional space or hyphen', () => {
    fc.assert(
      fc.property(
        fc.tuple(letter, digit, letter, fc.constantFrom('', ' ', '-'), digit, letter, digit),
        (parts) => {
          const zip = parts.join('')
          expect(isValidZip(zip)).toBe(true)
          expect(isValidZip(zip, 'CA')).toBe(true)
          expect(isValidZip(zip, 'US')).toBe(false)
        },
      ),
    )
  })

  it('refuses anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const expected = US_ZIP_PATTERN.test(text) || CANADA_ZIP_PATTERN.test(text)
        expect(isValidZip(text)).toBe(expected)
      }),
    )
    for (const zip of ['1234', '123456', '12345-678', '12345 6789', 'K1A  0B1', '1A1 A1A'])
      expect(isValidZip(zip)).toBe(false)
  })
})

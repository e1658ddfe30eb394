import Papa from 'papaparse'
import { describe, expect, it } from 'vitest'
import {
  checkImportRow,
  duplicatesWithin,
  guessMapping,
  IMPORT_MESSAGES,
  mappingProblems,
  mapRecord,
  rejectedRowsCsv,
} from '#domain/patient-import.ts'
import { PATIENT_PHONE_MESSAGE } from '#domain/practice-data.ts'

describe('the patient import rules', () => {
  it('guesses the mapping from the header, each column once', () => {
    expect(
      guessMapping([
        'Given name',
        'Surname',
        'E-mail',
        'Mobile',
        'Date of birth',
        'Email consent',
        'SMS opt-in',
        'Notes',
        'Patient since',
      ]),
    ).toEqual({
      first_name: 0,
      last_name: 1,
      email: 2,
      phone: 3,
      birth_date: 4,
      email_subscription: 5,
      sms_subscription: 6,
      joined_on: 8,
    })
    const partial = guessMapping(['first_name', 'Notes'])
    expect(partial).toMatchObject({ first_name: 0, last_name: null, email: null })
    expect(mappingProblems(partial)).toEqual({
      last_name: 'Please choose the column that holds the last name.',
    })
    expect(mappingProblems({ ...partial, last_name: 0 })).toEqual({
      last_name: 'Each column can fill one field only.',
    })
  })

  it('checks a row with the rules of Add patient and says what to fix in a sentence', () => {
    const row = mapRecord(
      ['Ana', 'Lopez', 'ana@example.com', '(555) 010-1001', '1990-01-31', 'Yes', 'no'],
      guessMapping(['First', 'Last', 'Email', 'Phone', 'DOB', 'Email consent', 'SMS consent']),
      2,
    )
    expect(checkImportRow(row)).toEqual({
      ok: true,
      row: 2,
      input: {
        first_name: 'Ana',
        last_name: 'Lopez',
        email: 'ana@example.com',
        phone: '+15550101001',
        birth_date: '1990-01-31',
        email_subscription: true,
        sms_subscription: false,
      },
      joinedOn: null,
    })
    const reason = (patch: object) => {
      const result = checkImportRow({ ...row, ...patch })
      return result.ok ? null : result.reason
    }
    // Issue 29: any common writing is stored in E.164; a number without its area code is refused.
    for (const phone of ['+1 555 010 1001', '555.010.1001', '1 (555) 010-1001']) {
      expect(checkImportRow({ ...row, phone }), phone).toMatchObject({
        ok: true,
        input: { phone: '+15550101001' },
      })
    }
    expect(reason({ phone: '010-1001' })).toBe(`Phone: ${PATIENT_PHONE_MESSAGE}`)
    expect(reason({ first_name: ' ' })).toBe('The first name is missing.')
    expect(reason({ email: 'ana@' })).toBe('The e-mail address is not valid.')
    expect(reason({ birth_date: '2999-01-01' })).toBe(
      'Birth date: Please enter a birth date in the past.',
    )
    expect(reason({ sms_subscription: 'perhaps' })).toBe(
      'Please write the SMS consent as yes or no.',
    )
    // Issue 28: a day the patient joined, a calendar day not in the future.
    const joined = (cell: string) =>
      checkImportRow({ ...row, joined_on: cell }, { today: '2026-11-25' })
    expect(joined('2020-02-29')).toMatchObject({ ok: true, joinedOn: '2020-02-29' })
    for (const bad of ['2021-02-29', '2026-11-26', '12/03/2020']) {
      expect(joined(bad)).toMatchObject({ ok: false, reason: IMPORT_MESSAGES.joinedOn })
    }
  })

  it('never opts a patient in by default: an empty consent is no, unless the file was stated for', () => {
    const row = mapRecord(
      ['Ana', 'Lopez', 'ana@example.com'],
      guessMapping(['First', 'Last', 'Email']),
      2,
    )
    expect(checkImportRow(row)).toMatchObject({
      ok: true,
      input: { email_subscription: false, sms_subscription: false },
    })
    expect(checkImportRow(row, { emailConsentForAll: true })).toMatchObject({
      ok: true,
      input: { email_subscription: true, sms_subscription: false },
    })
    const said = { ...row, email_subscription: 'no' }
    expect(checkImportRow(said, { emailConsentForAll: true })).toMatchObject({
      input: { email_subscription: false },
    })
  })

  it('finds rows repeating an earlier e-mail (any case) or phone', () => {
    expect(
      duplicatesWithin([
        { row: 2, input: { email: 'a@example.com', phone: '+15550101001' } },
        { row: 3, input: { email: 'A@example.com', phone: null } },
        { row: 4, input: { email: null, phone: '+15550101001' } },
        { row: 5, input: { email: 'b@example.com', phone: null } },
      ]),
    ).toEqual(
      new Map([
        [3, 'Same e-mail as row 2 of this file.'],
        [4, 'Same phone number as row 2 of this file.'],
      ]),
    )
  })

  it('writes the rejected rows with a Reason column, quoted, formulas kept as text', () => {
    const csv = rejectedRowsCsv(
      ['First', 'Last'],
      [{ cells: ['=HYPERLINK("x")', 'Smith, Jr.'], reason: 'The e-mail address is not valid.' }],
    )
    expect(csv).toBe(
      'First,Last,Reason\r\n"\'=HYPERLINK(""x"")","Smith, Jr.",The e-mail address is not valid.\r\n',
    )
    expect(Papa.parse<string[]>(csv.trim()).data[1]).toEqual([
      '\'=HYPERLINK("x")',
      'Smith, Jr.',
      'The e-mail address is not valid.',
    ])
  })
})

import Papa from 'papaparse'
import { describe, expect, it } from 'vitest'
import {
  checkImportRow,
  contactsOf,
  dateCells,
  duplicatesWithin,
  fileDates,
  guessMapping,
  IMPORT_MESSAGES,
  mappingProblems,
  mapRecord,
  prepareRow,
  readBalance,
  readDate,
  rejectedRowsCsv,
} from '#domain/patient-import.ts'
import { FORMULA_NAME_MESSAGE } from '#domain/practice-data.ts'

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
      opening_balance: null,
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
      openingBalance: 0,
    })
    const reason = (patch: object) => {
      const result = checkImportRow({ ...row, ...patch })
      return result.ok ? null : result.reason
    }
    // Any common writing is stored in E.164; a number without its area code is refused.
    for (const phone of ['+1 555 010 1001', '555.010.1001', '1 (555) 010-1001']) {
      expect(checkImportRow({ ...row, phone }), phone).toMatchObject({
        ok: true,
        input: { phone: '+15550101001' },
      })
    }
    expect(reason({ phone: '010-1001' })).toBe(IMPORT_MESSAGES.phone('010-1001'))
    expect(reason({ first_name: ' ' })).toBe('The first name is missing.')
    expect(reason({ email: 'ana@' })).toBe('The e-mail address is not valid.')
    expect(reason({ birth_date: '2999-01-01' })).toBe(
      'Birth date: Please enter a birth date in the past.',
    )
    expect(reason({ sms_subscription: 'perhaps' })).toBe(
      'Please write the SMS consent as yes or no.',
    )
    // A day the patient joined, a calendar day not in the future.
    const joined = (cell: string) =>
      checkImportRow({ ...row, joined_on: cell }, { today: '2026-11-25' })
    expect(joined('2020-02-29')).toMatchObject({ ok: true, joinedOn: '2020-02-29' })
    expect(joined('2026-11-26')).toMatchObject({ ok: false, reason: IMPORT_MESSAGES.joinedOn })
    // The browser sends YYYY-MM-DD; a cell it could not read comes as typed.
    for (const bad of ['2021-02-29', '12/03/2020']) {
      expect(joined(bad)).toMatchObject({
        ok: false,
        reason: IMPORT_MESSAGES.notADate('joined_on', bad),
      })
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

  it('writes the rejected rows as typed: phones and numbers keep their first character, formulas are still text', () => {
    const csv = rejectedRowsCsv(
      ['Name', 'Phone', 'Points', 'Sum'],
      [{ cells: ['@cmd', '+1 510 555 0100', '-50', '-2+3'], reason: 'Not valid.' }],
    )
    expect(csv).toBe(
      "Name,Phone,Points,Sum,Reason\r\n'@cmd,+1 510 555 0100,-50,'-2+3,Not valid.\r\n",
    )
    expect(Papa.parse<string[]>(csv.trim()).data[1]?.slice(1, 3)).toEqual([
      '+1 510 555 0100',
      '-50',
    ])
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

describe('files as clinics export them', () => {
  it('reads dates as YYYY-MM-DD, month first or day first, with or without leading zeros', () => {
    expect(readDate('1990-03-04', 'mdy')).toBe('1990-03-04')
    expect(readDate('03/04/1990', 'mdy')).toBe('1990-03-04')
    expect(readDate('03/04/1990', 'dmy')).toBe('1990-04-03')
    expect(readDate('7/6/1992', 'mdy')).toBe('1992-07-06')
    expect(readDate('25.07.1987', 'dmy')).toBe('1987-07-25')
    for (const impossible of ['02/30/1990', '13/45/1990', '1990-02-30', '04/31/1990', 'soon']) {
      expect(readDate(impossible, 'mdy')).toBeNull()
    }
    expect(readDate('02/29/2000', 'mdy')).toBe('2000-02-29')
    expect(readDate('02/29/1900', 'mdy')).toBeNull()
  })

  it("decides the file's date order from the whole column, and asks when every date fits both", () => {
    expect(fileDates(['07/06/1992', '06/23/1967', '13/45/1990', '02/30/1985'])).toEqual({
      kind: 'decided',
      order: 'mdy',
    })
    expect(fileDates(['07/06/1992', '23/06/1967', ''])).toEqual({ kind: 'decided', order: 'dmy' })
    expect(fileDates(['03/04/1990', '1/2/1980'])).toEqual({
      kind: 'ambiguous',
      example: '03/04/1990',
    })
    // Dates that disagree (one fits month first only, another day first only): ask too.
    expect(fileDates(['06/23/1967', '23/06/1967'])).toMatchObject({ kind: 'ambiguous' })
    expect(fileDates(['1990-03-04', ''])).toEqual({ kind: 'none' })
    expect(fileDates([])).toEqual({ kind: 'none' })
    const mapping = guessMapping(['First', 'Last', 'DOB', 'Joined'])
    expect(dateCells([['A', 'B', '03/04/1990', '2020-01-01']], mapping)).toEqual([
      '03/04/1990',
      '2020-01-01',
    ])
  })

  it('prepares a row as the server receives it: names trimmed, ISO dates, E.164 phones; unreadable cells as typed', () => {
    const prepared = prepareRow(
      {
        row: 2,
        first_name: '  Mary   Ann ',
        last_name: ' Lee',
        phone: '(408) 555-4743',
        birth_date: '06/23/1967',
        joined_on: '02/30/2020',
      },
      'mdy',
    )
    expect(prepared).toEqual({
      row: 2,
      first_name: 'Mary Ann',
      last_name: 'Lee',
      phone: '+14085554743',
      birth_date: '1967-06-23',
      joined_on: '02/30/2020',
    })
    expect(prepareRow({ row: 3, phone: '555-0199' }, 'mdy').phone).toBe('555-0199')
    for (const written of ['+1 408 555 4743', '408.555.4743', '14085554743', '408-555-4743']) {
      expect(contactsOf({ row: 2, phone: written }).phone).toBe('+14085554743')
    }
  })

  it('refuses impossible and future dates, impossible phones, formula names and bad balances with a sentence', () => {
    const base = { row: 7, first_name: 'Omar', last_name: 'Haddad', email: 'omar@example.com' }
    const reason = (patch: object) => {
      const result = checkImportRow({ ...base, ...patch }, { today: '2026-11-26' })
      return result.ok ? null : result.reason
    }
    expect(reason({ birth_date: '02/30/1985' })).toBe(
      'The birth date "02/30/1985" is not a date of the calendar.',
    )
    expect(reason({ birth_date: '2030-01-01' })).toBe(
      'Birth date: Please enter a birth date in the past.',
    )
    expect(reason({ phone: '555-0199' })).toBe(
      'The phone number "555-0199" is not a full phone number: please write it with its area code.',
    )
    expect(reason({ first_name: '=HYPERLINK("http://evil.example","click")' })).toBe(
      `First name: ${FORMULA_NAME_MESSAGE}`,
    )
    for (const formula of ['+SUM(A1:A3)', '@cmd', '-2+3']) {
      expect(reason({ last_name: formula })).toBe(`Last name: ${FORMULA_NAME_MESSAGE}`)
    }
    for (const name of ['Anne-Marie', "O'Neil"]) {
      expect(reason({ first_name: name })).toBeNull()
    }
    expect(reason({ opening_balance: '-50' })).toBe(
      'The opening balance "-50" is not a whole number of points from 0 to 10,000,000.',
    )
    for (const bad of ['12.5', 'lots', '10000001', '1,2000']) {
      expect(reason({ opening_balance: bad })).toBe(IMPORT_MESSAGES.openingBalance(bad))
    }
    expect(checkImportRow({ ...base, opening_balance: '1,200' })).toMatchObject({
      ok: true,
      openingBalance: 1200,
    })
    expect(checkImportRow({ ...base, opening_balance: ' ' })).toMatchObject({
      ok: true,
      openingBalance: 0,
    })
    expect(readBalance('10000000')).toBe(10_000_000)
  })

  it('maps a points column as the opening balance', () => {
    const headers = ['First Name', 'Last Name', 'Mobile Phone', 'Date of Birth', 'Points Balance']
    expect(guessMapping(headers)).toMatchObject({
      phone: 2,
      birth_date: 3,
      opening_balance: 4,
    })
  })
})

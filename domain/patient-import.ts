import * as v from 'valibot'
import { csvRowAsTyped } from '#domain/csv.ts'
import { MAX_ENTRY_POINTS } from '#domain/ledger.ts'
import { toE164 } from '#domain/phone.ts'
import { type PatientInput, PatientInputSchema } from '#domain/practice-data.ts'

/**
 * The patient import: the rules shared by the browser,
 * which reads the file and shows the preview, and the server, which checks every row again with
 * the rules of `POST /patients` before it creates anyone.
 *
 * A file travels as chunks of at most {@link IMPORT_CHUNK_ROWS} mapped rows, each carrying its
 * row number as a spreadsheet shows it (the header is row 1) and the file's id, the SHA-256 of
 * its content. The server remembers which rows of which file it created, so a chunk sent again,
 * or the same file imported again, creates nobody (decision 010).
 */

/** Most rows one chunk carries: 200 rows stay well under the API's 100 KB body limit. */
export const IMPORT_CHUNK_ROWS = 200

/** Most patient rows one file may hold. */
export const IMPORT_MAX_ROWS = 10_000

/** The longest cell the import sends; longer cells are cut, and refused by the field rules. */
export const IMPORT_CELL_MAX_LENGTH = 300

/** The patient fields a column can fill, in the order the mapping shows them. */
export const IMPORT_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'birth_date',
  'email_subscription',
  'sms_subscription',
  'joined_on',
  'opening_balance',
] as const
export type ImportField = (typeof IMPORT_FIELDS)[number]

/** The fields' names as the screen and the messages say them. */
export const IMPORT_FIELD_LABELS: Record<ImportField, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'E-mail',
  phone: 'Phone',
  birth_date: 'Birth date',
  email_subscription: 'E-mail consent',
  sms_subscription: 'SMS consent',
  joined_on: 'Joined on',
  opening_balance: 'Opening balance',
}

/** Fields a file must have a column for. */
export const REQUIRED_IMPORT_FIELDS: readonly ImportField[] = ['first_name', 'last_name']

/** Which column (by its index in the header) fills each field; `null` when none does. */
export type ImportMapping = Record<ImportField, number | null>

/** The import's sentences. */
export const IMPORT_MESSAGES = {
  emptyFile: 'This file has no patient rows. The first row must name the columns.',
  tooManyRows: `This file has more than ${IMPORT_MAX_ROWS.toLocaleString('en-US')} patient rows. Please split it into smaller files.`,
  unreadable:
    'This file could not be read as CSV. Please save it as CSV (comma separated) and try again.',
  notCsv: 'Please choose a CSV file (its name ends in .csv).',
  emptyText: 'Please paste the CSV text first, its first line naming the columns.',
  missingColumn: (field: string) =>
    `Please choose the column that holds the ${field.toLowerCase()}.`,
  columnTwice: 'Each column can fill one field only.',
  missing: (field: string) => `The ${field.toLowerCase()} is missing.`,
  invalidEmail: 'The e-mail address is not valid.',
  consent: {
    email_subscription: 'Please write the e-mail consent as yes or no.',
    sms_subscription: 'Please write the SMS consent as yes or no.',
  },
  joinedOn: 'Please write the day the patient joined as YYYY-MM-DD, not in the future.',
  consentColumn:
    "This file has an e-mail consent column: each row's own answer is used, so the statement for the whole file cannot be sent with it.",
  sameAs: (field: 'email' | 'phone', row: number) =>
    `Same ${field === 'email' ? 'e-mail' : 'phone number'} as row ${row} of this file.`,
  generic: 'The import stopped because the server did not answer. Nothing was lost: try again.',
  notADate: (field: 'birth_date' | 'joined_on', cell: string) =>
    `The ${IMPORT_FIELD_LABELS[field].toLowerCase()} "${cell}" is not a date of the calendar.`,
  phone: (cell: string) =>
    `The phone number "${cell}" is not a full phone number: please write it with its area code.`,
  openingBalance: (cell: string) =>
    `The opening balance "${cell}" is not a whole number of points from 0 to ${MAX_ENTRY_POINTS.toLocaleString('en-US')}.`,
  tooManyRowsInChunk: `Please send at most ${IMPORT_CHUNK_ROWS} rows at a time.`,
  rowBeyondFile: `A file holds at most ${IMPORT_MAX_ROWS.toLocaleString('en-US')} patient rows: row numbers go from 2 to ${(IMPORT_MAX_ROWS + 1).toLocaleString('en-US')}. Please split the file.`,
} as const

/** The ledger entry's reason for an imported patient's points. */
export const OPENING_BALANCE_REASON = 'Opening balance from import'

/** Header words (lower case, letters only) that name each field. */
const HEADER_WORDS: Record<ImportField, readonly string[]> = {
  first_name: ['firstname', 'first', 'givenname', 'forename', 'fname', 'name'],
  last_name: ['lastname', 'last', 'surname', 'familyname', 'lname'],
  email: ['email', 'emailaddress', 'mail', 'eaddress'],
  phone: ['phone', 'phonenumber', 'mobile', 'mobilephone', 'cell', 'cellphone', 'telephone', 'tel'],
  birth_date: ['birthdate', 'dateofbirth', 'dob', 'birthday', 'born'],
  email_subscription: [
    'emailconsent',
    'emailsubscription',
    'emailoptin',
    'emailmarketing',
    'marketingemail',
    'subscribed',
  ],
  sms_subscription: [
    'smsconsent',
    'smssubscription',
    'smsoptin',
    'sms',
    'textconsent',
    'textmessages',
    'textoptin',
  ],
  joined_on: [
    'joinedon',
    'joined',
    'datejoined',
    'joindate',
    'patientsince',
    'membersince',
    'customersince',
    'since',
    'firstvisit',
    'dateadded',
    'created',
    'createdat',
    'createdon',
  ],
  opening_balance: [
    'openingbalance',
    'pointsbalance',
    'pointbalance',
    'balance',
    'points',
    'currentpoints',
    'loyaltypoints',
    'rewardpoints',
    'rewardspoints',
    'rewardsbalance',
  ],
}

const headerKey = (header: string) => header.toLowerCase().replace(/[^a-z]/g, '')

/**
 * The mapping a file's header suggests: each field takes the first column whose header names it
 * ("First Name", "first_name", "Given name"), each column fills one field at most.
 */
export function guessMapping(headers: readonly string[]): ImportMapping {
  const used = new Set<number>()
  const mapping = Object.fromEntries(IMPORT_FIELDS.map((f) => [f, null])) as ImportMapping
  for (const field of IMPORT_FIELDS) {
    const words = HEADER_WORDS[field]
    // An exact word first ("Email" before "Email consent"), in the order of the word list.
    for (const word of words) {
      const index = headers.findIndex((h, i) => !used.has(i) && headerKey(h) === word)
      if (index >= 0) {
        mapping[field] = index
        used.add(index)
        break
      }
    }
  }
  return mapping
}

/** What is wrong with a mapping, field by field; empty when it can be used. */
export function mappingProblems(mapping: ImportMapping): Partial<Record<ImportField, string>> {
  const problems: Partial<Record<ImportField, string>> = {}
  for (const field of REQUIRED_IMPORT_FIELDS) {
    if (mapping[field] === null) {
      problems[field] = IMPORT_MESSAGES.missingColumn(IMPORT_FIELD_LABELS[field])
    }
  }
  const seen = new Map<number, ImportField>()
  for (const field of IMPORT_FIELDS) {
    const column = mapping[field]
    if (column === null) continue
    if (seen.has(column)) problems[field] = IMPORT_MESSAGES.columnTwice
    else seen.set(column, field)
  }
  return problems
}

const Cell = v.optional(v.nullable(v.pipe(v.string(), v.maxLength(IMPORT_CELL_MAX_LENGTH))))

/** One mapped row of a file: its row number (the header is row 1) and its cells as written. */
export const ImportRowSchema = v.object({
  // The header is row 1, so a file's patient rows are 2 to IMPORT_MAX_ROWS + 1; the server
  // refuses a row beyond them with 413 before this schema runs.
  row: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(IMPORT_MAX_ROWS + 1)),
  first_name: Cell,
  last_name: Cell,
  email: Cell,
  phone: Cell,
  birth_date: Cell,
  email_subscription: Cell,
  sms_subscription: Cell,
  joined_on: Cell,
  /** Points the patient brings from another programme: a whole number, empty for none. */
  opening_balance: Cell,
})
export type ImportRow = v.InferOutput<typeof ImportRowSchema>

/**
 * Body of `POST /patients/import/preview` and `POST /patients/import`: up to
 * {@link IMPORT_CHUNK_ROWS} rows of one file, named by `file_id` (the SHA-256 of the file's
 * content, 64 hexadecimal digits).
 */
export const PatientImportChunkSchema = v.object({
  file_id: v.pipe(
    v.string(),
    v.regex(/^[0-9a-f]{64}$/, 'Please send the file id as 64 hex digits.'),
  ),
  rows: v.pipe(
    v.array(ImportRowSchema),
    v.minLength(1, 'Please send at least one row.'),
    v.maxLength(IMPORT_CHUNK_ROWS, `Please send at most ${IMPORT_CHUNK_ROWS} rows at a time.`),
    v.check(
      (rows) => new Set(rows.map((r) => r.row)).size === rows.length,
      'Each row number may appear once in a chunk.',
    ),
  ),
  /**
   * The importer's statement for a file without an e-mail consent column: every
   * patient of the file agreed to the practice's marketing e-mail. Without it, and for a row whose
   * consent cell is empty, nobody is opted in. Recorded in the activity log with who and when.
   */
  email_consent_for_all: v.optional(v.boolean()),
})
export type PatientImportChunk = v.InferOutput<typeof PatientImportChunkSchema>

/** A row that is not imported, and why; `patient_id` names the existing patient of a duplicate. */
export const ImportRejectionSchema = v.object({
  row: v.number(),
  reason: v.string(),
  patient_id: v.nullable(v.number()),
})
export type ImportRejection = v.InferOutput<typeof ImportRejectionSchema>

/**
 * `POST /patients/import/preview` answers: how many rows of the chunk would be created, the rows
 * that would not (with the reason) and those this file already created. Writes nothing.
 */
export const PatientImportPreviewSchema = v.object({
  ready: v.number(),
  /** The opening balances of the rows that would be created, summed. */
  points: v.number(),
  rejected: v.array(ImportRejectionSchema),
  already_imported: v.array(v.number()),
})
export type PatientImportPreview = v.InferOutput<typeof PatientImportPreviewSchema>

/**
 * `POST /patients/import` answers: the patients created, the rows skipped (rejected ones with
 * their reason, and those this file already created, which are never created twice).
 */
export const PatientImportAnswerSchema = v.object({
  created: v.number(),
  /** Points posted as opening balances of the patients this request created. */
  points_posted: v.number(),
  skipped: v.number(),
  rejected: v.array(ImportRejectionSchema),
  already_imported: v.array(v.number()),
})
export type PatientImportAnswer = v.InferOutput<typeof PatientImportAnswerSchema>

const YES = new Set(['yes', 'y', 'true', '1', 'x', 'opted in', 'subscribed'])
const NO = new Set(['no', 'n', 'false', '0', 'opted out', 'unsubscribed'])

/** A consent cell: empty is "not said" (the default applies), yes or no, or not readable. */
function readConsent(cell: string | null | undefined): boolean | undefined | 'unreadable' {
  const text = (cell ?? '').trim().toLowerCase()
  if (text === '') return undefined
  if (YES.has(text)) return true
  if (NO.has(text)) return false
  return 'unreadable'
}

const blankToNull = (cell: string | null | undefined) => {
  const text = (cell ?? '').trim()
  return text === '' ? null : text
}

/** A row that can be created, or the first reason it cannot. */
export type CheckedImportRow =
  | {
      ok: true
      row: number
      /** The patient's fields, consent always said (an empty cell is no). */
      input: PatientInput & { email_subscription: boolean; sms_subscription: boolean }
      /** The day the patient joined the practice, from the "joined on" column; else null. */
      joinedOn: string | null
      /** Points to post as the opening balance; 0 for none. */
      openingBalance: number
    }
  | { ok: false; row: number; reason: string }

/** A name as stored: trimmed, inner runs of spaces made one. */
export const cleanName = (cell: string | null | undefined) =>
  (cell ?? '').trim().replace(/\s+/g, ' ')

/**
 * An opening balance cell as a whole number of points from 0 to the most one ledger entry moves
 * ("1200" or "1,200"); null when it is anything else ("-50", "12.5", "lots").
 */
export function readBalance(cell: string): number | null {
  const text = cell.trim()
  if (!/^(\d+|\d{1,3}(,\d{3})+)$/.test(text)) return null
  const points = Number(text.replaceAll(',', ''))
  return Number.isSafeInteger(points) && points <= MAX_ENTRY_POINTS ? points : null
}

/** Whether `day` is written YYYY-MM-DD and is a day of the calendar (not 1990-02-30). */
function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false
  const date = new Date(`${day}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day
}

/** Whether `day` is a calendar day written YYYY-MM-DD, from 1900 to `today`. */
function isJoinedDay(day: string, today: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false
  const date = new Date(`${day}T00:00:00Z`)
  return (
    !Number.isNaN(date.getTime()) &&
    date.toISOString().slice(0, 10) === day &&
    day >= '1900-01-01' &&
    day <= today
  )
}

/**
 * Checks a row with the rules of `POST /patients` (PatientInputSchema), reading its consent cells
 * as yes or no and its "joined on" cell as a day; a refusal is one sentence that names what to
 * fix. Import never opts anyone in by default: a consent cell left empty, or a file
 * without the column, is no, unless the importer stated consent for the whole file
 * (`emailConsentForAll`, for a file without an e-mail consent column).
 */
export function checkImportRow(
  row: ImportRow,
  { emailConsentForAll = false, today = new Date().toISOString().slice(0, 10) } = {},
): CheckedImportRow {
  const consents: Partial<Record<'email_subscription' | 'sms_subscription', boolean>> = {}
  for (const field of ['email_subscription', 'sms_subscription'] as const) {
    const consent = readConsent(row[field])
    if (consent === 'unreadable') {
      return {
        ok: false,
        row: row.row,
        reason: IMPORT_MESSAGES.consent[field],
      }
    }
    if (consent !== undefined) consents[field] = consent
  }
  const birth = blankToNull(row.birth_date)
  if (birth !== null && !isCalendarDay(birth)) {
    return { ok: false, row: row.row, reason: IMPORT_MESSAGES.notADate('birth_date', birth) }
  }
  const joined = blankToNull(row.joined_on)
  if (joined !== null && !isCalendarDay(joined)) {
    return { ok: false, row: row.row, reason: IMPORT_MESSAGES.notADate('joined_on', joined) }
  }
  if (joined !== null && !isJoinedDay(joined, today)) {
    return { ok: false, row: row.row, reason: IMPORT_MESSAGES.joinedOn }
  }
  const written = blankToNull(row.phone)
  const phone = written === null ? null : toE164(written)
  if (written !== null && phone === null) {
    return { ok: false, row: row.row, reason: IMPORT_MESSAGES.phone(written) }
  }
  const balanceCell = blankToNull(row.opening_balance)
  const openingBalance = balanceCell === null ? 0 : readBalance(balanceCell)
  if (openingBalance === null) {
    return { ok: false, row: row.row, reason: IMPORT_MESSAGES.openingBalance(balanceCell ?? '') }
  }
  const result = v.safeParse(PatientInputSchema, {
    first_name: cleanName(row.first_name),
    last_name: cleanName(row.last_name),
    email: blankToNull(row.email),
    phone,
    birth_date: birth,
    ...consents,
  })
  if (result.success) {
    return {
      ok: true,
      row: row.row,
      input: {
        ...result.output,
        email_subscription: consents.email_subscription ?? emailConsentForAll,
        sms_subscription: consents.sms_subscription ?? false,
      },
      joinedOn: joined,
      openingBalance,
    }
  }
  const [issue] = result.issues
  const key = issue?.path?.[0]?.key
  const field = (IMPORT_FIELDS as readonly unknown[]).includes(key) ? (key as ImportField) : null
  return { ok: false, row: row.row, reason: reasonOf(field, issue) }
}

/** A field's refusal in words: the schema's own sentence, or ours for valibot's defaults. */
function reasonOf(field: ImportField | null, issue: v.BaseIssue<unknown> | undefined): string {
  const message = issue?.message ?? ''
  if (field === 'first_name' || field === 'last_name') {
    if (issue?.type === 'min_length') return IMPORT_MESSAGES.missing(IMPORT_FIELD_LABELS[field])
  }
  if (field === 'email' && !message.startsWith('Please')) return IMPORT_MESSAGES.invalidEmail
  if (message.startsWith('Please') && field) return `${IMPORT_FIELD_LABELS[field]}: ${message}`
  return field
    ? `The ${IMPORT_FIELD_LABELS[field].toLowerCase()} is not valid.`
    : 'This row is not valid.'
}

/**
 * Rows whose e-mail (any case) or phone (as stored) an earlier row of the same rows already has,
 * each with the sentence naming that earlier row.
 */
export function duplicatesWithin(
  rows: readonly { row: number; input: Pick<PatientInput, 'email' | 'phone'> }[],
): Map<number, string> {
  const emails = new Map<string, number>()
  const phones = new Map<string, number>()
  const found = new Map<number, string>()
  for (const { row, input } of rows) {
    const email = input.email?.toLowerCase()
    const phone = input.phone ?? undefined
    const sameEmail = email ? emails.get(email) : undefined
    const samePhone = phone ? phones.get(phone) : undefined
    if (sameEmail !== undefined) found.set(row, IMPORT_MESSAGES.sameAs('email', sameEmail))
    else if (samePhone !== undefined) found.set(row, IMPORT_MESSAGES.sameAs('phone', samePhone))
    else {
      if (email) emails.set(email, row)
      if (phone) phones.set(phone, row)
    }
  }
  return found
}

/**
 * A row's e-mail and phone as `POST /patients` would store them (trimmed; the phone in E.164, or
 * as written when it is not a number), without running the other rules: enough to compare rows.
 */
export function contactsOf(row: ImportRow): { email: string | null; phone: string | null } {
  const phone = blankToNull(row.phone)
  return { email: blankToNull(row.email), phone: phone ? (toE164(phone) ?? phone) : null }
}

/**
 * How a file writes the dates that are not YYYY-MM-DD: month first, as in the US
 * (MM/DD/YYYY, M/D/YYYY), or day first (DD/MM/YYYY), with slashes, dots or dashes.
 */
export type DateOrder = 'mdy' | 'dmy'

/** The orders in the page's words. */
export const DATE_ORDER_LABELS: Record<DateOrder, string> = {
  mdy: 'month/day/year (US)',
  dmy: 'day/month/year',
}

/** What a file's date columns say about their order, read over every cell of them. */
export type FileDates =
  /** No date with slashes (none at all, or YYYY-MM-DD only): nothing to decide. */
  | { kind: 'none' }
  /** The dates that fit only one order all fit the same one: the file is read that way. */
  | { kind: 'decided'; order: DateOrder }
  /** Every date fits both orders (each day is 12 or less), or the dates disagree: ask. */
  | { kind: 'ambiguous'; example: string }

const SLASH_DATE = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/** The day as YYYY-MM-DD, or null when month and day are not a day of the calendar. */
function calendarDay(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null
  return date.toISOString().slice(0, 10)
}

/** A date cell as YYYY-MM-DD, read in `order` when it has slashes; null when it is no day. */
export function readDate(cell: string, order: DateOrder): string | null {
  const text = cell.trim()
  if (ISO_DATE.test(text)) return isCalendarDay(text) ? text : null
  const parts = SLASH_DATE.exec(text)
  if (!parts) return null
  const [first, second, year] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  return order === 'mdy' ? calendarDay(year, first, second) : calendarDay(year, second, first)
}

/**
 * Decides the order of a file's dates from all of its date cells: a date like 07/25/1987 fits
 * month first only, 25/07/1987 day first only, 03/04/1990 both, and 13/45/1990 neither (that row
 * is refused on its own). When the dates that fit one order only all fit the same one, that is
 * the file's; when none does (every day is 12 or less) or they disagree, the person is asked.
 */
export function fileDates(cells: Iterable<string>): FileDates {
  let monthFirst = 0
  let dayFirst = 0
  let example: string | null = null
  for (const cell of cells) {
    const text = cell.trim()
    if (!SLASH_DATE.test(text)) continue
    const mdy = readDate(text, 'mdy') !== null
    const dmy = readDate(text, 'dmy') !== null
    if (mdy && !dmy) monthFirst++
    else if (dmy && !mdy) dayFirst++
    else if (mdy && dmy && example === null) example = text
  }
  if (monthFirst > 0 && dayFirst === 0) return { kind: 'decided', order: 'mdy' }
  if (dayFirst > 0 && monthFirst === 0) return { kind: 'decided', order: 'dmy' }
  if (monthFirst === 0 && dayFirst === 0 && example === null) return { kind: 'none' }
  return { kind: 'ambiguous', example: example ?? '' }
}

/** The date cells of the mapped date columns (birth date, joined on) of a file's records. */
export function dateCells(
  records: readonly (readonly string[])[],
  mapping: ImportMapping,
): string[] {
  const columns = [mapping.birth_date, mapping.joined_on].filter((c): c is number => c !== null)
  return records.flatMap((cells) => columns.map((c) => cells[c] ?? ''))
}

/**
 * A mapped row as the browser sends it: names trimmed with inner spaces made one,
 * dates as YYYY-MM-DD read in the file's order, the phone in E.164 (`toE164`). A cell that cannot
 * be read is sent as typed, so the server refuses the row with a sentence that quotes it.
 */
export function prepareRow(row: ImportRow, order: DateOrder): ImportRow {
  const prepared: ImportRow = { ...row }
  if (row.first_name != null) prepared.first_name = cleanName(row.first_name)
  if (row.last_name != null) prepared.last_name = cleanName(row.last_name)
  for (const field of ['birth_date', 'joined_on'] as const) {
    const cell = row[field]
    if (cell != null && cell.trim() !== '') prepared[field] = readDate(cell, order) ?? cell.trim()
  }
  if (row.phone != null && row.phone.trim() !== '') {
    prepared.phone = toE164(row.phone) ?? row.phone.trim()
  }
  return prepared
}

/** A mapped row from a record's cells; cells past {@link IMPORT_CELL_MAX_LENGTH} are cut. */
export function mapRecord(
  cells: readonly string[],
  mapping: ImportMapping,
  row: number,
): ImportRow {
  const mapped: ImportRow = { row }
  for (const field of IMPORT_FIELDS) {
    const column = mapping[field]
    mapped[field] = column === null ? null : (cells[column] ?? '').slice(0, IMPORT_CELL_MAX_LENGTH)
  }
  return mapped
}

/**
 * The rejected rows as a CSV file to fix and import again: the file's own columns and a Reason
 * column, quoted (RFC 4180), each cell as it was typed: "+1 510 555 0100" and "-50"
 * keep their first character, and only a cell that could run as a formula (`=HYPERLINK(...)`)
 * gets the apostrophe the exports give it.
 */
export function rejectedRowsCsv(
  headers: readonly string[],
  rows: readonly { cells: readonly string[]; reason: string }[],
): string {
  return [
    csvRowAsTyped([...headers, 'Reason']),
    ...rows.map((r) => csvRowAsTyped([...r.cells, r.reason])),
  ].join('')
}

/**
 * CSV cells and rows (RFC 4180) for the exports: a cell with a comma, a quote, a line break or
 * outer spaces is quoted, quotes doubled. A text cell that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) gets a leading apostrophe first, so an
 * exported name like `=HYPERLINK(...)` stays text (OWASP "CSV injection"). Numbers are written as
 * they are: -100 points is a number, not a formula.
 */
export type CsvValue = string | number | boolean | Date | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

/** One cell. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value instanceof Date) return value.toISOString()
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One line, CRLF-terminated as RFC 4180 says. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`
}

/**
 * A phone number as people write it ("+1 510 555 0100", "+1 (510) 555-0100") or a number
 * ("-50", "-1,200.5"): text that starts like a formula but holds no letter, no cell reference,
 * no `!`, `:` or quote, so a spreadsheet can at most read it as a number or a sum of numbers. It
 * can call no function and reach no other cell or program, which is what the apostrophe guards
 * against.
 */
const PHONE_OR_NUMBER = /^(\+[\d\s().-]*\d[\d\s().-]*|-\d[\d,]*(\.\d+)?)$/

/**
 * Whether a spreadsheet would run this text as a formula that can do harm: it starts with
 * = + - @, a tab or a carriage return and is not a phone number or a number.
 */
export function isFormulaLike(text: string): boolean {
  return FORMULA_START.test(text) && !PHONE_OR_NUMBER.test(text)
}

/**
 * One cell of a file a person typed, written back as typed (the rejected rows of an
 * import): "+1 510 555 0100" and "-50" stay as they are, while a cell that could run as a
 * formula (`=HYPERLINK(...)`, `@cmd`, `-2+3`) still gets the apostrophe. The exports keep
 * {@link csvCell}, which guards every cell that starts like a formula.
 */
export function csvCellAsTyped(value: string): string {
  const text = isFormulaLike(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One line of {@link csvCellAsTyped} cells, CRLF-terminated. */
export function csvRowAsTyped(values: readonly string[]): string {
  return `${values.map(csvCellAsTyped).join(',')}\r\n`
}

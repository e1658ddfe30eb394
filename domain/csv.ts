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

/**
 * How every number of points is written, in the portal, its e-mails and its pages: with a
 * thousands separator ("1,120 points"), as the patient and the practice read money. Exports
 * (CSV) keep plain numbers, for spreadsheets.
 */
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** A number of points without its unit: `1,120` (`-1,120` below zero). */
export function formatPoints(n: number): string {
  return count.format(n)
}

/** A number of points with its unit: `1,120 points`, `1 point`, `-5 points`. */
export function pointsText(n: number): string {
  return `${formatPoints(n)} ${Math.abs(n) === 1 ? 'point' : 'points'}`
}

/**
 * A change of points with its sign: `+1,120`, `−45` (a true minus sign; `minus: '-'` for
 * sentences written with a hyphen), `0`.
 */
export function signedPoints(n: number, minus: '−' | '-' = '−'): string {
  return `${n > 0 ? '+' : n < 0 ? minus : ''}${formatPoints(Math.abs(n))}`
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long' })
const dayUtc = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })
const dayTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' })
const count = new Intl.NumberFormat('en-US')

/** Cents as dollars: `$12.50`. */
export const money = (cents: number) => usd.format(cents / 100)

/** A count of points: `1,250 points`, `1 point`. */
export const points = (n: number) => `${count.format(n)} point${Math.abs(n) === 1 ? '' : 's'}`

/** An ISO time as a day in the patient's time zone: `December 27, 2026`. */
export const longDate = (iso: string) => day.format(new Date(iso))

/** A calendar day (`YYYY-MM-DD`) as written: `January 3, 2027` (no time zone shift). */
export const calendarDay = (ymd: string) => dayUtc.format(new Date(`${ymd}T00:00:00Z`))

/** An ISO time as a day and time: `Nov 27, 2026, 6:04 PM`. */
export const dateTime = (iso: string) => dayTime.format(new Date(iso))

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' })
const time = new Intl.DateTimeFormat('en-US', { timeStyle: 'short' })
const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' })

/** An amount in cents as US dollars (cents divided by 100). */
export function formatCents(cents: number): string {
  return usd.format(cents / 100)
}

/** An ISO timestamp as a date and time in the user's time zone. */
export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso))
}

/** An ISO timestamp as a time of day in the user's time zone. */
export function formatTime(iso: string): string {
  return time.format(new Date(iso))
}

/** An ISO timestamp as a date in the user's time zone. */
export function formatDate(iso: string): string {
  return date.format(new Date(iso))
}

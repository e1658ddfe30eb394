/** Milliseconds in a day: 24 hours, as the server and the browser count days (UTC, no leap seconds). */
export const DAY_MS = 86_400_000

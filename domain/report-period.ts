/**
 * The small part of the reports' vocabulary that the router needs before any report is loaded:
 * the worklist's list names (in the dashboard's address) and the arithmetic of UTC days. Kept
 * apart from domain/reports.ts so the answer schemas load with the dashboard, not with every page.
 */
import { DAY_MS } from '#domain/time.ts'

/** The worklist's lists. */
export const WORKLIST_LISTS = [
  'expiring',
  'lapsing',
  'offers-ending',
  'appointments',
  'memberships-past-due',
  'cards-expiring',
] as const
export type WorklistList = (typeof WORKLIST_LISTS)[number]

/** `YYYY-MM-DD` of a date in UTC. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** The day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS))
}

/** The first day of `day`'s month. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`
}

/** Days from `from` to `to`, both included. */
export function periodDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1
}

/** The period of the same length just before `from`..`to`. */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const days = periodDays(from, to)
  return { from: addDays(from, -days), to: addDays(from, -1) }
}

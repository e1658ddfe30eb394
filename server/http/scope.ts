import type { AuthUser } from '#server/context.ts'
import { notFound } from './errors.ts'

export type { AuthUser }

/**
 * Refuses a practice id that is not the signed-in user's own practice with the 404 an unknown id
 * gets: a 403 would tell which ids exist, so another practice's ids could be counted.
 */
export function assertOwnPractice(user: AuthUser, practiceId: number): void {
  if (user.practice_id !== practiceId) throw notFound('Practice not found.')
}

/**
 * The row when it exists and belongs to the user's practice; otherwise 404 `<what> not found.`,
 * the same answer whether the row does not exist or belongs to another practice.
 */
export function ownRow<T extends { practice_id: number }>(
  user: AuthUser,
  row: T | undefined,
  what: string,
): T {
  if (!row || row.practice_id !== user.practice_id) throw notFound(`${what} not found.`)
  return row
}

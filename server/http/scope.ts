import type { AuthUser } from '#server/context.ts'
import { forbidden, notFound } from './errors.ts'

/** Refuses (403) a practice id that is not the signed-in user's own practice. */
export function assertOwnPractice(user: AuthUser, practiceId: number): void {
  if (user.practice_id !== practiceId) {
    throw forbidden('You do not have access to this practice.')
  }
}

/**
 * The row when it exists and belongs to the user's practice; 404 when it does not exist, 403 when
 * it belongs to another practice.
 */
export function ownRow<T extends { practice_id: number }>(
  user: AuthUser,
  row: T | undefined,
  what: string,
): T {
  if (!row) throw notFound(`${what} not found.`)
  if (row.practice_id !== user.practice_id) {
    throw forbidden(`You do not have access to this ${what.toLowerCase()}.`)
  }
  return row
}

/**
 * Row locks taken in one order everywhere. Two transactions that lock the same rows of a table in
 * different orders can each hold one and wait for the other: PostgreSQL then aborts one with a
 * deadlock (40P01). A transaction that locks several users or several patients takes them here, in
 * one statement sorted by id: `SELECT … ORDER BY id FOR UPDATE` locks the rows as they come out of
 * the sort, so every such transaction waits for the lowest id first and none holds a higher one
 * while waiting for a lower one. (A transaction that locks one row only cannot close a cycle on
 * its own table.)
 *
 * Across tables the order is the practice's row, then users, then patients, then the rows that
 * hang off them (an upload, a visit, a promotion): the file delete locks the practice, the users
 * showing the image and then the upload, as the logo and avatar changes do.
 *
 * A checkout (server/modules/visits) locks its one patient first, in the statement that reads all
 * it needs of the patient (`FOR UPDATE OF patients`: the practice's row it joins for its name is
 * not locked), then the appointment, visit or code it changes; the ledger's postings inside it
 * take no second lock (`createLedger(…).locked`).
 *
 * Under READ COMMITTED a row that another transaction changed while this one waited is read again
 * after the wait and checked against the condition once more: a user who stopped being an active
 * Admin meanwhile is no longer among the rows answered.
 */
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm'
import type { SelectedFields } from 'drizzle-orm/pg-core'
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types'
import type { Transaction } from './client.ts'
import { patients, users } from './schema.ts'

/** The rows a lock answers: `columns` read, as drizzle types a select of them. */
type Locked<F extends SelectedFields> = Promise<SelectResultFields<F>[]>

/** The users matching `where`, each locked FOR UPDATE for the rest of `tx`, by id. */
export function lockUsers<F extends SelectedFields>(
  tx: Transaction,
  columns: F,
  where: SQL,
): Locked<F> {
  const fields: SelectedFields = columns
  return tx
    .select(fields)
    .from(users)
    .where(where)
    .orderBy(asc(users.id))
    .for('update') as unknown as Locked<F>
}

/**
 * The practice's patients among `ids`, each locked FOR UPDATE for the rest of `tx`, by id; an id
 * of another practice (or of nobody) is simply not among them.
 */
export function lockPatients<F extends SelectedFields>(
  tx: Transaction,
  columns: F,
  practiceId: number,
  ids: readonly number[],
): Locked<F> {
  const fields: SelectedFields = columns
  return tx
    .select(fields)
    .from(patients)
    .where(and(eq(patients.practice_id, practiceId), inArray(patients.id, [...ids])))
    .orderBy(asc(patients.id))
    .for('update') as unknown as Locked<F>
}

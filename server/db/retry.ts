import { postgresCode } from '#server/lib/log.ts'

/**
 * The SQLSTATEs after which the same transaction may simply run again: PostgreSQL rolled it back
 * because of another transaction, not because of anything it did wrong. 40P01 is a deadlock (the
 * server picked this transaction as the victim), 40001 a serialization failure.
 */
export const RETRYABLE_STATES: ReadonlySet<string> = new Set(['40P01', '40001'])

/** Whether `error` (a driver error, or drizzle's wrapper around one) is worth another attempt. */
export function isConflictError(error: unknown): boolean {
  const code = postgresCode(error)
  return code !== undefined && RETRYABLE_STATES.has(code)
}

export type RetryOptions = {
  /** How many times a transaction runs at most (default 3). */
  attempts?: number
  /**
   * How long to wait before attempt `attempt + 1` (default: 15 ms doubled each time, times a
   * random factor between 0.5 and 1.5). The jitter keeps two transactions that met in a deadlock
   * from meeting again at the same instant.
   */
  delayMs?: (attempt: number) => number
  /**
   * Told of every conflict that makes a transaction run again (its SQLSTATE and the attempt that
   * failed): the server logs it, since a deadlock retried in silence still means two code paths
   * lock rows in different orders.
   */
  onRetry?: (state: string, attempt: number, attempts: number) => void
}

const defaultDelay = (attempt: number) => 15 * 2 ** (attempt - 1) * (0.5 + Math.random())

const RETRYING = Symbol.for('glow.transaction-retry')

/** A drizzle database (server/db/client.ts's `Database`), as far as this module needs it. */
type Transactional = { transaction: (...args: never[]) => Promise<unknown> }

/**
 * Makes `db.transaction` run its callback again, from the start, when PostgreSQL answers it with
 * a deadlock or a serialization failure ({@link RETRYABLE_STATES}), up to `attempts` times; the
 * last failure is thrown as it came (the app's error handler answers it 503 with `Retry-After`).
 *
 * The rolled-back attempt left nothing in the database, so a callback whose only effects are its
 * queries (e-mails and SMS go through the outbound queue's table, written with `tx`) is safe to
 * run twice. A callback must not keep anything outside the transaction from one attempt to the
 * next (push into an outer array, send, write a file): it returns what the caller needs.
 *
 * Only the outermost transaction retries: a nested `tx.transaction` is a savepoint of a
 * transaction that the deadlock already aborted, and it is the outer one that runs again.
 * Applied once per database by `openDatabase`; applying it again changes nothing.
 */
export function retryTransactions<D extends Transactional>(db: D, options: RetryOptions = {}): D {
  if ((db as { [RETRYING]?: true })[RETRYING]) return db
  const attempts = Math.max(1, options.attempts ?? 3)
  const delayMs = options.delayMs ?? defaultDelay
  const once = db.transaction
  const transaction = async (...args: Parameters<D['transaction']>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await Reflect.apply(once, db, args)
      } catch (error) {
        if (attempt >= attempts || !isConflictError(error)) throw error
        options.onRetry?.(postgresCode(error) ?? '', attempt, attempts)
        const wait = delayMs(attempt)
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }
  Object.defineProperty(db, 'transaction', { value: transaction, configurable: true })
  Object.defineProperty(db, RETRYING, { value: true })
  return db
}

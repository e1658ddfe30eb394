import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'

/** What {@link verifyAuditChain} found. */
export type AuditChainReport = {
  /** Events in the table. */
  events: number
  /** The last event's hash: note it, and a later run can tell whether events were cut off the end. */
  head: string | null
  /** One sentence per break in the chain; empty when the trail is intact. */
  problems: string[]
}

type ChainRow = {
  id: number
  seq: number | string | null
  prev_hash: string | null
  hash: string | null
  expected: string | null
}

/**
 * Walks the audit trail in chain order and checks every link (migration 0003): each event's
 * `hash` must be the SHA-256 of its fields and `prev_hash` (recomputed by the database's own
 * `audit_event_hash`), each `prev_hash` the hash of the event before it, and the positions
 * 1, 2, 3... without a gap. A changed row fails its hash; a deleted one leaves a gap and a
 * `prev_hash` that points at nothing. With `expectedHead` (a head noted earlier), events removed
 * from the end are found too.
 */
export async function verifyAuditChain(
  db: Database,
  { expectedHead }: { expectedHead?: string | undefined } = {},
): Promise<AuditChainReport> {
  const result = (await db.execute(sql`
    select id, seq, prev_hash, hash,
      audit_event_hash(seq, action, user_id, practice_id, ip, details, created_at, prev_hash)
        as expected
    from audit_events order by seq nulls first, id`)) as unknown as { rows: ChainRow[] }
  const problems: string[] = []
  let previous: string | null = null
  let position = 0
  let head: string | null = null
  const seen = new Set<string>()
  for (const row of result.rows) {
    if (row.seq === null) {
      problems.push(
        `Event id ${row.id} is outside the chain (no position): it was not written by the chain trigger.`,
      )
      continue
    }
    const seq = Number(row.seq)
    if (seq > position + 1) {
      const last = seq - 1
      problems.push(
        `Event ${position + 1}${last > position + 1 ? ` to ${last}` : ''} ${last > position + 1 ? 'are' : 'is'} missing: deleted from the trail.`,
      )
    } else if (seq <= position) {
      problems.push(`Event ${seq} appears twice.`)
    } else if (row.prev_hash !== previous) {
      problems.push(`Event ${seq} does not follow the event before it: that event was changed.`)
    }
    if (row.hash === null || row.hash !== row.expected) {
      problems.push(`Event ${seq} was changed after it was written (its hash does not match).`)
    }
    if (row.hash) seen.add(row.hash)
    previous = row.hash
    position = seq
    head = row.hash
  }
  if (expectedHead && !seen.has(expectedHead)) {
    problems.push(`The noted head ${expectedHead} is no longer in the trail: events were removed.`)
  }
  return { events: result.rows.length, head, problems }
}

import type { AuditAction } from '#domain/activity-log.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { auditEvents } from '#server/db/schema.ts'
import type { Logger } from '#server/lib/log.ts'

/** The actions the trail records and their type live with the activity log's words. */
export { AUDIT_ACTIONS, type AuditAction } from '#domain/activity-log.ts'

/** A detail value: plain data only, never an object that could smuggle a secret through. */
export type AuditDetail = string | number | boolean | null

/** What happened, who did it (user and practice when known) and from which address. */
export type AuditEvent = {
  action: AuditAction
  userId?: number | null | undefined
  practiceId?: number | null | undefined
  ip?: string | null | undefined
  details?: Record<string, AuditDetail> | undefined
}

/** The event of `action` done by a signed-in `user` of their practice, from `ip`. */
export function userEvent(
  action: AuditAction,
  user: { id: number; practice_id: number },
  ip: string | null,
  details: Record<string, AuditDetail>,
): AuditEvent {
  return { action, userId: user.id, practiceId: user.practice_id, ip, details }
}

/** Writes audit events. There is no update or delete: the trail is append-only. */
export interface AuditLog {
  record(event: AuditEvent): Promise<void>
}

// Keys whose values are secrets: they never reach the table, whatever a caller passes.
const SECRET_KEY = /pass|code|token|secret|jwt|hash|card|cvc|cvv|authori[sz]ation|cookie/i

/** `details` without secret-looking keys and with long strings cut, so a row stays small. */
export function safeDetails(
  details: Record<string, AuditDetail> = {},
): Record<string, AuditDetail> {
  const safe: Record<string, AuditDetail> = {}
  for (const [key, value] of Object.entries(details)) {
    if (SECRET_KEY.test(key)) continue
    safe[key] = typeof value === 'string' ? value.slice(0, 200) : value
  }
  return safe
}

/**
 * The audit trail in the `audit_events` table. Only inserts; a trigger in the database refuses
 * UPDATE, DELETE and TRUNCATE as well. A failed write is logged and does not fail the request
 * that caused it: the person's sign-in or sign-up matters more than its record.
 */
export function createAuditLog(
  db: Database,
  { now, log }: { now: () => Date; log: Logger },
): AuditLog {
  return {
    async record(event) {
      try {
        await recordWithin(db, event, now())
      } catch (error) {
        log.error(`Audit event ${event.action} could not be recorded`, error)
      }
    },
  }
}

/**
 * Writes `event` with the caller's transaction, so that a change and its record commit or roll
 * back together: the way a use case records what it changed. Unlike {@link AuditLog.record}, a
 * failure is not swallowed; it fails the transaction, and with it the change.
 */
export async function recordWithin(
  tx: Database | Transaction,
  event: AuditEvent,
  at: Date,
): Promise<void> {
  await tx.insert(auditEvents).values({
    action: event.action,
    user_id: event.userId ?? null,
    practice_id: event.practiceId ?? null,
    ip: event.ip ?? null,
    details: safeDetails(event.details),
    created_at: at,
  })
}

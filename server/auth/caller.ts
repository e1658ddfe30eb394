import type { Role } from '#domain/permissions.ts'
import type { AuditAction, AuditDetail, AuditEvent } from '#server/audit/audit.ts'
import { notFound } from '#server/lib/domain-error.ts'

/**
 * The signed-in user as a use case sees it: the session's user (server/context.ts `AuthUser`)
 * without anything of HTTP.
 */
export type Caller = { id: number; practice_id: number; access_rights: Role }

/** Who changes something and from which address: what the audit event of a change names. */
export type Actor = { user: Caller; ip: string }

/** The audit event of `actor` doing `action`, in the actor's practice. */
export function actorEvent(
  actor: Actor,
  action: AuditAction,
  details?: Record<string, AuditDetail>,
): AuditEvent {
  return {
    action,
    userId: actor.user.id,
    practiceId: actor.user.practice_id,
    ip: actor.ip,
    ...(details ? { details } : {}),
  }
}

/**
 * The row when it exists and belongs to the caller's practice; otherwise not found
 * (`<what> not found.`), the same whether the row does not exist or is another practice's, so
 * that another practice's ids cannot be counted.
 */
export function ownRow<T extends { practice_id: number }>(
  caller: Pick<Caller, 'practice_id'>,
  row: T | undefined,
  what: string,
): T {
  if (!row || row.practice_id !== caller.practice_id) throw notFound(`${what} not found.`)
  return row
}

import { can, toRole } from '#domain/permissions.ts'
import { type ApprovalRequest, VISIT_MESSAGES } from '#domain/visits.ts'
import type { AuthUser, ServerContext } from '#server/context.ts'
import { notAllowed } from '#server/lib/domain-error.ts'
import { colleagueAtTheDesk } from '#server/modules/auth/index.ts'

/**
 * Who approves a visit's prices and points: a Manager or Admin signing in at the desk (e-mail
 * and password, counted like a sign-in), else the session's member, who must be a Manager or
 * Admin themselves. Answers the approver's id.
 */
export async function approverOf(
  ctx: Pick<ServerContext, 'db' | 'now' | 'hashing' | 'audit' | 'rateLimitStore'>,
  user: AuthUser,
  ip: string,
  manager: ApprovalRequest['manager'],
): Promise<number> {
  if (!manager) {
    if (!can(user.access_rights, 'visits.approve')) {
      throw notAllowed(VISIT_MESSAGES.approverNotManager)
    }
    return user.id
  }
  const colleague = await colleagueAtTheDesk(ctx, manager, {
    practiceId: user.practice_id,
    ip,
    purpose: 'visit_approval',
    refusal: VISIT_MESSAGES.approverCredentials,
  })
  if (
    colleague.practice_id !== user.practice_id ||
    colleague.deactivated_at ||
    !can(toRole(colleague.access_rights), 'visits.approve')
  ) {
    throw notAllowed(VISIT_MESSAGES.approverNotManager)
  }
  return colleague.id
}

/**
 * The audit trail's actions (issue 19), and nothing else: the activity log's address (its
 * `?action=` filter) is checked by the router before the log is loaded, so the list is kept apart
 * from domain/activity-log.ts, whose event schemas and wording load with the log, not with every page.
 */

/** Every action the audit trail records, in the order the features came. */
export const AUDIT_ACTIONS = [
  'signin.success',
  'signin.failure',
  'session.logout',
  'password_reset.requested',
  'password_reset.used',
  'invitation.created',
  'invitation.used',
  'signup.registered',
  'payment.completed',
  'permission.refused',
  'ledger.posted',
  'patient.viewed',
  'patient.created',
  'patient.updated',
  'patient.archived',
  'patient.restored',
  'practice.rules_changed',
  'appointment.created',
  'appointment.updated',
  'appointment.cancelled',
  'appointment.deleted',
  // Issue 17, the front desk: visits, their undo, redemption codes and the CSV exports.
  'visit.recorded',
  'visit.undone',
  'redemption.code_sent',
  // Issue 28: a manager's approval of a price above the catalogue's or points above the ceiling.
  'visit.approved',
  'report.exported',
  // The patient import (issue 17): one event per chunk, its counts only.
  'patients.imported',
  // Self-service (issue 19)
  'password.changed',
  'user.role_changed',
  'user.deactivated',
  'user.reactivated',
  'user.profile_updated',
  'activity.viewed',
  // Settings and My Profile (issue 19): the practice's details, a member's verified phone.
  'practice.details_changed',
  'user.phone_changed',
  // Uploads (issue 19): the practice logo and the own avatar.
  'file.uploaded',
  'file.deleted',
  'practice.logo_changed',
  'practice.logo_removed',
  'user.avatar_changed',
  'user.avatar_removed',
  // The subscription in Settings (issue 19)
  'subscription.cancel_scheduled',
  'subscription.resumed',
  'subscription.card_changed',
  // Promotions (issue 18): the offer's life, and the claims and redemptions staff make.
  'promotion.created',
  'promotion.updated',
  'promotion.published',
  'promotion.ended',
  'promotion.duplicated',
  'promotion.archived',
  'promotion.deleted',
  'promotion.claimed',
  'promotion.redeemed',
  'promotion.sent',
  // Consent (issue 28): a patient subscribed again from the unsubscribe page.
  'patient.resubscribed',
  // Issue 29: two patients merged into one (the kept one and the merged one, what moved).
  'patient.merged',
] as const

/** One of {@link AUDIT_ACTIONS}. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

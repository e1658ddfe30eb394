/**
 * The audit trail's actions, and nothing else: the activity log's address (its
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
  // The front desk: visits, their undo, redemption codes and the CSV exports.
  'visit.recorded',
  'visit.undone',
  'redemption.code_sent',
  // A manager's approval of a price above the catalogue's or points above the ceiling.
  'visit.approved',
  'report.exported',
  // The patient import: one event per chunk, its counts only.
  'patients.imported',
  // Self-service
  'password.changed',
  'user.role_changed',
  'user.deactivated',
  'user.reactivated',
  'user.profile_updated',
  'activity.viewed',
  // Settings and My Profile: the practice's details, a member's verified phone.
  'practice.details_changed',
  'user.phone_changed',
  // Uploads: the practice logo and the own avatar.
  'file.uploaded',
  'file.deleted',
  'practice.logo_changed',
  'practice.logo_removed',
  'user.avatar_changed',
  'user.avatar_removed',
  // The subscription in Settings
  'subscription.cancel_scheduled',
  'subscription.resumed',
  'subscription.card_changed',
  // Promotions: the offer's life, and the claims and redemptions staff make.
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
  // Consent: a patient subscribed again from the unsubscribe page.
  'patient.resubscribed',
  // Two patients merged into one (the kept one and the merged one, what moved).
  'patient.merged',
  // The Nextech integration: an Admin's test of the connection, with its outcome; new fields;
  // disconnecting; each sync run (what it changed); patients it linked or created; review
  // decisions and service codes mapped.
  'integration.tested',
  'integration.updated',
  'integration.disconnected',
  'nextech.synced',
  'nextech.points_posted',
  'nextech.backfilled',
  'nextech.patient_linked',
  'nextech.patient_created',
  'nextech.review_resolved',
  'nextech.code_mapped',
  // Memberships: the practice's payment account, plans, and each change staff make to a
  // patient's membership (billing runs write the membership's own timeline instead).
  'payments.connected',
  'membership_plan.created',
  'membership_plan.updated',
  'membership_plan.archived',
  'membership.enrolled',
  'membership.changed',
  // The patient's wallet: what a patient did with their own session (no staff member).
  'wallet.signed_in',
  'wallet.signed_out',
  'wallet.locked',
  'wallet.consent_changed',
  'wallet.card_updated',
  'wallet.membership_cancelled',
  'wallet.membership_paused',
] as const

/** One of {@link AUDIT_ACTIONS}. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

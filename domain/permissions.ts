/**
 * Who may do what in a practice: one matrix, read by the server to enforce
 * every route and by the app to hide what the server would refuse. A refusal names what is
 * missing, in a sentence the person can act on.
 */

/** The roles of a practice's staff, most powerful first. `position` is a job title, not a role. */
export const ROLES = ['Admin', 'Manager', 'Staff'] as const
export type Role = (typeof ROLES)[number]

/** The permissions the product knows. */
export const PERMISSIONS = [
  'patients.read',
  'patients.write',
  'patients.archive',
  'patients.import',
  'patients.merge',
  'visits.record',
  'visits.approve',
  'redeem.withCode',
  'redeem.override',
  'points.adjust',
  'promotions.manage',
  'catalogue.read',
  'catalogue.manage',
  'reports.money',
  'practice.settings',
  'subscription.manage',
  'personnel.manage',
  'activity.read',
  'memberships.plans',
  'memberships.enrol',
  'memberships.cancelNow',
  'payments.connect',
] as const
export type Permission = (typeof PERMISSIONS)[number]

const everyone: readonly Role[] = ['Admin', 'Manager', 'Staff']
const managers: readonly Role[] = ['Admin', 'Manager']
const admins: readonly Role[] = ['Admin']

/** The matrix: which roles hold each permission. */
export const PERMISSION_MATRIX: Record<Permission, readonly Role[]> = {
  'patients.read': everyone,
  'patients.write': everyone,
  'patients.archive': managers,
  'patients.import': managers,
  'patients.merge': managers,
  'visits.record': everyone,
  'visits.approve': managers,
  'redeem.withCode': everyone,
  'redeem.override': managers,
  'points.adjust': managers,
  'promotions.manage': managers,
  'catalogue.read': everyone,
  'catalogue.manage': managers,
  'reports.money': managers,
  'practice.settings': admins,
  'subscription.manage': admins,
  'personnel.manage': admins,
  'activity.read': admins,
  'memberships.plans': managers,
  'memberships.enrol': everyone,
  'memberships.cancelNow': managers,
  'payments.connect': admins,
}

/** What a refusal says: the missing role and the action, e.g. "Only a manager or an admin can adjust points." */
export const PERMISSION_REFUSALS: Record<Permission, string> = {
  'patients.read': 'Only staff of this practice can see its patients.',
  'patients.write': 'Only staff of this practice can add or edit its patients.',
  'patients.archive': 'Only a manager or an admin can archive or restore a patient.',
  'patients.import': 'Only a manager or an admin can import patients from a file.',
  'patients.merge': 'Only a manager or an admin can review possible duplicates and merge patients.',
  'visits.record': 'Only staff of this practice can record a visit.',
  'visits.approve':
    "Only a manager or an admin can approve a price above the catalogue's or points above the programme's ceiling.",
  'redeem.withCode': 'Only staff of this practice can redeem points.',
  'redeem.override': "Only a manager or an admin can redeem without the patient's code.",
  'points.adjust': 'Only a manager or an admin can adjust or reverse points.',
  'promotions.manage': 'Only a manager or an admin can create, change or send promotions.',
  'catalogue.read': 'Only staff of this practice can see its catalogue.',
  'catalogue.manage': 'Only a manager or an admin can change the catalogue.',
  'reports.money': 'Only a manager or an admin can see money figures, reports and exports.',
  'practice.settings': 'Only an admin can change the practice settings.',
  'subscription.manage': 'Only an admin can see or change the subscription and its card.',
  'personnel.manage': 'Only an admin can manage personnel.',
  'activity.read': 'Only an admin can see the activity log.',
  'memberships.plans': 'Only a manager or an admin can build, change or archive membership plans.',
  'memberships.enrol': 'Only staff of this practice can enrol its patients in a membership.',
  'memberships.cancelNow':
    'Only a manager or an admin can end a membership now or refund it; staff can cancel it at the end of the term.',
  'payments.connect': "Only an admin can connect the practice's payment account.",
}

/** Reads a stored `access_rights` value as a role; anything unknown is the least powerful. */
export function toRole(accessRights: string | null | undefined): Role {
  return (ROLES as readonly string[]).includes(accessRights ?? '')
    ? (accessRights as Role)
    : 'Staff'
}

/** Whether `role` holds `permission`. */
export function can(role: Role, permission: Permission): boolean {
  return PERMISSION_MATRIX[permission].includes(role)
}

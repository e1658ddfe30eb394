/**
 * The activity log (Settings): the audit trail's actions, and each
 * event in words for the practice's Admin ("Alex O'Hara adjusted Jamie Lopez's points by +500:
 * birthday"). The trail itself stores ids and counts, never personal values; the names are read
 * when the log is shown, so a renamed patient reads under the new name.
 */
import * as v from 'valibot'
import { AUDIT_ACTIONS, type AuditAction } from '#domain/audit-actions.ts'
import { pageSchema } from '#domain/paging.ts'
import { PERMISSION_REFUSALS, type Permission } from '#domain/permissions.ts'
import { pointsText, signedPoints } from '#domain/points.ts'
import { cardLabel, subscriptionDate } from '#domain/subscription.ts'

export { AUDIT_ACTIONS, type AuditAction } from '#domain/audit-actions.ts'

/** The name of each action in the log's filter, grouped by what it is about. */
export const ACTION_LABELS: Record<AuditAction, { group: string; label: string }> = {
  'signin.success': { group: 'Sign-in', label: 'Signed in' },
  'signin.failure': { group: 'Sign-in', label: 'Sign-in failed' },
  'session.logout': { group: 'Sign-in', label: 'Signed out' },
  'password_reset.requested': { group: 'Sign-in', label: 'Asked for a password reset' },
  'password_reset.used': { group: 'Sign-in', label: 'Reset the password' },
  'password.changed': { group: 'Sign-in', label: 'Changed the password' },
  'patient.viewed': { group: 'Patients', label: 'Opened a profile' },
  'patient.created': { group: 'Patients', label: 'Added a patient' },
  'patient.updated': { group: 'Patients', label: "Changed a patient's details" },
  'patient.archived': { group: 'Patients', label: 'Archived a patient' },
  'patient.restored': { group: 'Patients', label: 'Restored a patient' },
  'patients.imported': { group: 'Patients', label: 'Imported patients' },
  'patient.resubscribed': { group: 'Patients', label: 'Subscribed again to e-mails' },
  'patient.merged': { group: 'Patients', label: 'Merged two patients' },
  'integration.tested': { group: 'Practice', label: 'Tested the Nextech connection' },
  'integration.updated': { group: 'Practice', label: 'Changed the Nextech connection' },
  'integration.disconnected': { group: 'Practice', label: 'Disconnected Nextech' },
  'nextech.synced': { group: 'Nextech', label: 'Synced with Nextech' },
  'payments.connected': { group: 'Practice', label: 'Connected the payment account' },
  'membership_plan.created': { group: 'Memberships', label: 'Built a membership plan' },
  'membership_plan.updated': { group: 'Memberships', label: 'Changed a membership plan' },
  'membership_plan.archived': { group: 'Memberships', label: 'Archived a membership plan' },
  'membership.enrolled': { group: 'Memberships', label: 'Enrolled a patient in a membership' },
  'membership.changed': { group: 'Memberships', label: "Changed a patient's membership" },
  'nextech.points_posted': { group: 'Nextech', label: 'Awarded points for Nextech bills' },
  'nextech.backfilled': { group: 'Nextech', label: 'Awarded points for older Nextech bills' },
  'nextech.patient_linked': { group: 'Nextech', label: 'Linked a Nextech patient' },
  'nextech.patient_created': { group: 'Nextech', label: 'Added a patient from Nextech' },
  'nextech.review_resolved': { group: 'Nextech', label: 'Resolved a Nextech review item' },
  'nextech.code_mapped': { group: 'Nextech', label: 'Mapped a Nextech service code' },
  'ledger.posted': { group: 'Points', label: 'Posted points' },
  'visit.recorded': { group: 'Points', label: 'Recorded a visit' },
  'visit.undone': { group: 'Points', label: 'Undid a visit' },
  'redemption.code_sent': { group: 'Points', label: 'Sent a redemption code' },
  'visit.approved': { group: 'Points', label: "Approved a visit's prices or points" },
  'appointment.created': { group: 'Appointments', label: 'Booked an appointment' },
  'appointment.updated': { group: 'Appointments', label: 'Rescheduled an appointment' },
  'appointment.cancelled': { group: 'Appointments', label: 'Cancelled an appointment' },
  'appointment.deleted': { group: 'Appointments', label: 'Deleted an appointment' },
  'invitation.created': { group: 'Personnel', label: 'Invited a colleague' },
  'invitation.used': { group: 'Personnel', label: 'Registered from an invitation' },
  'user.role_changed': { group: 'Personnel', label: "Changed a colleague's role" },
  'user.deactivated': { group: 'Personnel', label: 'Deactivated a colleague' },
  'user.reactivated': { group: 'Personnel', label: 'Reactivated a colleague' },
  'user.profile_updated': { group: 'Personnel', label: 'Updated their profile' },
  'user.phone_changed': { group: 'Personnel', label: 'Changed their phone (verified by SMS)' },
  'permission.refused': { group: 'Personnel', label: 'Was refused for a missing permission' },
  'signup.registered': { group: 'Practice', label: 'Signed the practice up' },
  'payment.completed': { group: 'Practice', label: 'Paid the subscription' },
  'practice.rules_changed': { group: 'Practice', label: 'Changed the programme rules' },
  'practice.details_changed': { group: 'Practice', label: 'Changed the practice details' },
  'report.exported': { group: 'Practice', label: 'Exported a CSV file' },
  'activity.viewed': { group: 'Practice', label: 'Opened the activity log' },
  'file.uploaded': { group: 'Practice', label: 'Uploaded an image' },
  'file.deleted': { group: 'Practice', label: 'Deleted an uploaded image' },
  'practice.logo_changed': { group: 'Practice', label: 'Changed the practice logo' },
  'practice.logo_removed': { group: 'Practice', label: 'Removed the practice logo' },
  'user.avatar_changed': { group: 'Personnel', label: 'Changed their avatar' },
  'user.avatar_removed': { group: 'Personnel', label: 'Removed their avatar' },
  'subscription.cancel_scheduled': {
    group: 'Practice',
    label: 'Set the subscription to end',
  },
  'subscription.resumed': { group: 'Practice', label: 'Kept the subscription' },
  'subscription.card_changed': { group: 'Practice', label: 'Changed the card on file' },
  'promotion.created': { group: 'Promotions', label: 'Created an offer' },
  'promotion.updated': { group: 'Promotions', label: 'Changed an offer' },
  'promotion.published': { group: 'Promotions', label: 'Published an offer' },
  'promotion.ended': { group: 'Promotions', label: 'Ended an offer' },
  'promotion.duplicated': { group: 'Promotions', label: 'Duplicated an offer' },
  'promotion.archived': { group: 'Promotions', label: 'Archived an offer' },
  'promotion.deleted': { group: 'Promotions', label: 'Deleted a draft offer' },
  'promotion.claimed': { group: 'Promotions', label: 'Claimed an offer for a patient' },
  'promotion.redeemed': { group: 'Promotions', label: 'Redeemed an offer' },
  'promotion.sent': { group: 'Promotions', label: 'Sent an offer to patients' },
  'wallet.signed_in': { group: 'Wallet', label: 'A patient signed in to the wallet' },
  'wallet.signed_out': { group: 'Wallet', label: 'A patient signed out of the wallet' },
  'wallet.locked': { group: 'Wallet', label: 'Wallet sign-in locked after wrong codes' },
  'wallet.consent_changed': { group: 'Wallet', label: 'A patient changed their consent' },
  'wallet.card_updated': { group: 'Wallet', label: 'A patient updated their card' },
  'wallet.membership_cancelled': { group: 'Wallet', label: 'A patient cancelled their membership' },
  'wallet.membership_paused': { group: 'Wallet', label: 'A patient paused their membership' },
}

/** The names an event's ids stand for, read when the log is shown. */
export type ActivityNames = {
  /** Who did it; null when no staff member is known (a sign-in as an unknown address). */
  actor: string | null
  /** The patient it concerns (`details.patient_id`). */
  patient: string | null
  /** The colleague it concerns (`details.member`). */
  member: string | null
  /** The patient merged into `patient` (`details.merged_patient_id`). */
  mergedPatient?: string | null | undefined
  /** The ledger entry it posted (`details.entry_id`). */
  entry: { kind: string; points: number; reason: string | null } | null
}

const points = (n: number) => pointsText(Math.abs(n))
const signed = (n: number) => signedPoints(n, '-')
const num = (value: unknown) => (typeof value === 'number' ? value : Number(value ?? 0) || 0)
const text = (value: unknown) => (typeof value === 'string' ? value : '')
/** An offer's title as the audit details keep it, quoted. */
const offer = (details: Record<string, unknown>) =>
  text(details.title) ? `“${text(details.title)}”` : 'an offer'
const dollars = (cents: number) =>
  (cents / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' })
const capital = (name: string) => `${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`
const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`)

/** The rules' names in the audit details (`*_before`/`*_after`), in words. */
const RULE_NAMES: Record<string, string> = {
  point_value_cents: 'point value (cents)',
  points_per_dollar: 'points per dollar',
  joining_bonus: 'joining bonus',
  referral_bonus: 'referral bonus',
  expiry_months: 'expiry (months)',
  redemption_threshold: 'code threshold',
  max_points_per_line: 'points ceiling per line',
}

/** The programme rules a change touched, "points per dollar 1 → 2, joining bonus 0 → 100". */
function ruleChanges(details: Record<string, unknown>): string {
  return Object.keys(details)
    .filter((key) => key.endsWith('_before'))
    .map((key) => {
      const rule = key.slice(0, -'_before'.length)
      return `${RULE_NAMES[rule] ?? rule.replaceAll('_', ' ')} ${String(details[key])} → ${String(details[`${rule}_after`])}`
    })
    .join(', ')
}

/** A ledger entry in the log's words, as a continuation of "Alex O'Hara …". */
function posting(entry: NonNullable<ActivityNames['entry']>, patient: string): string {
  const why = entry.reason ? `: ${entry.reason}` : ''
  switch (entry.kind) {
    case 'adjust':
      return `adjusted ${possessive(patient)} points by ${signed(entry.points)}${why}`
    case 'reverse':
      return `reversed ${signed(entry.points)} on ${possessive(patient)} points${why}`
    case 'redeem':
      return `redeemed ${points(entry.points)} of ${possessive(patient)}${why}`
    case 'earn':
      return `awarded ${patient} ${points(entry.points)}${why}`
    case 'bonus':
      return `gave ${patient} a bonus of ${points(entry.points)}${why}`
    default:
      return `posted ${signed(entry.points)} to ${possessive(patient)} points${why}`
  }
}

/**
 * One event in a sentence, from its action, its stored details and the names its ids stand for.
 * An id whose row is gone reads as "a patient" or "a colleague"; an unknown action still reads.
 */
export function describeActivity(
  action: string,
  details: Record<string, unknown>,
  names: ActivityNames,
): string {
  // What the Nextech sync did on its own reads as its doing.
  const bySync = !names.actor && (details.source === 'nextech' || action.startsWith('nextech.'))
  const who = names.actor ?? (bySync ? 'The Nextech sync' : 'Someone')
  const patient = names.patient ?? 'a patient'
  const member = names.member ?? 'a colleague'
  const sentence = (rest: string) => `${who} ${rest}.`
  switch (action as AuditAction) {
    case 'signin.success':
      return sentence(details.remember ? 'signed in (Remember me)' : 'signed in')
    case 'signin.failure':
      return names.actor ? `A sign-in as ${names.actor} failed.` : 'A sign-in failed.'
    case 'session.logout':
      return sentence('signed out')
    case 'password_reset.requested':
      return sentence('asked for a password reset link')
    case 'password_reset.used':
      return sentence('set a new password from a reset link')
    case 'password.changed':
      return sentence('changed their password')
    case 'invitation.created':
      return sentence(
        `invited ${text(details.invited_email) || 'a colleague'}${details.position ? ` as ${text(details.position)}` : ''}`,
      )
    case 'invitation.used':
      return sentence('registered from an invitation')
    case 'signup.registered':
      return sentence('signed the practice up')
    case 'payment.completed':
      return sentence('paid the subscription')
    case 'permission.refused': {
      const refusal = PERMISSION_REFUSALS[details.permission as Permission]
      return `${who} was refused${refusal ? `: ${refusal}` : '.'}`
    }
    case 'ledger.posted':
      return names.entry
        ? sentence(posting(names.entry, patient))
        : sentence(`posted points to ${possessive(patient)} account`)
    case 'patient.viewed':
      return sentence(`opened ${possessive(patient)} profile`)
    case 'patient.created':
      return sentence(`added ${patient}`)
    case 'patient.updated':
      return sentence(`changed ${possessive(patient)} details`)
    case 'patient.archived':
      return sentence(`archived ${patient}`)
    case 'patient.restored':
      return sentence(`restored ${patient}`)
    case 'integration.tested':
      return sentence(
        details.outcome === 'connected'
          ? 'tested the Nextech connection: it works'
          : `tested the Nextech connection: it failed (${text(details.reason).replaceAll('_', ' ')})`,
      )
    case 'integration.updated':
      return sentence(
        `changed the Nextech connection${text(details.practice_id) ? ` (practice ID ${text(details.practice_id)})` : ''}`,
      )
    case 'integration.disconnected':
      return sentence('disconnected Nextech')
    case 'payments.connected':
      return sentence(`connected the practice's payment account (${text(details.account_id)})`)
    case 'membership_plan.created':
      return sentence(`built the membership plan “${text(details.name)}”`)
    case 'membership_plan.updated':
      return sentence(
        `changed the membership plan “${text(details.name)}”${num(details.version) > 1 ? ` (now version ${num(details.version)})` : ''}`,
      )
    case 'membership_plan.archived':
      return sentence(`archived the membership plan “${text(details.name)}”`)
    case 'membership.enrolled':
      return sentence(
        `enrolled ${patient} in “${text(details.plan)}” and charged ${dollars(num(details.amount_cents))}`,
      )
    case 'membership.changed':
      return sentence(`changed ${possessive(patient)} membership: ${text(details.change)}`)
    case 'nextech.synced':
      return details.outcome === 'done'
        ? sentence(
            `synced with Nextech: ${num(details.patients_created)} patients added, ${num(details.patients_linked)} linked, ${num(details.patients_updated)} updated, ${num(details.appointments)} appointments, ${num(details.bills)} bills, ${points(num(details.points_awarded))} awarded and ${points(num(details.points_reversed))} reversed`,
          )
        : sentence(`synced with Nextech: it failed (${text(details.reason).replaceAll('_', ' ')})`)
    case 'nextech.points_posted':
      return sentence(
        `awarded ${points(num(details.points))} for ${num(details.entries).toLocaleString('en-US')} bill line${num(details.entries) === 1 ? '' : 's'} from Nextech, to ${num(details.patients).toLocaleString('en-US')} patient${num(details.patients) === 1 ? '' : 's'}`,
      )
    case 'nextech.backfilled':
      return sentence(
        `awarded ${points(num(details.points))} for ${num(details.lines).toLocaleString('en-US')} Nextech bill line${num(details.lines) === 1 ? '' : 's'} dated from ${text(details.since)} on`,
      )
    case 'nextech.patient_linked':
      return sentence(`linked ${patient} to Nextech patient ${text(details.nextech_id)}`)
    case 'nextech.patient_created':
      return sentence(`added ${patient} from Nextech (patient ${text(details.nextech_id)})`)
    case 'nextech.review_resolved':
      return sentence(
        `resolved a Nextech review item (${text(details.kind)}): ${text(details.resolution)}${names.patient ? `, ${patient}` : ''}`,
      )
    case 'nextech.code_mapped':
      return sentence(
        `mapped the Nextech service code ${text(details.code)} to ${text(details.item)}${details.apply_to_synced ? ', bills already synced included' : ''}`,
      )
    case 'patient.merged': {
      const entries = num(details.ledger_entries)
      const moved = entries
        ? `, moving ${entries.toLocaleString('en-US')} ledger entr${entries === 1 ? 'y' : 'ies'}`
        : ''
      return sentence(`merged ${names.mergedPatient ?? 'a patient'} into ${patient}${moved}`)
    }
    case 'patients.imported': {
      const created = num(details.created)
      const others = num(details.rejected) + num(details.already_imported)
      // The importer's statement of consent for the whole file, who and when.
      const consent = details.email_consent_stated
        ? ', stating that every patient in the file agreed to receive marketing e-mail'
        : ''
      // The opening balances the chunk posted, each also a ledger posting of its own.
      const posted = num(details.points_posted)
      const opening = posted ? `, with ${points(posted)} of opening balances` : ''
      return sentence(
        `imported ${created.toLocaleString('en-US')} patient${created === 1 ? '' : 's'} from a CSV file${others ? ` (${others.toLocaleString('en-US')} row${others === 1 ? '' : 's'} not imported)` : ''}${opening}${consent}`,
      )
    }
    case 'patient.resubscribed': {
      const name = `${patient[0]?.toUpperCase() ?? ''}${patient.slice(1)}`
      return `${name} subscribed again to the practice's e-mails from the unsubscribe page.`
    }
    case 'practice.rules_changed': {
      const changes = ruleChanges(details)
      return sentence(`changed the programme rules${changes ? `: ${changes}` : ''}`)
    }
    case 'appointment.created':
      return sentence(`booked an appointment for ${patient}`)
    case 'appointment.updated':
      return sentence(`changed an appointment of ${patient}`)
    case 'appointment.cancelled':
      return sentence(`cancelled an appointment of ${patient}`)
    case 'appointment.deleted':
      return sentence(`deleted an appointment of ${patient}`)
    case 'visit.recorded': {
      const parts = [
        num(details.earned) ? `${points(num(details.earned))} earned` : '',
        num(details.redeemed) ? `${points(num(details.redeemed))} redeemed` : '',
        num(details.bonus) ? `${points(num(details.bonus))} bonus` : '',
        // An offer with value, and what it took off the visit.
        num(details.discount_cents)
          ? `${dollars(num(details.discount_cents))} off with the offer ${offer(details)}`
          : details.promotion_id
            ? `the offer ${offer(details)} redeemed`
            : '',
      ].filter(Boolean)
      const approval = details.member
        ? ` (approved by ${member}${text(details.approval_reason) ? `: ${text(details.approval_reason)}` : ''})`
        : ''
      return sentence(
        `recorded a visit for ${patient}${parts.length ? `: ${parts.join(', ')}` : ''}${details.override ? ' (without the code)' : ''}${approval}`,
      )
    }
    case 'visit.approved':
      return sentence(
        `approved the prices or points of a visit for ${patient}${names.member ? ` as ${names.member}` : ''}${text(details.reason) ? `: ${text(details.reason)}` : ''}`,
      )
    case 'visit.undone':
      return sentence(`undid a visit of ${patient}`)
    case 'redemption.code_sent':
      return sentence(`sent ${patient} a redemption code`)
    case 'report.exported':
      return sentence(`exported the ${text(details.report) || 'report'} CSV`)
    case 'user.role_changed':
      return sentence(
        `changed ${possessive(member)} role${details.from ? ` from ${text(details.from)}` : ''}${details.to ? ` to ${text(details.to)}` : ''}`,
      )
    case 'user.deactivated':
      return sentence(`deactivated ${member}`)
    case 'user.reactivated':
      return sentence(`reactivated ${member}`)
    case 'user.profile_updated':
      return sentence(
        `updated their profile${details.fields ? ` (${text(details.fields).replaceAll(',', ', ').replaceAll('_', ' ')})` : ''}`,
      )
    case 'activity.viewed':
      return sentence('opened the activity log')
    case 'practice.details_changed':
      return sentence(
        `changed the practice details${details.fields ? ` (${text(details.fields).replaceAll(',', ', ').replaceAll('_', ' ')})` : ''}`,
      )
    case 'user.phone_changed':
      return sentence('changed their phone number, verified by an SMS code')
    case 'file.uploaded':
      return sentence(`uploaded ${details.purpose === 'logo' ? 'a logo' : 'an avatar'} image`)
    case 'file.deleted':
      return sentence('deleted an uploaded image')
    case 'practice.logo_changed':
      return sentence('changed the practice logo')
    case 'practice.logo_removed':
      return sentence('removed the practice logo')
    case 'user.avatar_changed':
      return sentence('changed their avatar')
    case 'user.avatar_removed':
      return sentence('removed their avatar')
    case 'subscription.cancel_scheduled':
      return sentence(
        details.ends_on
          ? `set the subscription to end on ${subscriptionDate(text(details.ends_on))}`
          : 'set the subscription to end at the end of the term',
      )
    case 'subscription.resumed':
      return sentence(
        details.renews_on
          ? `kept the subscription: it renews on ${subscriptionDate(text(details.renews_on))}`
          : 'kept the subscription',
      )
    case 'subscription.card_changed':
      return sentence(
        details.last4
          ? `changed the card on file to ${cardLabel({ brand: text(details.brand), last4: text(details.last4) })}`
          : 'changed the card on file',
      )
    case 'promotion.created':
      return sentence(`created the offer ${offer(details)}`)
    case 'promotion.updated':
      return sentence(
        `changed the offer ${offer(details)}${details.fields ? ` (${text(details.fields).replaceAll(',', ', ').replaceAll('_', ' ')})` : ''}`,
      )
    case 'promotion.published':
      return sentence(`published the offer ${offer(details)}`)
    case 'promotion.ended':
      return sentence(`ended the offer ${offer(details)}`)
    case 'promotion.duplicated':
      return sentence(`duplicated the offer ${offer(details)}`)
    case 'promotion.archived':
      return sentence(`archived the offer ${offer(details)}`)
    case 'promotion.deleted':
      return sentence(`deleted the draft offer ${offer(details)}`)
    case 'promotion.claimed':
      return names.actor
        ? sentence(`claimed the offer ${offer(details)} for ${patient}`)
        : `${patient[0]?.toUpperCase() ?? ''}${patient.slice(1)} claimed the offer ${offer(details)}.`
    case 'promotion.redeemed':
      return sentence(`redeemed the offer ${offer(details)} for ${patient}`)
    case 'promotion.sent':
      return sentence(
        `sent the offer ${offer(details)} to ${num(details.sent).toLocaleString('en-US')} ${num(details.sent) === 1 ? 'patient' : 'patients'} by e-mail`,
      )
    case 'wallet.signed_in':
      return `${capital(patient)} signed in to the wallet with a code sent by ${details.channel === 'sms' ? 'SMS' : 'e-mail'}.`
    case 'wallet.signed_out':
      return `${capital(patient)} signed out of the wallet.`
    case 'wallet.locked':
      return `The wallet's sign-in was locked for ${num(details.minutes)} minutes after ${num(details.tries)} wrong codes.`
    case 'wallet.consent_changed':
      return `${capital(patient)} chose from the wallet: e-mails ${details.email_subscription ? 'on' : 'off'}, texts ${details.sms_subscription ? 'on' : 'off'}.`
    case 'wallet.card_updated':
      return `${capital(patient)} updated the membership's card from the wallet${details.charged ? `, and ${dollars(num(details.amount_cents))} was charged` : ''}.`
    case 'wallet.membership_cancelled':
      return `${capital(patient)} cancelled the membership from the wallet${text(details.change) ? `: ${text(details.change).replace(/[.]$/, '')}` : ''}.`
    case 'wallet.membership_paused':
      return `${capital(patient)} paused the membership from the wallet${text(details.change) ? `: ${text(details.change).replace(/[.]$/, '')}` : ''}.`
    default:
      return sentence(`did ${action}`)
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/

/**
 * The instants a `from` and a `to` stand for. A day (`2026-11-24`) is a UTC day, `to` inclusive;
 * an instant (`2026-11-24T05:00:00Z`) is taken as it is, `to` exclusive, so the app can send the
 * bounds of the person's own days.
 */
export function activityRange(from?: string, to?: string): { start?: Date; end?: Date } {
  const range: { start?: Date; end?: Date } = {}
  if (from) range.start = new Date(DAY.test(from) ? `${from}T00:00:00Z` : from)
  if (to) {
    if (DAY.test(to)) {
      const end = new Date(`${to}T00:00:00Z`)
      end.setUTCDate(end.getUTCDate() + 1)
      range.end = end
    } else {
      range.end = new Date(to)
    }
  }
  return range
}

const dayOrInstant = (label: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => DAY.test(value) || INSTANT.test(value),
        `${label} must be a date written YYYY-MM-DD.`,
      ),
      v.check(
        (value) => !Number.isNaN(Date.parse(DAY.test(value) ? `${value}T00:00:00Z` : value)),
        `${label} is not a date.`,
      ),
    ),
  )

const wholeNumber = (label: string, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, `${label} must be a whole number.`),
    v.transform(Number),
    v.minValue(1, `${label} must be at least 1.`),
    v.maxValue(max, `${label} can be at most ${max.toLocaleString('en-US')}.`),
  )

/** The query of `GET /audit`: who, what, from and to (see {@link activityRange}), which page. */
export const ActivityQuerySchema = v.pipe(
  v.object({
    actor: v.optional(wholeNumber('actor', 2_147_483_647)),
    action: v.optional(
      v.picklist(AUDIT_ACTIONS, 'action must be one of the actions the log records.'),
    ),
    from: dayOrInstant('from'),
    to: dayOrInstant('to'),
    page: v.optional(wholeNumber('page', 100_000), '1'),
    pageSize: v.optional(wholeNumber('pageSize', 100), '25'),
  }),
  v.check((query) => {
    const { start, end } = activityRange(query.from, query.to)
    return !start || !end || start < end
  }, 'The start date is after the end date.'),
)
export type ActivityQuery = v.InferOutput<typeof ActivityQuerySchema>

/** One event of the log. */
export const ActivityEventSchema = v.object({
  id: v.number(),
  created_at: v.string(),
  action: v.string(),
  /** The event in words. */
  summary: v.string(),
  actor: v.nullable(v.object({ id: v.number(), first_name: v.string(), last_name: v.string() })),
  /** The patient it concerns, for a link to the profile. */
  patient_id: v.nullable(v.number()),
  /** Where the request came from. */
  ip: v.nullable(v.string()),
})
export type ActivityEvent = v.InferOutput<typeof ActivityEventSchema>

/** A page of the log, newest first. */
export const ActivityPageSchema = pageSchema(ActivityEventSchema)
export type ActivityPage = v.InferOutput<typeof ActivityPageSchema>

/** The activity log's filter as the app's address holds it (empty values left out). */
export type ActivityFilter = {
  actor?: number | undefined
  action?: string | undefined
  from?: string | undefined
  to?: string | undefined
  page?: number | undefined
}

/**
 * What the checkout's use cases share: its dependencies, the programme's rules, the patient and
 * visit look-ups, and the ledger entries as the API answers them.
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import { LEDGER_MESSAGES, type ProgrammeRules } from '#domain/ledger.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import type { Permission } from '#domain/permissions.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { ledgerEntries, patients, practices, users, visits } from '#server/db/schema.ts'
import { conflict, DomainError, notFound, rejected } from '#server/lib/domain-error.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'
import { type Ledger, type LedgerEntryRow, toAnswer } from '#server/modules/ledger/index.ts'

export type Executor = Database | Transaction

/** What the checkout runs on. */
export type CheckoutDeps = {
  db: Database
  now: () => Date
  outbound: Pick<OutboundQueue, 'enqueue' | 'kick'>
  /** Where patients open the links of their e-mail (the points statement's unsubscribe link). */
  publicUrl: string
  /** The server's signing secret, for a manager's approval of a visit. */
  secret: string
}

/** Refused on its merits (422): a wrong code, an archived item. */
export const unprocessable = (message: string) => rejected(message)

/**
 * The caller's role lacks `permission` for what the request asks (a redemption without the
 * patient's code): answered 403 like any refusal, and recognised by the routes, which record
 * the refused permission in the audit trail as the permission middleware does.
 */
export class PermissionRefusal extends DomainError {
  readonly permission: Permission

  constructor(permission: Permission, message: string) {
    super('not-allowed', message)
    this.permission = permission
  }
}

export const day = (date: Date) => date.toISOString().slice(0, 10)

export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

export type Rules = Pick<
  ProgrammeRules,
  'points_per_dollar' | 'point_value_cents' | 'redemption_code_threshold' | 'max_points_per_line'
>

/** How a redemption was allowed: the patient's code (to consume) or a manager's override. */
export type Consent =
  | { kind: 'none' }
  | { kind: 'code'; codeId: string }
  | { kind: 'override'; reason: string }

export type RedemptionRequest = {
  points?: number | undefined
  promotion_id?: number | undefined
  /** Cents paid from the membership bank (always with the patient's code or an override). */
  bank_cents?: number | undefined
  verification?: { authyId: string; code: string } | undefined
  override?: { reason: string } | undefined
}

export type PromotionRow = {
  id: number
  title: string
  points: number
  points_cost: number
  /** Its value: an amount or a percentage off the procedures it names. */
  discount_cents: number | null
  discount_percent: number | null
  procedure_ids: number[]
}

/** What a code is for: a number of points, a claimed offer, cents from the bank, or several. */
export type CodeAmount = {
  points?: number | undefined
  promotion_id?: number | undefined
  bank_cents?: number | undefined
}

/** What a visit or redemption posting reports for the audit trail (never personal values). */
export type PostingSummary = {
  patient_id: number
  earned: number
  redeemed: number
  bonus: number
  override: boolean
  /** The manager who approved the visit's prices or points, and why. */
  approved_by?: number | null
  approval_reason?: string | null
  /** What a redeemed offer took off the visit, in cents, and the offer. */
  discount_cents?: number
  promotion_id?: number | null
  offer_title?: string | null
}

/** A posting's audit details: the summary's figures, the approver and the offer, and `extra`. */
export function postingAuditDetails(summary: PostingSummary, extra: Record<string, number>) {
  return {
    patient_id: summary.patient_id,
    earned: summary.earned,
    redeemed: summary.redeemed,
    bonus: summary.bonus,
    override: summary.override,
    // The approving manager is the event's colleague (`member`), named in the activity log.
    ...(summary.approved_by
      ? { member: summary.approved_by, approval_reason: summary.approval_reason ?? '' }
      : {}),
    // The offer redeemed at the visit and what it took off, for the activity log.
    ...(summary.promotion_id
      ? {
          promotion_id: summary.promotion_id,
          discount_cents: summary.discount_cents ?? 0,
          ...(summary.offer_title ? { title: summary.offer_title } : {}),
        }
      : {}),
    ...extra,
  }
}

export async function readRules(ex: Executor, practiceId: number): Promise<Rules> {
  const [row] = await ex
    .select({
      points_per_dollar: practices.points_per_dollar,
      point_value_cents: practices.point_value_cents,
      redemption_code_threshold: practices.redemption_code_threshold,
      max_points_per_line: practices.max_points_per_line,
    })
    .from(practices)
    .where(eq(practices.id, practiceId))
  if (!row) throw notFound('Practice not found.')
  return row
}

/** What a posting reads of its patient: the balance, the phone for codes, and whether it is live. */
const postingPatientColumns = {
  id: patients.id,
  points: patients.points,
  phone: patients.phone,
  archived_at: patients.archived_at,
  merged_into_id: patients.merged_into_id,
}

/** The patient of the practice (404 otherwise), optionally locked for the transaction. */
export async function patientOf(ex: Executor, practiceId: number, patientId: number, lock = false) {
  const query = ex
    .select(postingPatientColumns)
    .from(patients)
    .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
  const [row] = lock ? await query.for('update') : await query
  if (!row) throw notFound(LEDGER_MESSAGES.patientNotFound)
  // A change that waited for a merge's lock on this patient finds it merged.
  if (lock && row.merged_into_id !== null) throw conflict(MERGE_MESSAGES.mergedPatient)
  return row
}

export async function visitOf(ex: Executor, practiceId: number, visitId: number) {
  const [visit] = await ex
    .select()
    .from(visits)
    .where(and(eq(visits.id, visitId), eq(visits.practice_id, practiceId)))
  if (!visit) throw notFound(VISIT_MESSAGES.visitNotFound)
  return visit
}

/**
 * Refuses an id that is not a patient of the practice (404). A posting reads its patient once,
 * locked, in its transaction; a refusal before the transaction (the offer, the consent) first
 * makes sure of the patient, so that an id of another practice answers 404 whatever else is
 * wrong with the request. Only refusals pay this read.
 */
export async function refuseOtherPatient(ex: Executor, practiceId: number, patientId: number) {
  await patientOf(ex, practiceId, patientId)
}

/**
 * The patient of the practice, locked FOR UPDATE for the rest of `tx` (404 otherwise; 409 when a
 * merge moved it into another record while this waited): the one read of the patient a posting
 * makes, taken first in its transaction (server/db/locks.ts's order: the patient, then the rows
 * that hang off it), with everything the request needs of it, the practice's name included.
 * `OF patients` leaves the practice's row unlocked.
 */
export async function lockPatient(tx: Transaction, practiceId: number, patientId: number) {
  const [row] = await tx
    .select({
      ...postingPatientColumns,
      first_name: patients.first_name,
      email: patients.email,
      email_subscription: patients.email_subscription,
      unsubscribe_id: patients.unsubscribe_id,
      practice_id: patients.practice_id,
      practice_name: practices.practice_name,
    })
    .from(patients)
    .innerJoin(practices, eq(practices.id, patients.practice_id))
    .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
    .for('update', { of: patients })
  if (!row) throw notFound(LEDGER_MESSAGES.patientNotFound)
  // A change that waited for a merge's lock on this patient finds it merged.
  if (row.merged_into_id !== null) throw conflict(MERGE_MESSAGES.mergedPatient)
  return row
}

/** A patient as {@link lockPatient} read it. */
export type LockedPatient = Awaited<ReturnType<typeof lockPatient>>

/** The ledger's postings on a patient whose row the caller's transaction holds. */
export type LockedLedger = ReturnType<Ledger['locked']>

export async function balanceOf(
  ex: Executor,
  practiceId: number,
  patientId: number,
): Promise<number> {
  const [row] = await ex
    .select({ points: patients.points })
    .from(patients)
    .where(and(eq(patients.practice_id, practiceId), eq(patients.id, patientId)))
  return row?.points ?? 0
}

/** Entries with the staff member who made them and the entry that reversed them, if any. */
export async function withAuthors(ex: Executor, entries: LedgerEntryRow[]) {
  const practiceId = entries[0]?.practice_id
  if (practiceId === undefined) return []
  const ids = entries.map((e) => e.id)
  const authorIds = [...new Set(entries.map((e) => e.created_by).filter((id) => id !== null))]
  const [authors, reversals] = await Promise.all([
    authorIds.length === 0
      ? []
      : ex
          .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
          .from(users)
          .where(and(eq(users.practice_id, practiceId), inArray(users.id, authorIds))),
    ex
      .select({ id: ledgerEntries.id, reverses_id: ledgerEntries.reverses_id })
      .from(ledgerEntries)
      .where(
        and(eq(ledgerEntries.practice_id, practiceId), inArray(ledgerEntries.reverses_id, ids)),
      ),
  ])
  const byId = new Map(authors.map((a) => [a.id, a]))
  const reversedBy = new Map(reversals.map((r) => [r.reverses_id, r.id]))
  return entries.map((e) =>
    toAnswer(e, e.created_by ? (byId.get(e.created_by) ?? null) : null, reversedBy.get(e.id)),
  )
}

/** The entries a visit posted (earns, redemption, bonus), oldest first. */
export async function visitEntries(ex: Executor, visit: { id: number; practice_id: number }) {
  return ex
    .select()
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.practice_id, visit.practice_id),
        eq(ledgerEntries.source_type, 'visit'),
        eq(ledgerEntries.source_id, visit.id),
      ),
    )
    .orderBy(asc(ledgerEntries.id))
}

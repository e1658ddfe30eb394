/**
 * The front desk's checkout (issue 17): previews and records visits, redeems points or a claimed
 * promotion with the patient's SMS code or a manager's override, and undoes a visit within 10
 * minutes. Every posting goes through the ledger (server/modules/ledger/service.ts) inside ONE
 * transaction that holds the patient's row lock, so concurrent checkouts run one after the other
 * and cannot overspend, and a replayed idempotency key answers what was written and writes
 * nothing new.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { LEDGER_MESSAGES, type ProgrammeRules, pointsForItem } from '#domain/ledger.ts'
import {
  applyOffer,
  hasValue,
  OFFER_VALUE_MESSAGES,
  type OfferResult,
  offerValueWords,
} from '#domain/offer-value.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import { can, PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { pointsText } from '#domain/points.ts'
import {
  type ApprovalAnswer,
  codeNeeded,
  formatDollars,
  type OfferValuation,
  UNDO_WINDOW_MS,
  VISIT_MESSAGES,
  type VisitAnswer,
  type VisitApproval,
  type VisitItemInput,
  type VisitLine,
  type VisitPreview,
} from '#domain/visits.ts'
import type { AuthUser } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import {
  appointments,
  codelessRedemptions,
  ledgerEntries,
  outboundMessages,
  patientPromotions,
  patients,
  practices,
  procedures,
  products,
  promotions,
  redemptionCodes,
  users,
  visitItems,
  visits,
} from '#server/db/schema.ts'
import { ApiError, conflict, forbidden, notFound } from '#server/http/errors.ts'
import { randomToken } from '#server/lib/random.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'
import { newCode, phoneDigits, VERIFICATION_RULES } from '#server/messaging/verification.ts'
import { createLedger, type LedgerEntryRow, toAnswer } from '#server/modules/ledger/index.ts'
import { patientMail, statementContent } from '#server/modules/patient-mail/index.ts'
import { linesDigest, readApproval, signApproval } from './approval.ts'

type Executor = Database | Transaction

const unprocessable = (message: string) => new ApiError(422, API_ERROR_NAMES.validation, message)

const DAY_MS = 86_400_000
const day = (date: Date) => date.toISOString().slice(0, 10)

/** The reason the reversals of an undone visit carry. */
export const UNDO_REASON = 'Visit undone at the front desk'

function hashCode(id: string, code: string): string {
  return createHash('sha256').update(`redeem:${id}:${code}`).digest('hex')
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

type Rules = Pick<
  ProgrammeRules,
  'points_per_dollar' | 'point_value_cents' | 'redemption_code_threshold' | 'max_points_per_line'
>

/** A priced line, before it is stored, with the catalogue's price of its item. */
type PricedLine = VisitLine & { catalogue_price_cents: number }

/** A line as the API answers it (without the catalogue's price). */
const publicLine = ({ catalogue_price_cents: _, ...line }: PricedLine): VisitLine => line

/**
 * Why these lines need a manager's approval (issue 28), a sentence a reason: a price above the
 * catalogue's, points above the programme's ceiling for one line. Empty when none is needed.
 */
export function approvalReasons(
  lines: readonly PricedLine[],
  rules: Pick<Rules, 'max_points_per_line'>,
): string[] {
  const reasons: string[] = []
  for (const line of lines) {
    if (line.unit_price_cents > line.catalogue_price_cents) {
      reasons.push(
        VISIT_MESSAGES.priceAboveCatalogue(
          line.name,
          formatDollars(line.unit_price_cents),
          formatDollars(line.catalogue_price_cents),
        ),
      )
    }
    if (line.points > rules.max_points_per_line) {
      reasons.push(
        VISIT_MESSAGES.pointsAboveCeiling(line.name, line.points, rules.max_points_per_line),
      )
    }
  }
  return reasons
}

/** How a redemption was allowed: the patient's code (to consume) or a manager's override. */
type Consent =
  | { kind: 'none' }
  | { kind: 'code'; codeId: string }
  | { kind: 'override'; reason: string }

type RedemptionRequest = {
  points?: number | undefined
  promotion_id?: number | undefined
  verification?: { authyId: string; code: string } | undefined
  override?: { reason: string } | undefined
}

type PromotionRow = {
  id: number
  title: string
  points: number
  points_cost: number
  /** Its value (issue 28): an amount or a percentage off the procedures it names. */
  discount_cents: number | null
  discount_percent: number | null
  procedure_ids: number[]
}

/** What a code is for: a number of points, or a claimed offer. */
type CodeAmount = { points?: number | undefined; promotion_id?: number | undefined }

/** What a visit or redemption posting reports for the audit trail (never personal values). */
export type PostingSummary = {
  patient_id: number
  earned: number
  redeemed: number
  bonus: number
  override: boolean
  /** The manager who approved the visit's prices or points (issue 28), and why. */
  approved_by?: number | null
  approval_reason?: string | null
  /** What a redeemed offer took off the visit, in cents, and the offer (issue 28). */
  discount_cents?: number
  promotion_id?: number | null
  offer_title?: string | null
}

export type Checkout = ReturnType<typeof createCheckout>

export function createCheckout(deps: {
  db: Database
  now: () => Date
  outbound: Pick<OutboundQueue, 'enqueue' | 'kick'>
  /** Where patients open the links of their e-mail (the points statement's unsubscribe link). */
  publicUrl: string
  /** The server's signing secret, for a manager's approval of a visit (issue 28). */
  secret: string
}) {
  const { db, now } = deps

  /**
   * Queues the patient's points statement after a visit (PORTAL.md section 6) in the visit's
   * transaction, when the patient has an e-mail and is subscribed ({@link patientMail}'s gate).
   * It leaves when the visit's undo window closes (issue 28): an undo within it deletes it, so a
   * patient is never told of points that were taken back.
   */
  async function queueStatement(
    tx: Transaction,
    patientId: number,
    visitId: number,
    earned: number,
    at: Date,
  ) {
    const [row] = await tx
      .select({
        first_name: patients.first_name,
        email: patients.email,
        email_subscription: patients.email_subscription,
        archived_at: patients.archived_at,
        unsubscribe_id: patients.unsubscribe_id,
        points: patients.points,
        practice_name: practices.practice_name,
      })
      .from(patients)
      .innerJoin(practices, eq(practices.id, patients.practice_id))
      .where(eq(patients.id, patientId))
    if (!row) return
    const message = patientMail(
      deps.publicUrl,
      row,
      row,
      statementContent(row, row, { earned, balance: row.points, visitedAt: at }),
    )
    if (message) {
      await deps.outbound.enqueue(tx, message, {
        sendAt: new Date(at.getTime() + UNDO_WINDOW_MS),
        visitId,
      })
    }
  }

  async function readRules(ex: Executor, practiceId: number): Promise<Rules> {
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

  /** The patient of the practice (404 otherwise), optionally locked for the transaction. */
  async function patientOf(ex: Executor, practiceId: number, patientId: number, lock = false) {
    const query = ex
      .select({
        id: patients.id,
        points: patients.points,
        phone: patients.phone,
        archived_at: patients.archived_at,
        merged_into_id: patients.merged_into_id,
      })
      .from(patients)
      .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
    const [row] = lock ? await query.for('update') : await query
    if (!row) throw notFound(LEDGER_MESSAGES.patientNotFound)
    // A change that waited for a merge's lock on this patient finds it merged (issue 29).
    if (lock && row.merged_into_id !== null) throw conflict(MERGE_MESSAGES.mergedPatient)
    return row
  }

  async function appointmentOf(
    ex: Executor,
    practiceId: number,
    patientId: number,
    appointmentId: number,
    lock = false,
  ) {
    const query = ex
      .select({
        id: appointments.id,
        patient_id: appointments.patient_id,
        status: appointments.status,
      })
      .from(appointments)
      .where(and(eq(appointments.id, appointmentId), eq(appointments.practice_id, practiceId)))
    const [row] = lock ? await query.for('update') : await query
    if (!row) throw notFound(VISIT_MESSAGES.appointmentNotFound)
    if (row.patient_id !== patientId) throw unprocessable(VISIT_MESSAGES.appointmentOtherPatient)
    if (row.status === 'completed') throw conflict(VISIT_MESSAGES.appointmentCompleted)
    if (row.status === 'cancelled') throw conflict(VISIT_MESSAGES.appointmentCancelled)
    return row
  }

  /** When the item last earned this patient points (an earn not reversed since), or null. */
  async function lastAward(
    ex: Executor,
    patientId: number,
    kind: 'procedure' | 'product',
    itemId: number,
  ): Promise<Date | null> {
    const [row] = await ex
      .select({ at: sql<string | Date | null>`max(${ledgerEntries.created_at})` })
      .from(visitItems)
      .innerJoin(ledgerEntries, eq(ledgerEntries.id, visitItems.entry_id))
      .where(
        and(
          eq(visitItems.patient_id, patientId),
          eq(visitItems.kind, kind),
          eq(visitItems.item_id, itemId),
          sql`not exists (select 1 from ${ledgerEntries} r where r.reverses_id = ${ledgerEntries.id})`,
        ),
      )
    return row?.at ? new Date(row.at) : null
  }

  /**
   * Prices the lines and their points under the rules: the item's points per unit × quantity, or
   * the price × points per dollar; an item inside its minimum days between two awards for this
   * patient earns 0 with the day it opens again.
   */
  async function priceLines(
    ex: Executor,
    practiceId: number,
    patientId: number,
    items: VisitItemInput[],
    rules: Rules,
  ): Promise<PricedLine[]> {
    const today = day(now())
    const opensThisVisit = new Map<string, string>()
    const lines: PricedLine[] = []
    for (const item of items) {
      const kind = item.procedure_id !== undefined ? 'procedure' : 'product'
      const table = kind === 'procedure' ? procedures : products
      const id = (item.procedure_id ?? item.product_id) as number
      const [row] = await ex
        .select({
          id: table.id,
          name: table.name,
          price: table.price,
          points: table.points,
          min_days_between: table.min_days_between,
          archived_at: table.archived_at,
        })
        .from(table)
        .where(and(eq(table.id, id), eq(table.practice_id, practiceId)))
      if (!row) {
        throw notFound(
          kind === 'procedure' ? VISIT_MESSAGES.procedureNotFound : VISIT_MESSAGES.productNotFound,
        )
      }
      if (row.archived_at) throw unprocessable(VISIT_MESSAGES.itemArchived(row.name))
      const unitPrice = item.price_cents ?? row.price
      let points = pointsForItem({ points: row.points, price: unitPrice }, item.quantity, rules)
      let refused: PricedLine['refused'] = null
      if (row.min_days_between > 0 && points > 0) {
        const key = `${kind}:${row.id}`
        let opensOn = opensThisVisit.get(key)
        if (!opensOn) {
          const last = await lastAward(ex, patientId, kind, row.id)
          if (last) opensOn = day(new Date(last.getTime() + row.min_days_between * DAY_MS))
        }
        if (opensOn && today < opensOn) {
          refused = { reason: VISIT_MESSAGES.earnsAgainOn(row.name, opensOn), opens_on: opensOn }
          points = 0
        } else {
          // A second line of the same item in this visit waits like a later visit would.
          opensThisVisit.set(key, day(new Date(now().getTime() + row.min_days_between * DAY_MS)))
        }
      }
      lines.push({
        kind,
        item_id: row.id,
        name: row.name,
        quantity: item.quantity,
        unit_price_cents: unitPrice,
        points,
        refused,
        catalogue_price_cents: row.price,
      })
    }
    return lines
  }

  /**
   * The offer a redemption spends, with the terms the patient claimed it with (kept on the claim,
   * so an edit of a live offer never changes them); the offer's own terms for older claims.
   */
  async function promotionOf(
    ex: Executor,
    practiceId: number,
    id: number,
    patientId: number,
  ): Promise<PromotionRow> {
    const [row] = await ex
      .select({
        id: promotions.id,
        title: promotions.title,
        points: promotions.points,
        points_cost: promotions.points_cost,
        discount_cents: promotions.discount_cents,
        discount_percent: promotions.discount_percent,
        procedure_ids: promotions.procedure_ids,
      })
      .from(promotions)
      .where(and(eq(promotions.id, id), eq(promotions.practice_id, practiceId)))
    if (!row) throw notFound(VISIT_MESSAGES.promotionNotFound)
    const [claim] = await ex
      .select({
        points: patientPromotions.bonus_points,
        points_cost: patientPromotions.points_cost,
      })
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.patient_id, patientId),
          eq(patientPromotions.promotion_id, id),
          eq(patientPromotions.status, 'claimed'),
        ),
      )
    return {
      ...row,
      points: claim?.points ?? row.points,
      points_cost: claim?.points_cost ?? row.points_cost,
    }
  }

  /** The names of procedures, in the order of the ids (for an offer's value in words). */
  async function procedureNames(ex: Executor, ids: readonly number[]): Promise<string[]> {
    if (ids.length === 0) return []
    const rows = await ex
      .select({ id: procedures.id, name: procedures.name })
      .from(procedures)
      .where(inArray(procedures.id, [...ids]))
    const byId = new Map(rows.map((row) => [row.id, row.name]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  /**
   * The offer applied to the priced lines (issue 28): the server's discount, never the client's.
   * An offer with value whose procedures match no line of the visit is refused with a sentence.
   */
  async function offerOn(
    ex: Executor,
    lines: readonly PricedLine[],
    promotion: PromotionRow | undefined,
  ): Promise<OfferResult> {
    const offer = promotion && hasValue(promotion) ? promotion : null
    const result = applyOffer(lines, offer)
    if (offer && !result.matched) {
      throw unprocessable(await noMatchSentence(ex, offer))
    }
    return result
  }

  async function noMatchSentence(ex: Executor, offer: PromotionRow): Promise<string> {
    const words = offerValueWords(offer, await procedureNames(ex, offer.procedure_ids)) ?? ''
    return OFFER_VALUE_MESSAGES.noMatchingLine(offer.title, words)
  }

  /**
   * Checks a code before the posting's transaction: the attempt is spent (and kept) first, so
   * parallel or repeated guesses cannot pass the limit even when the posting fails afterwards.
   */
  async function checkCode(
    practiceId: number,
    patientId: number,
    verification: { authyId: string; code: string },
    amount: CodeAmount,
  ): Promise<string> {
    const [row] = await db
      .select()
      .from(redemptionCodes)
      .where(eq(redemptionCodes.id, verification.authyId))
    if (!row || row.practice_id !== practiceId || row.patient_id !== patientId) {
      throw unprocessable(VISIT_MESSAGES.codeIncorrect)
    }
    if (row.used_at) throw unprocessable(VISIT_MESSAGES.codeUsed)
    if (row.expires_at.getTime() <= now().getTime()) throw unprocessable(VISIT_MESSAGES.codeExpired)
    const [spent] = await db
      .update(redemptionCodes)
      .set({ attempts: sql`${redemptionCodes.attempts} + 1` })
      .where(
        and(
          eq(redemptionCodes.id, row.id),
          isNull(redemptionCodes.used_at),
          lt(redemptionCodes.attempts, VERIFICATION_RULES.maxAttempts),
        ),
      )
      .returning({ id: redemptionCodes.id })
    if (!spent) throw unprocessable(VISIT_MESSAGES.codeAttempts)
    if (!sameHash(row.code_hash, hashCode(row.id, verification.code))) {
      throw unprocessable(VISIT_MESSAGES.codeIncorrect)
    }
    // The code redeems at most the amount it was sent for (issue 28).
    // A code for a visit's points and its offer (issue 28, item 4) covers both, and no other.
    const fits =
      (row.promotion_id !== null
        ? amount.promotion_id === row.promotion_id
        : amount.promotion_id === undefined) &&
      (amount.points === undefined || (row.points !== null && amount.points <= row.points))
    if (!fits) throw unprocessable(VISIT_MESSAGES.codeOtherAmount(await codeWords(row)))
    return row.id
  }

  /** What a code was sent for, in the SMS's words: "100 points ($10.00)" or the offer's title. */
  async function codeWords(row: {
    practice_id: number
    points: number | null
    promotion_id: number | null
  }) {
    let offer: string | null = null
    if (row.promotion_id !== null) {
      const [promotion] = await db
        .select({ title: promotions.title })
        .from(promotions)
        .where(eq(promotions.id, row.promotion_id))
      offer = `the offer “${promotion?.title ?? 'an offer'}”`
    }
    if (row.points === null) return offer ?? 'another redemption'
    const rules = await readRules(db, row.practice_id)
    const points = `${pointsText(row.points)} (${formatDollars(row.points * rules.point_value_cents)})`
    return offer ? `${points} and ${offer}` : points
  }

  /** Uses the code once, inside the posting's transaction. */
  async function consumeCode(tx: Transaction, codeId: string, patientId: number) {
    const [used] = await tx
      .update(redemptionCodes)
      .set({ used_at: now() })
      .where(
        and(
          eq(redemptionCodes.id, codeId),
          eq(redemptionCodes.patient_id, patientId),
          isNull(redemptionCodes.used_at),
        ),
      )
      .returning({ id: redemptionCodes.id })
    if (!used) throw unprocessable(VISIT_MESSAGES.codeUsed)
  }

  /**
   * Whether this person may redeem `points` now: above the programme's threshold (0 = always) the
   * patient's code is needed, or a manager's override with a reason.
   */
  async function consentFor(
    user: AuthUser,
    patientId: number,
    points: number,
    threshold: number,
    request: RedemptionRequest,
  ): Promise<Consent> {
    if (request.override) {
      if (!can(user.access_rights, 'redeem.override')) {
        throw forbidden(PERMISSION_REFUSALS['redeem.override'])
      }
      return { kind: 'override', reason: request.override.reason }
    }
    if (!codeNeeded(points, threshold)) return { kind: 'none' }
    if (!request.verification) throw forbidden(VISIT_MESSAGES.codeNeeded(points))
    const amount =
      request.promotion_id !== undefined
        ? {
            promotion_id: request.promotion_id,
            ...(request.points !== undefined ? { points: request.points } : {}),
          }
        : { points }
    return {
      kind: 'code',
      codeId: await checkCode(user.practice_id, patientId, request.verification, amount),
    }
  }

  /** Marks the claimed promotion redeemed, exactly once. */
  async function redeemClaim(tx: Transaction, patientId: number, promotionId: number) {
    const at = now()
    const done = await tx
      .update(patientPromotions)
      .set({ status: 'redeemed', redeemed_at: at })
      .where(
        and(
          eq(patientPromotions.patient_id, patientId),
          eq(patientPromotions.promotion_id, promotionId),
          eq(patientPromotions.status, 'claimed'),
          or(isNull(patientPromotions.ends_at), gt(patientPromotions.ends_at, at)),
        ),
      )
      .returning({ status: patientPromotions.status })
    if (done.length > 0) return
    const [open] = await tx
      .select({ id: patientPromotions.id })
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.patient_id, patientId),
          eq(patientPromotions.promotion_id, promotionId),
          eq(patientPromotions.status, 'claimed'),
        ),
      )
    if (open) throw conflict(VISIT_MESSAGES.promotionExpired)
    const [existing] = await tx
      .select({ status: patientPromotions.status })
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.patient_id, patientId),
          eq(patientPromotions.promotion_id, promotionId),
        ),
      )
    throw conflict(existing ? VISIT_MESSAGES.promotionRedeemed : VISIT_MESSAGES.promotionNotClaimed)
  }

  /**
   * The approval the lines need (issue 28), checked inside the visit's transaction: none when
   * the prices are the catalogue's and the points within the ceiling; else the token a manager's
   * approval answered for exactly these lines of this patient, or the reason of a Manager or
   * Admin recording it themselves. Refused with the reasons otherwise.
   */
  async function approvalOf(
    tx: Transaction,
    user: AuthUser,
    patientId: number,
    items: VisitItemInput[],
    lines: PricedLine[],
    rules: Rules,
    approval: VisitApproval | undefined,
  ): Promise<{ approverId: number; reason: string; id: string | null } | null> {
    const reasons = approvalReasons(lines, rules)
    if (reasons.length === 0) return null
    if (!approval) throw forbidden(VISIT_MESSAGES.approvalNeeded(reasons))
    if ('reason' in approval) {
      if (!can(user.access_rights, 'visits.approve')) {
        throw forbidden(VISIT_MESSAGES.approvalNeeded(reasons))
      }
      return { approverId: user.id, reason: approval.reason, id: null }
    }
    const claims = await readApproval(approval.token, { secret: deps.secret, now: now() })
    if (
      !claims ||
      claims.practiceId !== user.practice_id ||
      claims.patientId !== patientId ||
      claims.digest !== linesDigest(items)
    ) {
      throw forbidden(VISIT_MESSAGES.approvalInvalid)
    }
    const [used] = await tx
      .select({ id: visits.id })
      .from(visits)
      .where(eq(visits.approval_id, claims.id))
    if (used) throw conflict(VISIT_MESSAGES.approvalUsed)
    return { approverId: claims.approverId, reason: claims.reason, id: claims.id }
  }

  async function visitByKey(ex: Executor, practiceId: number, key: string) {
    const [row] = await ex
      .select()
      .from(visits)
      .where(and(eq(visits.practice_id, practiceId), eq(visits.idempotency_key, key)))
    return row
  }

  async function balanceOf(ex: Executor, practiceId: number, patientId: number): Promise<number> {
    const [row] = await ex
      .select({ points: patients.points })
      .from(patients)
      .where(and(eq(patients.practice_id, practiceId), eq(patients.id, patientId)))
    return row?.points ?? 0
  }

  /** Entries with the staff member who made them and the entry that reversed them, if any. */
  async function withAuthors(ex: Executor, entries: LedgerEntryRow[]) {
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
  async function visitEntries(ex: Executor, visit: { id: number; practice_id: number }) {
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

  /** A stored visit as the API answers it. */
  async function answerFor(ex: Executor, visit: typeof visits.$inferSelect): Promise<VisitAnswer> {
    const [items, entries, balance, approvers] = await Promise.all([
      ex
        .select()
        .from(visitItems)
        .where(eq(visitItems.visit_id, visit.id))
        .orderBy(asc(visitItems.position)),
      visitEntries(ex, visit),
      balanceOf(ex, visit.practice_id, visit.patient_id),
      visit.approved_by === null
        ? []
        : ex
            .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
            .from(users)
            .where(eq(users.id, visit.approved_by)),
    ])
    const approver = approvers[0]
    return {
      visit: {
        id: visit.id,
        patient_id: visit.patient_id,
        appointment_id: visit.appointment_id,
        total_cents: visit.total_cents,
        discount_cents: visit.discount_cents,
        created_at: visit.created_at.toISOString(),
        undo_until: new Date(visit.created_at.getTime() + UNDO_WINDOW_MS).toISOString(),
        undone_at: visit.undone_at?.toISOString() ?? null,
        approval:
          approver && visit.approval_reason !== null
            ? { approved_by: approver, reason: visit.approval_reason }
            : null,
      },
      lines: items.map((item) => ({
        kind: item.kind as VisitLine['kind'],
        item_id: item.item_id,
        name: item.name,
        quantity: item.quantity,
        unit_price_cents: item.unit_price_cents,
        discount_cents: item.discount_cents,
        points: item.points,
        refused:
          item.refused_reason && item.refused_opens_on
            ? { reason: item.refused_reason, opens_on: String(item.refused_opens_on) }
            : null,
      })),
      entries: await withAuthors(ex, entries),
      balance,
    }
  }

  /**
   * What each offer with value the patient has claimed (and not redeemed) would do to these
   * lines (issue 28): the checkout shows the server's numbers before Confirm.
   */
  async function offerValues(
    ex: Executor,
    practiceId: number,
    patientId: number,
    lines: readonly PricedLine[],
  ): Promise<OfferValuation[]> {
    const claims = await ex
      .select({ promotion_id: patientPromotions.promotion_id })
      .from(patientPromotions)
      .innerJoin(promotions, eq(promotions.id, patientPromotions.promotion_id))
      .where(
        and(
          eq(patientPromotions.patient_id, patientId),
          eq(patientPromotions.status, 'claimed'),
          eq(promotions.practice_id, practiceId),
          or(isNotNull(promotions.discount_cents), isNotNull(promotions.discount_percent)),
        ),
      )
      .orderBy(asc(patientPromotions.promotion_id))
    const valuations: OfferValuation[] = []
    for (const { promotion_id } of claims) {
      const promotion = await promotionOf(ex, practiceId, promotion_id, patientId)
      const result = applyOffer(lines, promotion)
      const names = await procedureNames(ex, promotion.procedure_ids)
      valuations.push({
        promotion_id,
        title: promotion.title,
        value: offerValueWords(promotion, names) ?? '',
        lines: result.lines,
        discount_cents: result.discount_cents,
        total_cents: result.total_cents,
        points: result.points,
        problem: result.matched ? null : await noMatchSentence(ex, promotion),
      })
    }
    return valuations
  }

  function replayOf(existing: typeof visits.$inferSelect, patientId: number) {
    if (existing.patient_id !== patientId) throw conflict(VISIT_MESSAGES.keyReused)
    return existing
  }

  return {
    /** `POST /visits/preview`: the lines, their points and the patient's balance; writes nothing. */
    async preview(
      user: AuthUser,
      input: {
        patient_id: number
        appointment_id?: number | null | undefined
        items: VisitItemInput[]
      },
    ): Promise<VisitPreview> {
      const practiceId = user.practice_id
      const patient = await patientOf(db, practiceId, input.patient_id)
      if (input.appointment_id) {
        await appointmentOf(db, practiceId, patient.id, input.appointment_id)
      }
      const rules = await readRules(db, practiceId)
      const lines = await priceLines(db, practiceId, patient.id, input.items, rules)
      return {
        lines: lines.map(publicLine),
        points: lines.reduce((sum, l) => sum + l.points, 0),
        total_cents: lines.reduce((sum, l) => sum + l.unit_price_cents * l.quantity, 0),
        balance: patient.points,
        point_value_cents: rules.point_value_cents,
        redemption_code_threshold: rules.redemption_code_threshold,
        max_points_per_line: rules.max_points_per_line,
        approval_needed: approvalReasons(lines, rules),
        offer_values: await offerValues(db, practiceId, patient.id, lines),
      }
    },

    /**
     * `POST /visits/approval`: a manager's approval of these lines for this patient, by
     * `approverId` (the session's Manager or Admin, or one who signed in at the desk; the route
     * checks who). Refused when the lines need none.
     */
    async approve(
      user: AuthUser,
      approverId: number,
      input: { patient_id: number; items: VisitItemInput[]; reason: string },
    ): Promise<ApprovalAnswer> {
      const practiceId = user.practice_id
      const patient = await patientOf(db, practiceId, input.patient_id)
      const rules = await readRules(db, practiceId)
      const lines = await priceLines(db, practiceId, patient.id, input.items, rules)
      if (approvalReasons(lines, rules).length === 0) {
        throw unprocessable(VISIT_MESSAGES.approvalNotNeeded)
      }
      const [approver] = await db
        .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
        .from(users)
        .where(eq(users.id, approverId))
      if (!approver) throw forbidden(VISIT_MESSAGES.approverNotManager)
      const signed = await signApproval(
        {
          practiceId,
          patientId: patient.id,
          digest: linesDigest(input.items),
          approverId,
          reason: input.reason,
        },
        { secret: deps.secret, now: now() },
      )
      return {
        token: signed.token,
        approved_by: approver,
        expires_at: signed.expiresAt.toISOString(),
      }
    },

    /**
     * `POST /visits`: the visit, its earn entries, the optional redemption (after the earn), the
     * promotion's bonus and the appointment completed, in one transaction under the patient's
     * lock. The same key again answers the same visit (`replayed`) and writes nothing.
     */
    async record(
      user: AuthUser,
      input: {
        patient_id: number
        appointment_id?: number | null | undefined
        items: VisitItemInput[]
        idempotencyKey: string
        redemption?: RedemptionRequest | undefined
        approval?: VisitApproval | undefined
      },
    ): Promise<{ answer: VisitAnswer; replayed: boolean; summary: PostingSummary }> {
      const practiceId = user.practice_id
      const replay = async (existing: typeof visits.$inferSelect) => {
        const answer = await answerFor(db, replayOf(existing, input.patient_id))
        return { answer, replayed: true, summary: summarize(answer, false, existing) }
      }
      const first = await visitByKey(db, practiceId, input.idempotencyKey)
      if (first) return replay(first)

      await patientOf(db, practiceId, input.patient_id)
      const rules = await readRules(db, practiceId)
      let promotion: PromotionRow | undefined
      let consent: Consent = { kind: 'none' }
      if (input.redemption) {
        if (input.redemption.promotion_id !== undefined) {
          promotion = await promotionOf(
            db,
            practiceId,
            input.redemption.promotion_id,
            input.patient_id,
          )
        }
        // Points and an offer together (issue 28): one consent for all the points spent.
        const points = (input.redemption.points ?? 0) + (promotion?.points_cost ?? 0)
        consent = await consentFor(
          user,
          input.patient_id,
          points,
          rules.redemption_code_threshold,
          input.redemption,
        )
      }

      try {
        const written = await db.transaction(async (tx) => {
          const patient = await patientOf(tx, practiceId, input.patient_id, true)
          const again = await visitByKey(tx, practiceId, input.idempotencyKey)
          if (again) return { id: replayOf(again, patient.id).id, replayed: true }
          if (patient.archived_at) throw conflict(VISIT_MESSAGES.patientArchived)
          if (input.appointment_id) {
            await appointmentOf(tx, practiceId, patient.id, input.appointment_id, true)
          }
          const lines = await priceLines(tx, practiceId, patient.id, input.items, rules)
          const approval = await approvalOf(
            tx,
            user,
            patient.id,
            input.items,
            lines,
            rules,
            input.approval,
          )
          // The offer's value lowers the matching lines; the points follow what is paid.
          const offer = await offerOn(tx, lines, promotion)
          const at = now()
          const [visit] = await tx
            .insert(visits)
            .values({
              practice_id: practiceId,
              patient_id: patient.id,
              appointment_id: input.appointment_id ?? null,
              created_by: user.id,
              total_cents: offer.total_cents,
              discount_cents: offer.discount_cents,
              idempotency_key: input.idempotencyKey,
              redemption_promotion_id: promotion?.id ?? null,
              approved_by: approval?.approverId ?? null,
              approval_reason: approval?.reason ?? null,
              approval_id: approval?.id ?? null,
              created_at: at,
            })
            .returning()
          if (!visit) throw new Error('The visit was not written')
          const ledger = createLedger({ db: tx, now })
          const actor = { practiceId, patientId: patient.id, userId: user.id }
          for (const [position, priced] of lines.entries()) {
            const discounted = offer.lines[position]
            const line = { ...priced, points: discounted?.points ?? priced.points }
            let entryId: number | null = null
            if (line.points > 0) {
              const earned = await ledger.credit({
                ...actor,
                kind: 'earn',
                points: line.points,
                sourceType: 'visit',
                sourceId: visit.id,
                idempotencyKey: `visit/${visit.id}/line/${position}`,
              })
              entryId = earned.entry.id
            }
            await tx.insert(visitItems).values({
              practice_id: practiceId,
              visit_id: visit.id,
              patient_id: patient.id,
              position,
              kind: line.kind,
              item_id: line.item_id,
              name: line.name,
              unit_price_cents: line.unit_price_cents,
              quantity: line.quantity,
              discount_cents: discounted?.discount_cents ?? 0,
              points: line.points,
              refused_reason: line.refused?.reason ?? null,
              refused_opens_on: line.refused?.opens_on ?? null,
              entry_id: entryId,
            })
          }
          if (input.redemption) {
            await spend(tx, {
              ...actor,
              points: (input.redemption.points ?? 0) + (promotion?.points_cost ?? 0),
              promotion,
              consent,
              threshold: rules.redemption_code_threshold,
              sourceType: 'visit',
              sourceId: visit.id,
              key: `visit/${visit.id}/redeem`,
              bonusKey: `visit/${visit.id}/bonus`,
            })
          }
          if (input.appointment_id) {
            await tx
              .update(appointments)
              .set({ status: 'completed' })
              .where(eq(appointments.id, input.appointment_id))
          }
          await tx.update(patients).set({ last_visit_at: at }).where(eq(patients.id, patient.id))
          const earned = offer.points
          await queueStatement(tx, patient.id, visit.id, earned, at)
          return { id: visit.id, replayed: false }
        })
        if (!written.replayed) deps.outbound.kick()
        const [visit] = await db.select().from(visits).where(eq(visits.id, written.id))
        if (!visit) throw new Error('The visit was not found after writing it')
        const answer = await answerFor(db, visit)
        const replayed = written.replayed
        return {
          answer,
          replayed,
          summary: {
            ...summarize(answer, consent.kind === 'override', visit),
            offer_title: promotion?.title ?? null,
          },
        }
      } catch (error) {
        if (!(error instanceof ApiError) && isUniqueViolation(error)) {
          const existing = await visitByKey(db, practiceId, input.idempotencyKey)
          if (existing) return replay(existing)
          if (input.appointment_id) throw conflict(VISIT_MESSAGES.appointmentCompleted)
        }
        throw error
      }
    },

    /**
     * `POST /patients/{id}/redemption-code/check` (issue 28): whether the typed code is the
     * patient's newest, unused, unexpired code for this amount. Spends one of its 5 attempts (so
     * checking is no way around the limit) and uses nothing.
     */
    async checkCodeFor(
      user: AuthUser,
      patientId: number,
      input: { authyId: string; code: string } & CodeAmount,
    ): Promise<{ valid: true }> {
      await patientOf(db, user.practice_id, patientId)
      await checkCode(user.practice_id, patientId, input, input)
      return { valid: true }
    },

    /** `GET /visits/{id}`. */
    async read(user: AuthUser, visitId: number): Promise<VisitAnswer> {
      const visit = await visitOf(db, user.practice_id, visitId)
      return answerFor(db, visit)
    },

    /**
     * `POST /visits/{id}/undo`: within 10 minutes, reverses the visit's entries (the redemption
     * first, then the bonus and the earns), gives a redeemed promotion back to the patient's
     * claims and sets the appointment back to scheduled. A second undo answers the same reversals.
     */
    async undo(
      user: AuthUser,
      visitId: number,
    ): Promise<{
      entries: ReturnType<typeof toAnswer>[]
      balance: number
      replayed: boolean
      patientId: number
      points: number
    }> {
      const visit = await visitOf(db, user.practice_id, visitId)
      let replayed = visit.undone_at !== null
      if (!replayed) {
        if (now().getTime() > visit.created_at.getTime() + UNDO_WINDOW_MS) {
          throw conflict(VISIT_MESSAGES.undoWindowPassed)
        }
        replayed = await db.transaction(async (tx) => {
          await patientOf(tx, user.practice_id, visit.patient_id, true)
          const [locked] = await tx
            .select({ undone_at: visits.undone_at })
            .from(visits)
            .where(eq(visits.id, visit.id))
            .for('update')
          if (locked?.undone_at) return true
          const entries = await visitEntries(tx, visit)
          const reversed = new Set(
            entries.length === 0
              ? []
              : (
                  await tx
                    .select({ reverses_id: ledgerEntries.reverses_id })
                    .from(ledgerEntries)
                    .where(
                      and(
                        eq(ledgerEntries.practice_id, visit.practice_id),
                        inArray(
                          ledgerEntries.reverses_id,
                          entries.map((e) => e.id),
                        ),
                      ),
                    )
                ).map((r) => r.reverses_id),
          )
          const order = { redeem: 0, bonus: 1, earn: 2 } as Record<string, number>
          const pending = entries
            .filter((e) => !reversed.has(e.id))
            .sort((a, b) => (order[a.kind] ?? 3) - (order[b.kind] ?? 3) || b.id - a.id)
          const ledger = createLedger({ db: tx, now })
          for (const entry of pending) {
            await ledger.reverse({
              practiceId: user.practice_id,
              userId: user.id,
              entryId: entry.id,
              reason: UNDO_REASON,
              idempotencyKey: `visit/${visit.id}/undo/${entry.id}`,
            })
          }
          if (visit.redemption_promotion_id !== null) {
            // The claim the visit redeemed (the patient's latest redeemed one) is open again.
            await tx
              .update(patientPromotions)
              .set({ status: 'claimed', redeemed_at: null })
              .where(
                eq(
                  patientPromotions.id,
                  sql`(select ${patientPromotions.id} from ${patientPromotions} where ${patientPromotions.patient_id} = ${visit.patient_id} and ${patientPromotions.promotion_id} = ${visit.redemption_promotion_id} and ${patientPromotions.status} = 'redeemed' order by ${patientPromotions.redeemed_at} desc nulls last, ${patientPromotions.id} desc limit 1)`,
                ),
              )
          }
          if (visit.appointment_id !== null) {
            await tx
              .update(appointments)
              .set({ status: 'scheduled' })
              .where(
                and(
                  eq(appointments.id, visit.appointment_id),
                  eq(appointments.status, 'completed'),
                ),
              )
          }
          await tx
            .update(visits)
            .set({ undone_at: now(), undone_by: user.id })
            .where(eq(visits.id, visit.id))
          // Its statement has not left yet (it waits for the window to close): it never will.
          await tx.delete(outboundMessages).where(eq(outboundMessages.visit_id, visit.id))
          return false
        })
      }
      const own = await visitEntries(db, visit)
      const reversals =
        own.length === 0
          ? []
          : await db
              .select()
              .from(ledgerEntries)
              .where(
                and(
                  eq(ledgerEntries.practice_id, visit.practice_id),
                  inArray(
                    ledgerEntries.reverses_id,
                    own.map((e) => e.id),
                  ),
                ),
              )
              .orderBy(asc(ledgerEntries.id))
      return {
        entries: await withAuthors(db, reversals),
        balance: await balanceOf(db, visit.practice_id, visit.patient_id),
        replayed,
        patientId: visit.patient_id,
        points: reversals.reduce((sum, e) => sum + e.points, 0),
      }
    },

    /**
     * `POST /patients/{id}/redemptions`: points for a reward, or a claimed promotion (its points
     * cost, then its bonus), with the same consent rules as a visit, under the patient's lock.
     */
    async redeem(
      user: AuthUser,
      patientId: number,
      input: RedemptionRequest & { idempotencyKey: string },
    ) {
      const practiceId = user.practice_id
      const bonusKey = `${input.idempotencyKey}/bonus`
      const replay = async () => {
        const rows = await db
          .select()
          .from(ledgerEntries)
          .where(
            and(
              eq(ledgerEntries.practice_id, practiceId),
              inArray(ledgerEntries.idempotency_key, [input.idempotencyKey, bonusKey]),
            ),
          )
          .orderBy(asc(ledgerEntries.id))
        const main = rows.find((r) => r.idempotency_key === input.idempotencyKey)
        if (!main) return undefined
        if (main.patient_id !== patientId || (main.kind !== 'redeem' && main.kind !== 'bonus')) {
          throw conflict(VISIT_MESSAGES.keyReused)
        }
        const bonus = rows.find((r) => r.idempotency_key === bonusKey)
        const [entry, bonusEntry] = await withAuthors(db, bonus ? [main, bonus] : [main])
        if (!entry) throw new Error('The replayed entry was not found')
        return {
          entry,
          bonus: bonusEntry ?? null,
          balance: await balanceOf(db, practiceId, patientId),
          replayed: true,
          summary: { patient_id: patientId, earned: 0, redeemed: 0, bonus: 0, override: false },
        }
      }
      const first = await replay()
      if (first) return first

      await patientOf(db, practiceId, patientId)
      const rules = await readRules(db, practiceId)
      const promotion =
        input.promotion_id !== undefined
          ? await promotionOf(db, practiceId, input.promotion_id, patientId)
          : undefined
      // An offer with value lowers a visit's lines: it is redeemed at the checkout (issue 28).
      if (promotion && hasValue(promotion)) {
        throw conflict(OFFER_VALUE_MESSAGES.valueAtCheckout(promotion.title))
      }
      const points = input.points ?? promotion?.points_cost ?? 0
      if (promotion && points === 0 && promotion.points === 0) {
        throw unprocessable(VISIT_MESSAGES.promotionNothing)
      }
      const consent = await consentFor(
        user,
        patientId,
        points,
        rules.redemption_code_threshold,
        input,
      )
      try {
        const done = await db.transaction(async (tx) => {
          const patient = await patientOf(tx, practiceId, patientId, true)
          const [again] = await tx
            .select({ id: ledgerEntries.id })
            .from(ledgerEntries)
            .where(
              and(
                eq(ledgerEntries.practice_id, practiceId),
                eq(ledgerEntries.idempotency_key, input.idempotencyKey),
              ),
            )
          if (again) return undefined
          if (patient.archived_at) throw conflict(VISIT_MESSAGES.patientArchived)
          return spend(tx, {
            practiceId,
            patientId,
            userId: user.id,
            points,
            promotion,
            consent,
            threshold: rules.redemption_code_threshold,
            sourceType: promotion ? 'promotion' : 'manual',
            sourceId: promotion?.id ?? null,
            key: input.idempotencyKey,
            bonusKey: points > 0 ? bonusKey : input.idempotencyKey,
          })
        })
        if (!done) {
          const replayed = await replay()
          if (!replayed) throw new Error('The replayed redemption was not found')
          return replayed
        }
        const main = done.redeemed ?? done.bonus
        if (!main) throw new Error('The redemption wrote no entry')
        const [entry, bonusEntry] = await withAuthors(
          db,
          done.redeemed && done.bonus ? [done.redeemed, done.bonus] : [main],
        )
        if (!entry) throw new Error('The redemption entry was not found')
        return {
          entry,
          bonus: bonusEntry ?? null,
          balance: await balanceOf(db, practiceId, patientId),
          replayed: false,
          summary: {
            patient_id: patientId,
            earned: 0,
            redeemed: done.redeemed ? -done.redeemed.points : 0,
            bonus: done.bonus?.points ?? 0,
            override: consent.kind === 'override',
          },
        }
      } catch (error) {
        if (!(error instanceof ApiError) && isUniqueViolation(error)) {
          const replayed = await replay()
          if (replayed) return replayed
        }
        throw error
      }
    },

    /**
     * `POST /patients/{id}/redemption-code`: texts the patient a 6-digit code (valid 10 minutes,
     * 5 attempts, once, for this patient only; 30 s between codes and 5 an hour per patient).
     */
    async sendCode(
      user: AuthUser,
      patientId: number,
      amount: CodeAmount,
      generateCode: () => string = newCode,
    ): Promise<{ authyId: string }> {
      const patient = await patientOf(db, user.practice_id, patientId)
      const digits = phoneDigits(patient.phone ?? '')
      if (digits.length < 7) throw unprocessable(VISIT_MESSAGES.noPhone)
      const [practice] = await db
        .select({ name: practices.practice_name })
        .from(practices)
        .where(eq(practices.id, user.practice_id))
      if (amount.promotion_id !== undefined) {
        const [promotion] = await db
          .select({ id: promotions.id })
          .from(promotions)
          .where(
            and(
              eq(promotions.id, amount.promotion_id),
              eq(promotions.practice_id, user.practice_id),
            ),
          )
        if (!promotion) throw notFound(VISIT_MESSAGES.promotionNotFound)
      }
      const row = {
        practice_id: user.practice_id,
        // Points, an offer, or both (issue 28: a visit's points and its offer, one code).
        points: amount.points ?? null,
        promotion_id: amount.promotion_id ?? null,
      }
      const what = await codeWords(row)
      const at = now()
      const code = generateCode()
      const authyId = randomToken(32)
      await db.transaction(async (tx) => {
        await patientOf(tx, user.practice_id, patientId, true)
        const [latest] = await tx
          .select({ created_at: redemptionCodes.created_at })
          .from(redemptionCodes)
          .where(eq(redemptionCodes.patient_id, patientId))
          .orderBy(desc(redemptionCodes.created_at))
          .limit(1)
        if (latest) {
          const wait = latest.created_at.getTime() + VERIFICATION_RULES.resendGapMs - at.getTime()
          if (wait > 0) {
            const seconds = Math.ceil(wait / 1000)
            throw new ApiError(
              429,
              API_ERROR_NAMES.rateLimit,
              VISIT_MESSAGES.codeTooSoon(seconds),
              { retryAfterSeconds: seconds },
            )
          }
        }
        const [sent] = await tx
          .select({ n: count() })
          .from(redemptionCodes)
          .where(
            and(
              eq(redemptionCodes.patient_id, patientId),
              gt(redemptionCodes.created_at, new Date(at.getTime() - 60 * 60 * 1000)),
            ),
          )
        if ((sent?.n ?? 0) >= VERIFICATION_RULES.maxCodesPerHour) {
          throw new ApiError(429, API_ERROR_NAMES.rateLimit, VISIT_MESSAGES.tooManyCodes, {
            retryAfterSeconds: 3600,
          })
        }
        // Only the newest code of a patient counts.
        await tx
          .update(redemptionCodes)
          .set({ expires_at: at })
          .where(
            and(
              eq(redemptionCodes.patient_id, patientId),
              isNull(redemptionCodes.used_at),
              gt(redemptionCodes.expires_at, at),
            ),
          )
        await tx.insert(redemptionCodes).values({
          id: authyId,
          practice_id: user.practice_id,
          patient_id: patientId,
          code_hash: hashCode(authyId, code),
          points: row.points,
          promotion_id: row.promotion_id,
          expires_at: new Date(at.getTime() + VERIFICATION_RULES.codeTtlMs),
          attempts: 0,
          created_by: user.id,
          created_at: at,
        })
        await deps.outbound.enqueue(tx, {
          channel: 'sms',
          to: smsAddress(patient.phone ?? ''),
          text: `${practice?.name ?? 'Your practice'}: your code to redeem ${what} is ${code}. It is valid for 10 minutes, for this redemption only. Give it only to the front desk.`,
          code,
        })
      })
      deps.outbound.kick()
      return { authyId }
    },
  }

  async function visitOf(ex: Executor, practiceId: number, visitId: number) {
    const [visit] = await ex
      .select()
      .from(visits)
      .where(and(eq(visits.id, visitId), eq(visits.practice_id, practiceId)))
    if (!visit) throw notFound(VISIT_MESSAGES.visitNotFound)
    return visit
  }

  /** The redemption and the promotion's bonus, inside the caller's transaction. */
  async function spend(
    tx: Transaction,
    args: {
      practiceId: number
      patientId: number
      userId: number
      points: number
      promotion: PromotionRow | undefined
      consent: Consent
      /** The programme's code threshold: also what a patient redeems without a code a day. */
      threshold: number
      sourceType: 'visit' | 'promotion' | 'manual'
      sourceId: number | null
      key: string
      bonusKey: string
    },
  ): Promise<{ redeemed: LedgerEntryRow | null; bonus: LedgerEntryRow | null }> {
    if (args.consent.kind === 'code') await consumeCode(tx, args.consent.codeId, args.patientId)
    const codeless = args.consent.kind === 'none' && args.points > 0
    if (codeless) {
      // Under the patient's row lock (the caller holds it): parallel requests count one by one.
      const [row] = await tx
        .select({ points: sql<number>`coalesce(sum(${codelessRedemptions.points}), 0)::int` })
        .from(codelessRedemptions)
        .where(
          and(
            eq(codelessRedemptions.patient_id, args.patientId),
            eq(codelessRedemptions.day, day(now())),
            sql`not exists (select 1 from ${ledgerEntries} r where r.reverses_id = ${codelessRedemptions.entry_id})`,
          ),
        )
      const today = Number(row?.points ?? 0)
      if (today + args.points > args.threshold) {
        throw forbidden(VISIT_MESSAGES.codelessDailyLimit(args.threshold, today))
      }
    }
    if (args.promotion) await redeemClaim(tx, args.patientId, args.promotion.id)
    const ledger = createLedger({ db: tx, now })
    const actor = { practiceId: args.practiceId, patientId: args.patientId, userId: args.userId }
    let redeemed: LedgerEntryRow | null = null
    let bonus: LedgerEntryRow | null = null
    if (args.points > 0) {
      const result = await ledger.redeem({
        ...actor,
        points: args.points,
        sourceType: args.sourceType,
        sourceId: args.sourceId,
        reason: args.consent.kind === 'override' ? args.consent.reason : null,
        idempotencyKey: args.key,
      })
      if (result.replayed) throw conflict(VISIT_MESSAGES.keyReused)
      redeemed = result.entry
      if (codeless) {
        await tx.insert(codelessRedemptions).values({
          practice_id: args.practiceId,
          patient_id: args.patientId,
          entry_id: result.entry.id,
          points: args.points,
          day: day(now()),
          created_at: now(),
        })
      }
    }
    if (args.promotion && args.promotion.points > 0) {
      const result = await ledger.credit({
        ...actor,
        kind: 'bonus',
        points: args.promotion.points,
        sourceType: args.sourceType,
        sourceId: args.sourceId,
        idempotencyKey: args.bonusKey,
      })
      bonus = result.entry
    }
    return { redeemed, bonus }
  }
}

/**
 * A patient's phone as an SMS address: written with `+` it is already international; 10 digits
 * are a North American number (the product's market, as sign-up's default country code +1).
 */
export function smsAddress(phone: string): string {
  const digits = phoneDigits(phone)
  if (phone.trim().startsWith('+')) return `+${digits}`
  return digits.length === 10 ? `+1${digits}` : `+${digits}`
}

function summarize(
  answer: VisitAnswer,
  override: boolean,
  visit: {
    approved_by: number | null
    approval_reason: string | null
    discount_cents: number
    redemption_promotion_id: number | null
  },
): PostingSummary {
  const sum = (kind: string) =>
    answer.entries.filter((e) => e.kind === kind).reduce((total, e) => total + e.points, 0)
  return {
    patient_id: answer.visit.patient_id,
    earned: sum('earn'),
    redeemed: -sum('redeem'),
    bonus: sum('bonus'),
    override,
    approved_by: visit.approved_by,
    approval_reason: visit.approval_reason,
    discount_cents: visit.discount_cents,
    promotion_id: visit.redemption_promotion_id,
  }
}

/**
 * Pricing a visit: its lines and their points under the programme's rules (an item inside its
 * minimum days between awards earns 0), the offers with value the patient could redeem on them,
 * the approval the lines need, and the preview and approval requests built on them.
 */
import { and, asc, eq, inArray, isNotNull, or, sql } from 'drizzle-orm'
import { pointsForItem } from '#domain/ledger.ts'
import {
  applyOffer,
  hasValue,
  OFFER_VALUE_MESSAGES,
  type OfferResult,
  offerValueWords,
} from '#domain/offer-value.ts'
import { DAY_MS } from '#domain/time.ts'
import {
  type ApprovalAnswer,
  formatDollars,
  type OfferValuation,
  VISIT_MESSAGES,
  type VisitItemInput,
  type VisitLine,
  type VisitPreview,
} from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import {
  appointments,
  ledgerEntries,
  patientPromotions,
  procedures,
  products,
  promotions,
  users,
  visitItems,
} from '#server/db/schema.ts'
import { conflict, notAllowed, notFound } from '#server/lib/domain-error.ts'
import { linesDigest, signApproval } from './approval.ts'
import {
  type Member,
  memberAnswer,
  memberOf,
  type Priced,
  priceForMember,
  withoutOffer,
} from './membership.ts'
import {
  type CheckoutDeps,
  day,
  type Executor,
  type PromotionRow,
  patientOf,
  type Rules,
  readRules,
  unprocessable,
} from './shared.ts'

/** A priced line, before it is stored, with the catalogue's price of its item. */
export type PricedLine = VisitLine & { catalogue_price_cents: number }

/** A line as the API answers it (without the catalogue's price). */
export const publicLine = ({ catalogue_price_cents: _, ...line }: PricedLine): VisitLine => line

/** What the membership did to line `i`: its allowance units and member price. */
export function memberFields(priced: Priced, i: number) {
  const line = priced.pricing.lines[i]
  return {
    allowance_units: line?.allowance_units ?? 0,
    member_discount_cents: line?.member_discount_cents ?? 0,
  }
}

/**
 * Why these lines need a manager's approval, a sentence a reason: a price above the
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

export async function appointmentOf(
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
/** When the patient last earned points for this catalogue item at a visit (not reversed). */
export async function lastAward(
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
 * The offer a redemption spends, with the terms the patient claimed it with (kept on the claim,
 * so an edit of a live offer never changes them); the offer's own terms for older claims.
 */
export async function promotionOf(
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
export async function procedureNames(ex: Executor, ids: readonly number[]): Promise<string[]> {
  if (ids.length === 0) return []
  const rows = await ex
    .select({ id: procedures.id, name: procedures.name })
    .from(procedures)
    .where(inArray(procedures.id, [...ids]))
  const byId = new Map(rows.map((row) => [row.id, row.name]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

/**
 * The offer applied to the priced lines: the server's discount, never the client's.
 * An offer with value whose procedures match no line of the visit is refused with a sentence.
 */
export async function offerOn(
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
 * What each offer with value the patient has claimed (and not redeemed) would do to these
 * lines: the checkout shows the server's numbers before Confirm.
 */
async function offerValues(
  ex: Executor,
  practiceId: number,
  patientId: number,
  lines: readonly PricedLine[],
  member: Member | null,
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
    // The offer comes off what the membership left to pay.
    const priced = priceForMember(lines, member, (memberLines) =>
      applyOffer(memberLines, promotion),
    )
    const result = priced.offer
    const names = await procedureNames(ex, promotion.procedure_ids)
    valuations.push({
      promotion_id,
      title: promotion.title,
      value: offerValueWords(promotion, names) ?? '',
      lines: result.lines.map((line, i) => ({
        discount_cents: line.discount_cents,
        points: priced.points[i] ?? line.points,
      })),
      discount_cents: result.discount_cents,
      total_cents: result.total_cents,
      points: priced.points.reduce((sum, p) => sum + p, 0),
      problem: result.matched ? null : await noMatchSentence(ex, promotion),
    })
  }
  return valuations
}

export function createPricing(deps: CheckoutDeps) {
  const { db, now } = deps

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

  return {
    priceLines,

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
      const member = await memberOf(db, practiceId, patient.id)
      const priced = priceForMember(lines, member, withoutOffer)
      return {
        lines: lines.map((line, i) => ({
          ...publicLine(line),
          ...(member ? memberFields(priced, i) : {}),
          points: priced.points[i] ?? line.points,
        })),
        points: priced.points.reduce((sum, p) => sum + p, 0),
        total_cents: priced.offer.total_cents,
        subtotal_cents: lines.reduce((sum, l) => sum + l.unit_price_cents * l.quantity, 0),
        membership: memberAnswer(member, priced.pricing),
        balance: patient.points,
        point_value_cents: rules.point_value_cents,
        redemption_code_threshold: rules.redemption_code_threshold,
        max_points_per_line: rules.max_points_per_line,
        approval_needed: approvalReasons(lines, rules),
        offer_values: await offerValues(db, practiceId, patient.id, lines, member),
      }
    },

    /**
     * `POST /visits/approval`: a manager's approval of these lines for this patient, by
     * `approverId` (the session's Manager or Admin, or one who signed in at the desk; the route
     * checks who). Refused when the lines need none. The approval writes nothing but its audit
     * event (`visit.approved`, from `ip`, with the approver and the reason).
     */
    async approve(
      user: AuthUser,
      approverId: number,
      input: { patient_id: number; items: VisitItemInput[]; reason: string },
      ip: string | null,
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
      if (!approver) throw notAllowed(VISIT_MESSAGES.approverNotManager)
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
      await recordWithin(
        db,
        {
          action: 'visit.approved',
          userId: user.id,
          practiceId,
          ip,
          details: { patient_id: input.patient_id, member: approverId, reason: input.reason },
        },
        now(),
      )
      return {
        token: signed.token,
        approved_by: approver,
        expires_at: signed.expiresAt.toISOString(),
      }
    },
  }
}

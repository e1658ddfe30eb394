/**
 * Recording a visit: its lines, their earn entries, the optional redemption and bonus, and the
 * appointment completed, in one transaction under the patient's lock; and reading it back.
 */
import { and, asc, eq } from 'drizzle-orm'
import { multipliedPoints } from '#domain/member-pricing.ts'
import { can } from '#domain/permissions.ts'
import {
  UNDO_WINDOW_MS,
  VISIT_MESSAGES,
  type VisitAnswer,
  type VisitApproval,
  type VisitItemInput,
  type VisitLine,
} from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { appointments, patients, users, visitItems, visits } from '#server/db/schema.ts'
import { conflict, DomainError, notAllowed } from '#server/lib/domain-error.ts'
import { createLedger } from '#server/modules/ledger/index.ts'
import { linesDigest, readApproval } from './approval.ts'
import {
  bankOf,
  checkBank,
  memberOf,
  priceForMember,
  spendMembership,
  withMember,
  withoutOffer,
} from './membership.ts'
import {
  appointmentOf,
  approvalReasons,
  type createPricing,
  offerOn,
  type PricedLine,
  promotionOf,
} from './pricing.ts'
import type { createRedeeming } from './redeeming.ts'
import type { createRedemptionCodes } from './redemption-codes.ts'
import {
  balanceOf,
  type CheckoutDeps,
  type Consent,
  type Executor,
  isUniqueViolation,
  lockPatient,
  type PromotionRow,
  postingAuditDetails,
  type RedemptionRequest,
  type Rules,
  readRules,
  refuseOtherPatient,
  visitEntries,
  visitOf,
  withAuthors,
} from './shared.ts'
import { queueStatement } from './statements.ts'

async function visitByKey(ex: Executor, practiceId: number, key: string) {
  const [row] = await ex
    .select()
    .from(visits)
    .where(and(eq(visits.practice_id, practiceId), eq(visits.idempotency_key, key)))
  return row
}

function replayOf(existing: typeof visits.$inferSelect, patientId: number) {
  if (existing.patient_id !== patientId) throw conflict(VISIT_MESSAGES.keyReused)
  return existing
}

/**
 * A stored visit as the API answers it; `balance` when the caller knows the patient's (it held
 * the patient's lock while it posted), else it is read.
 */
export async function answerFor(
  ex: Executor,
  visit: typeof visits.$inferSelect,
  balance?: number,
): Promise<VisitAnswer> {
  const [items, entries, points, approvers, memberBank] = await Promise.all([
    ex
      .select()
      .from(visitItems)
      .where(eq(visitItems.visit_id, visit.id))
      .orderBy(asc(visitItems.position)),
    visitEntries(ex, visit),
    balance ?? balanceOf(ex, visit.practice_id, visit.patient_id),
    visit.approved_by === null
      ? []
      : ex
          .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
          .from(users)
          .where(eq(users.id, visit.approved_by)),
    bankOf(ex, visit.membership_id),
  ])
  const approver = approvers[0]
  return {
    visit: {
      id: visit.id,
      patient_id: visit.patient_id,
      appointment_id: visit.appointment_id,
      total_cents: visit.total_cents,
      discount_cents: visit.discount_cents,
      allowance_cents: visit.allowance_cents,
      member_discount_cents: visit.member_discount_cents,
      bank_cents: visit.bank_cents,
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
      allowance_units: item.allowance_units,
      member_discount_cents: item.member_discount_cents,
      points: item.points,
      refused:
        item.refused_reason && item.refused_opens_on
          ? { reason: item.refused_reason, opens_on: String(item.refused_opens_on) }
          : null,
    })),
    entries: await withAuthors(ex, entries),
    balance: points,
    membership_bank_cents: memberBank,
  }
}

export function createRecording(
  deps: CheckoutDeps,
  uses: {
    pricing: Pick<ReturnType<typeof createPricing>, 'priceLines'>
    codes: Pick<ReturnType<typeof createRedemptionCodes>, 'consentFor'>
    redeeming: Pick<ReturnType<typeof createRedeeming>, 'spend'>
  },
) {
  const { db, now } = deps
  const { priceLines } = uses.pricing
  const { consentFor } = uses.codes
  const { spend } = uses.redeeming

  /**
   * The approval the lines need, checked inside the visit's transaction: none when
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
    if (!approval) throw notAllowed(VISIT_MESSAGES.approvalNeeded(reasons))
    if ('reason' in approval) {
      if (!can(user.access_rights, 'visits.approve')) {
        throw notAllowed(VISIT_MESSAGES.approvalNeeded(reasons))
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
      throw notAllowed(VISIT_MESSAGES.approvalInvalid)
    }
    const [used] = await tx
      .select({ id: visits.id })
      .from(visits)
      .where(eq(visits.approval_id, claims.id))
    if (used) throw conflict(VISIT_MESSAGES.approvalUsed)
    return { approverId: claims.approverId, reason: claims.reason, id: claims.id }
  }

  return {
    /**
     * `POST /visits`: the visit, its earn entries, the optional redemption (after the earn), the
     * promotion's bonus and the appointment completed, in one transaction under the patient's
     * lock, with its audit event (`visit.recorded`, from `ip`). The same key again answers the
     * same visit (`replayed`) and writes nothing.
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
      ip: string | null,
    ): Promise<{ answer: VisitAnswer; replayed: boolean }> {
      const practiceId = user.practice_id
      const replay = async (existing: typeof visits.$inferSelect) => {
        const answer = await answerFor(db, replayOf(existing, input.patient_id))
        return { answer, replayed: true }
      }
      // The key's one look-up, before anything is spent: a retry never uses the code again.
      const first = await visitByKey(db, practiceId, input.idempotencyKey)
      if (first) return replay(first)

      let rules: Rules
      let promotion: PromotionRow | undefined
      let consent: Consent = { kind: 'none' }
      try {
        rules = await readRules(db, practiceId)
        if (input.redemption) {
          if (input.redemption.promotion_id !== undefined) {
            promotion = await promotionOf(
              db,
              practiceId,
              input.redemption.promotion_id,
              input.patient_id,
            )
          }
          // Points and an offer together: one consent for all the points spent.
          const points = (input.redemption.points ?? 0) + (promotion?.points_cost ?? 0)
          // The code's attempt is spent here, before the transaction, so that it stays spent.
          consent = await consentFor(
            user,
            input.patient_id,
            points,
            rules.redemption_code_threshold,
            input.redemption,
          )
        }
      } catch (error) {
        await refuseOtherPatient(db, practiceId, input.patient_id)
        throw error
      }

      let written: { visit: typeof visits.$inferSelect; balance: number }
      try {
        written = await db.transaction(async (tx) => {
          const patient = await lockPatient(tx, practiceId, input.patient_id)
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
          // The membership first (allowances, member price; its row locked after the patient's),
          // then the offer's value on what is left; the points follow what is paid, multiplied
          // while a member. The bank pays part of what is left, never more than it holds.
          const member = await memberOf(tx, practiceId, patient.id, true)
          const base = priceForMember(lines, member, withoutOffer)
          const offer = await offerOn(tx, withMember(lines, base.pricing), promotion)
          const points = offer.lines.map((l) => multipliedPoints(l.points, base.multiplier))
          const bankCents = input.redemption?.bank_cents ?? 0
          await checkBank(
            tx,
            { id: patient.id, practice_id: practiceId },
            member,
            bankCents,
            offer.total_cents,
          )
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
              membership_id: member?.id ?? null,
              allowance_cents: base.pricing.allowance_cents,
              member_discount_cents: base.pricing.member_discount_cents,
              bank_cents: bankCents,
              idempotency_key: input.idempotencyKey,
              redemption_promotion_id: promotion?.id ?? null,
              approved_by: approval?.approverId ?? null,
              approval_reason: approval?.reason ?? null,
              approval_id: approval?.id ?? null,
              created_at: at,
            })
            .returning()
          if (!visit) throw new Error('The visit was not written')
          const ledger = createLedger({ db, now }).locked(tx, {
            practiceId,
            patientId: patient.id,
            balance: patient.points,
          })
          let earned = 0
          for (const [position, priced] of lines.entries()) {
            const discounted = offer.lines[position]
            const perks = base.pricing.lines[position]
            const line = { ...priced, points: points[position] ?? priced.points }
            let entryId: number | null = null
            if (line.points > 0) {
              const entry = await ledger.credit({
                userId: user.id,
                kind: 'earn',
                points: line.points,
                sourceType: 'visit',
                sourceId: visit.id,
                idempotencyKey: `visit/${visit.id}/line/${position}`,
              })
              entryId = entry.id
              earned += entry.points
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
              allowance_units: perks?.allowance_units ?? 0,
              member_discount_cents: perks?.member_discount_cents ?? 0,
              points: line.points,
              refused_reason: line.refused?.reason ?? null,
              refused_opens_on: line.refused?.opens_on ?? null,
              entry_id: entryId,
            })
          }
          const spent = !input.redemption
            ? { redeemed: null, bonus: null }
            : await spend(tx, ledger, {
                practiceId,
                patientId: patient.id,
                userId: user.id,
                points: (input.redemption.points ?? 0) + (promotion?.points_cost ?? 0),
                promotion,
                consent,
                threshold: rules.redemption_code_threshold,
                sourceType: 'visit',
                sourceId: visit.id,
                key: `visit/${visit.id}/redeem`,
                bonusKey: `visit/${visit.id}/bonus`,
              })
          if (member) {
            await spendMembership(tx, member, visit, base.pricing, bankCents, at, user.id)
          }
          if (input.appointment_id) {
            await tx
              .update(appointments)
              .set({ status: 'completed' })
              .where(eq(appointments.id, input.appointment_id))
          }
          await tx.update(patients).set({ last_visit_at: at }).where(eq(patients.id, patient.id))
          const balance = ledger.balance()
          await queueStatement(deps, tx, patient, {
            id: visit.id,
            earned,
            balance,
            at,
          })
          await recordWithin(
            tx,
            {
              action: 'visit.recorded',
              userId: user.id,
              practiceId,
              ip,
              details: postingAuditDetails(
                {
                  patient_id: patient.id,
                  earned,
                  redeemed: spent.redeemed ? -spent.redeemed.points : 0,
                  bonus: spent.bonus?.points ?? 0,
                  override: consent.kind === 'override',
                  approved_by: visit.approved_by,
                  approval_reason: visit.approval_reason,
                  discount_cents: visit.discount_cents,
                  promotion_id: visit.redemption_promotion_id,
                  offer_title: promotion?.title ?? null,
                },
                {
                  visit_id: visit.id,
                  ...(member ? { membership_id: member.id } : {}),
                  ...(bankCents > 0 ? { bank_cents: bankCents } : {}),
                  ...(base.pricing.allowance_cents > 0
                    ? { allowance_cents: base.pricing.allowance_cents }
                    : {}),
                  ...(base.pricing.member_discount_cents > 0
                    ? { member_discount_cents: base.pricing.member_discount_cents }
                    : {}),
                },
              ),
            },
            at,
          )
          return { visit, balance }
        })
      } catch (error) {
        // The key is not looked up again under the lock: a request with the same key that
        // committed while this one waited makes this one fail (on the appointment it completed,
        // the code it used, or the key's unique index at the latest), and its visit answers.
        const existing = await visitByKey(db, practiceId, input.idempotencyKey)
        if (existing) return replay(existing)
        if (!(error instanceof DomainError) && isUniqueViolation(error) && input.appointment_id) {
          throw conflict(VISIT_MESSAGES.appointmentCompleted)
        }
        throw error
      }
      deps.outbound.kick()
      return { answer: await answerFor(db, written.visit, written.balance), replayed: false }
    },

    /** `GET /visits/{id}`. */
    async read(user: AuthUser, visitId: number): Promise<VisitAnswer> {
      const visit = await visitOf(db, user.practice_id, visitId)
      return answerFor(db, visit)
    },
  }
}

/**
 * Redeeming: points for a reward or a claimed promotion (its points cost, then its bonus), on its
 * own or at a visit, with the patient's code or a manager's override.
 */
import { and, asc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm'
import { hasValue, OFFER_VALUE_MESSAGES } from '#domain/offer-value.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { codelessRedemptions, ledgerEntries, patientPromotions } from '#server/db/schema.ts'
import { conflict, notAllowed } from '#server/lib/domain-error.ts'
import { createLedger, type LedgerEntryRow } from '#server/modules/ledger/index.ts'
import { promotionOf } from './pricing.ts'
import type { createRedemptionCodes } from './redemption-codes.ts'
import {
  balanceOf,
  type CheckoutDeps,
  type Consent,
  day,
  type LockedLedger,
  lockPatient,
  type PostingSummary,
  type PromotionRow,
  postingAuditDetails,
  type RedemptionRequest,
  readRules,
  refuseOtherPatient,
  unprocessable,
  withAuthors,
} from './shared.ts'

/** A new redemption as its caller records it: what it posted, and its main entry's id. */
export type RedemptionPosted = { summary: PostingSummary; entryId: number }

export function createRedeeming(
  deps: CheckoutDeps,
  codes: Pick<ReturnType<typeof createRedemptionCodes>, 'consentFor' | 'consumeCode'>,
) {
  const { db, now } = deps
  const { consentFor, consumeCode } = codes

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
   * The redemption and the promotion's bonus, inside the caller's transaction, posted with the
   * ledger on the patient the transaction has locked.
   */
  async function spend(
    tx: Transaction,
    ledger: LockedLedger,
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
        throw notAllowed(VISIT_MESSAGES.codelessDailyLimit(args.threshold, today))
      }
    }
    if (args.promotion) await redeemClaim(tx, args.patientId, args.promotion.id)
    let redeemed: LedgerEntryRow | null = null
    let bonus: LedgerEntryRow | null = null
    if (args.points > 0) {
      redeemed = await ledger.redeem({
        userId: args.userId,
        points: args.points,
        sourceType: args.sourceType,
        sourceId: args.sourceId,
        reason: args.consent.kind === 'override' ? args.consent.reason : null,
        idempotencyKey: args.key,
      })
      if (codeless) {
        await tx.insert(codelessRedemptions).values({
          practice_id: args.practiceId,
          patient_id: args.patientId,
          entry_id: redeemed.id,
          points: args.points,
          day: day(now()),
          created_at: now(),
        })
      }
    }
    if (args.promotion && args.promotion.points > 0) {
      bonus = await ledger.credit({
        userId: args.userId,
        kind: 'bonus',
        points: args.promotion.points,
        sourceType: args.sourceType,
        sourceId: args.sourceId,
        idempotencyKey: args.bonusKey,
      })
    }
    return { redeemed, bonus }
  }

  return {
    spend,

    /**
     * `POST /patients/{id}/redemptions`: points for a reward, or a claimed promotion (its points
     * cost, then its bonus), with the same consent rules as a visit, under the patient's lock.
     * With `audit`, the posting is recorded (`ledger.posted`, from its address) in the same
     * transaction; `within` writes what the caller records of a new redemption (a claim's
     * activity and event) in that transaction too. A replay records nothing.
     */
    async redeem(
      user: AuthUser,
      patientId: number,
      input: RedemptionRequest & { idempotencyKey: string },
      audit?: { ip: string | null },
      within?: (tx: Transaction, posted: RedemptionPosted) => Promise<void>,
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
      // The key's one look-up, before anything is spent: a retry never uses the code again.
      const first = await replay()
      if (first) return first

      const { rules, promotion, points, consent } = await (async () => {
        const rules = await readRules(db, practiceId)
        const promotion =
          input.promotion_id !== undefined
            ? await promotionOf(db, practiceId, input.promotion_id, patientId)
            : undefined
        // An offer with value lowers a visit's lines: it is redeemed at the checkout.
        if (promotion && hasValue(promotion)) {
          throw conflict(OFFER_VALUE_MESSAGES.valueAtCheckout(promotion.title))
        }
        const points = input.points ?? promotion?.points_cost ?? 0
        if (promotion && points === 0 && promotion.points === 0) {
          throw unprocessable(VISIT_MESSAGES.promotionNothing)
        }
        // The code's attempt is spent here, before the transaction, so that it stays spent.
        const consent = await consentFor(
          user,
          patientId,
          points,
          rules.redemption_code_threshold,
          input,
        )
        return { rules, promotion, points, consent }
      })().catch(async (error: unknown) => {
        await refuseOtherPatient(db, practiceId, patientId)
        throw error
      })
      const summaryOf = (posted: {
        redeemed: LedgerEntryRow | null
        bonus: LedgerEntryRow | null
      }): PostingSummary => ({
        patient_id: patientId,
        earned: 0,
        redeemed: posted.redeemed ? -posted.redeemed.points : 0,
        bonus: posted.bonus?.points ?? 0,
        override: consent.kind === 'override',
      })
      let done: { redeemed: LedgerEntryRow | null; bonus: LedgerEntryRow | null; balance: number }
      try {
        done = await db.transaction(async (tx) => {
          const patient = await lockPatient(tx, practiceId, patientId)
          if (patient.archived_at) throw conflict(VISIT_MESSAGES.patientArchived)
          const ledger = createLedger({ db, now }).locked(tx, {
            practiceId,
            patientId,
            balance: patient.points,
          })
          const posted = await spend(tx, ledger, {
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
          const main = posted.redeemed ?? posted.bonus
          if (!main) throw new Error('The redemption wrote no entry')
          if (audit) {
            await recordWithin(
              tx,
              {
                action: 'ledger.posted',
                userId: user.id,
                practiceId,
                ip: audit.ip,
                details: postingAuditDetails(summaryOf(posted), { entry_id: main.id }),
              },
              now(),
            )
          }
          if (within) await within(tx, { summary: summaryOf(posted), entryId: main.id })
          return { ...posted, balance: ledger.balance() }
        })
      } catch (error) {
        // The key is not looked up again under the lock: a request with the same key that
        // committed while this one waited makes this one fail (on the code it used, or the key's
        // unique index at the latest), and its entries answer.
        const replayed = await replay()
        if (replayed) return replayed
        throw error
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
        balance: done.balance,
        replayed: false,
        summary: summaryOf(done),
      }
    },
  }
}

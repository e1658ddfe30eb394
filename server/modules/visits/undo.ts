/**
 * Undoing a visit within 10 minutes: its entries reversed, a redeemed promotion claimed again,
 * the appointment scheduled again and its statement never sent.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { UNDO_WINDOW_MS, VISIT_MESSAGES } from '#domain/visits.ts'
import type { AuthUser } from '#server/context.ts'
import {
  appointments,
  ledgerEntries,
  outboundMessages,
  patientPromotions,
  visits,
} from '#server/db/schema.ts'
import { conflict } from '#server/http/errors.ts'
import { createLedger, type toAnswer } from '#server/modules/ledger/index.ts'
import {
  balanceOf,
  type CheckoutDeps,
  patientOf,
  visitEntries,
  visitOf,
  withAuthors,
} from './shared.ts'

/** The reason the reversals of an undone visit carry. */
export const UNDO_REASON = 'Visit undone at the front desk'

export function createUndo(deps: CheckoutDeps) {
  const { db, now } = deps

  return {
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
  }
}

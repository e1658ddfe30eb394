/**
 * Undoing a visit within 10 minutes: its entries reversed, a redeemed promotion claimed again,
 * the appointment scheduled again and its statement never sent.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { UNDO_WINDOW_MS, VISIT_MESSAGES } from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import {
  appointments,
  ledgerEntries,
  outboundMessages,
  patientPromotions,
  visitItems,
  visits,
} from '#server/db/schema.ts'
import { conflict } from '#server/lib/domain-error.ts'
import { createLedger, type LedgerEntryRow, type toAnswer } from '#server/modules/ledger/index.ts'
import { bankOf, restoreMembership } from './membership.ts'
import {
  balanceOf,
  type CheckoutDeps,
  type Executor,
  patientOf,
  visitEntries,
  visitOf,
  withAuthors,
} from './shared.ts'

/** The reason the reversals of an undone visit carry. */
export const UNDO_REASON = 'Visit undone at the front desk'

export function createUndo(deps: CheckoutDeps) {
  const { db, now } = deps

  /** The entries reversing `own` (the visit's entries), oldest first. */
  async function reversalsOf(
    ex: Executor,
    visit: { practice_id: number },
    own: readonly LedgerEntryRow[],
  ) {
    if (own.length === 0) return []
    return ex
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
  }

  return {
    /**
     * `POST /visits/{id}/undo`: within 10 minutes, reverses the visit's entries (the redemption
     * first, then the bonus and the earns), gives a redeemed promotion back to the patient's
     * claims and sets the appointment back to scheduled, in one transaction that locks and reads
     * the patient once and records the undo (`visit.undone`, from `ip`). A second undo answers the
     * same reversals and records nothing.
     */
    async undo(
      user: AuthUser,
      visitId: number,
      ip: string | null,
    ): Promise<{
      entries: ReturnType<typeof toAnswer>[]
      balance: number
      membership_bank_cents: number | null
      replayed: boolean
    }> {
      const visit = await visitOf(db, user.practice_id, visitId)
      const undone =
        visit.undone_at !== null
          ? null
          : await (async () => {
              if (now().getTime() > visit.created_at.getTime() + UNDO_WINDOW_MS) {
                throw conflict(VISIT_MESSAGES.undoWindowPassed)
              }
              return db.transaction(async (tx) => {
                const patient = await patientOf(tx, user.practice_id, visit.patient_id, true)
                const [locked] = await tx
                  .select({ undone_at: visits.undone_at })
                  .from(visits)
                  .where(eq(visits.id, visit.id))
                  .for('update')
                if (locked?.undone_at) return null
                const entries = await visitEntries(tx, visit)
                const earlier = await reversalsOf(tx, visit, entries)
                const reversed = new Set(earlier.map((r) => r.reverses_id))
                const order = { redeem: 0, bonus: 1, earn: 2 } as Record<string, number>
                const pending = entries
                  .filter((e) => !reversed.has(e.id))
                  .sort((a, b) => (order[a.kind] ?? 3) - (order[b.kind] ?? 3) || b.id - a.id)
                const ledger = createLedger({ db, now }).locked(tx, {
                  practiceId: user.practice_id,
                  patientId: visit.patient_id,
                  balance: patient.points,
                })
                const posted: LedgerEntryRow[] = []
                for (const entry of pending) {
                  posted.push(
                    await ledger.reverse(entry, {
                      userId: user.id,
                      reason: UNDO_REASON,
                      idempotencyKey: `visit/${visit.id}/undo/${entry.id}`,
                    }),
                  )
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
                // The membership gets back what the visit used: its included treatments and the
                // bank's payment.
                const used = await tx
                  .select({ item_id: visitItems.item_id, units: visitItems.allowance_units })
                  .from(visitItems)
                  .where(
                    and(
                      eq(visitItems.visit_id, visit.id),
                      eq(visitItems.kind, 'procedure'),
                      sql`${visitItems.allowance_units} > 0`,
                    ),
                  )
                const units = new Map<number, number>()
                for (const row of used) {
                  units.set(row.item_id, (units.get(row.item_id) ?? 0) + row.units)
                }
                const memberBank = await restoreMembership(tx, visit, units, now(), user.id)
                await tx
                  .update(visits)
                  .set({ undone_at: now(), undone_by: user.id })
                  .where(eq(visits.id, visit.id))
                // Its statement has not left yet (it waits for the window to close): it never will.
                await tx.delete(outboundMessages).where(eq(outboundMessages.visit_id, visit.id))
                const reversals = [...earlier, ...posted].sort((a, b) => a.id - b.id)
                await recordWithin(
                  tx,
                  {
                    action: 'visit.undone',
                    userId: user.id,
                    practiceId: user.practice_id,
                    ip,
                    details: {
                      patient_id: visit.patient_id,
                      visit_id: visit.id,
                      points: reversals.reduce((sum, e) => sum + e.points, 0),
                      ...(visit.bank_cents > 0 ? { bank_cents: visit.bank_cents } : {}),
                    },
                  },
                  now(),
                )
                return { reversals, balance: ledger.balance(), memberBank }
              })
            })()
      if (undone) {
        return {
          entries: await withAuthors(db, undone.reversals),
          balance: undone.balance,
          membership_bank_cents: undone.memberBank,
          replayed: false,
        }
      }
      const reversals = await reversalsOf(db, visit, await visitEntries(db, visit))
      return {
        entries: await withAuthors(db, reversals),
        balance: await balanceOf(db, visit.practice_id, visit.patient_id),
        membership_bank_cents: await bankOf(db, visit.membership_id),
        replayed: true,
      }
    },
  }
}

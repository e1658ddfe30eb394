import type { Database } from '#server/db/client.ts'
import { sendOffer } from './send-service.ts'
import { recordStaff, type Staff } from './service.ts'

/**
 * "Send to patients" on record: the sends {@link sendOffer} queues and the audit event that says
 * how many commit together, in one transaction (the queueing's own is a savepoint of it).
 */
export async function sendOfferOnRecord(
  db: Database,
  staff: Staff,
  input: { promotionId: number; publicUrl: string; now: Date },
): Promise<{ queued: number; title: string }> {
  return db.transaction(async (tx) => {
    const sent = await sendOffer(tx, { practiceId: staff.user.practice_id, ...input })
    await recordStaff(
      tx,
      staff,
      'promotion.sent',
      { promotion_id: input.promotionId, title: sent.title, sent: sent.queued },
      input.now,
    )
    return sent
  })
}

/**
 * Referral bonuses from Nextech (NEXTECH.md section 2, "Referrals"): a Nextech patient whose
 * record names a `referring-patient` gives the referrer the practice's referral bonus once, when
 * the referred patient has a bill line that earned and both are linked to Glow patients. Either
 * may come last: a page of bills that earns, a waiting line that earns once its patient is
 * linked, or the referrer linked after the bills of the one they referred. The bonus is posted in
 * the transaction that made it due, under the referrer's lock, with a key per referred Nextech
 * patient, and the link row keeps the entry: a page read again posts nothing twice.
 */
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { NEXTECH_SYNC_MESSAGES, type NextechCounts } from '#domain/nextech.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { nextechClaimLines, nextechPatients, patients } from '#server/db/schema.ts'
import { createLedger, readProgrammeRules } from '#server/modules/ledger/index.ts'

type Context = Pick<ServerContext, 'db' | 'now'>

/** Whose referrals to look at: patients referred, or patients who referred. */
export type ReferralsOf = { referred: string[] } | { referrers: string[] }

export function createReferrals({ db, now }: Context) {
  const ledger = createLedger({ db, now })
  const referrer = alias(nextechPatients, 'referrer')

  /**
   * Posts the referral bonuses due among `of` in `tx`; answers the points posted. Nothing when
   * the practice's referral bonus (`known`, else read) is 0.
   */
  async function awardIn(
    tx: Transaction,
    practiceId: number,
    of: ReferralsOf,
    counts: NextechCounts | null,
    known?: { referral_bonus: number },
  ): Promise<number> {
    const ids = 'referred' in of ? of.referred : of.referrers
    if (ids.length === 0) return 0
    const { referral_bonus: bonus } = known ?? (await readProgrammeRules(tx, practiceId))
    if (bonus <= 0) return 0
    const due = await tx
      .select({
        nextech_id: nextechPatients.nextech_id,
        referred_id: nextechPatients.patient_id,
        referrer_id: referrer.patient_id,
        first_name: patients.first_name,
        last_name: patients.last_name,
      })
      .from(nextechPatients)
      .innerJoin(
        referrer,
        and(
          eq(referrer.practice_id, nextechPatients.practice_id),
          eq(referrer.nextech_id, nextechPatients.referring_nextech_id),
          eq(referrer.state, 'linked'),
        ),
      )
      .innerJoin(patients, eq(patients.id, nextechPatients.patient_id))
      .where(
        and(
          eq(nextechPatients.practice_id, practiceId),
          'referred' in of
            ? inArray(nextechPatients.nextech_id, ids)
            : inArray(nextechPatients.referring_nextech_id, ids),
          eq(nextechPatients.state, 'linked'),
          isNull(nextechPatients.referral_entry_id),
          ne(referrer.patient_id, nextechPatients.patient_id),
          sql`exists (select 1 from ${nextechClaimLines} l where l.practice_id = ${practiceId} and l.nextech_patient_id = ${nextechPatients.nextech_id} and l.state = 'earned')`,
        ),
      )
      .orderBy(asc(referrer.patient_id), asc(nextechPatients.nextech_id))
    let posted = 0
    for (const item of due) {
      if (item.referrer_id === null || item.referred_id === null) continue
      // The referrer's lock (the patient a merge kept, if merged).
      const [held] = await tx
        .select({
          id: patients.id,
          points: patients.points,
          merged_into_id: patients.merged_into_id,
        })
        .from(patients)
        .where(and(eq(patients.id, item.referrer_id), eq(patients.practice_id, practiceId)))
        .for('update')
      const referrerId = held?.merged_into_id ?? held?.id
      if (!held || referrerId === undefined || referrerId === item.referred_id) continue
      const [kept] =
        held.merged_into_id === null
          ? [held]
          : await tx
              .select({ id: patients.id, points: patients.points })
              .from(patients)
              .where(eq(patients.id, referrerId))
              .for('update')
      if (!kept) continue
      const entry = await ledger
        .locked(tx, { practiceId, patientId: kept.id, balance: kept.points })
        .credit({
          userId: null,
          kind: 'bonus',
          points: bonus,
          sourceType: 'nextech',
          sourceId: item.referred_id,
          reason: NEXTECH_SYNC_MESSAGES.referralReason(`${item.first_name} ${item.last_name}`),
          idempotencyKey: `nextech-referral:${item.nextech_id}`,
        })
      await tx
        .update(nextechPatients)
        .set({ referral_entry_id: entry.id, updated_at: now() })
        .where(
          and(
            eq(nextechPatients.practice_id, practiceId),
            eq(nextechPatients.nextech_id, item.nextech_id),
          ),
        )
      await recordWithin(
        tx,
        {
          action: 'ledger.posted',
          userId: null,
          practiceId,
          details: {
            patient_id: kept.id,
            entry_id: entry.id,
            kind: 'bonus',
            points: entry.points,
            source: 'nextech',
          },
        },
        now(),
      )
      posted += entry.points
    }
    if (counts) counts.points_awarded += posted
    return posted
  }

  return {
    awardIn,
    /** {@link awardIn} in a transaction of its own. */
    award: (practiceId: number, of: ReferralsOf, counts: NextechCounts | null) =>
      db.transaction((tx) => awardIn(tx, practiceId, of, counts)),
  }
}

export type Referrals = ReturnType<typeof createReferrals>

/**
 * Reads of the promotions module that change nothing: who claimed an offer.
 */
import { and, count, desc, eq, gt, isNull, lte, or, type SQL } from 'drizzle-orm'
import {
  type ClaimStatus,
  claimStatus,
  type OfferClaimsPage,
  type OfferClaimsQuery,
  PROMOTION_MESSAGES,
} from '#domain/promotions.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patientPromotions, patients, promotions } from '#server/db/schema.ts'
import { notFound } from '#server/lib/domain-error.ts'

type Executor = Database | Transaction

const iso = (date: Date | null) => (date ? date.toISOString() : null)

/**
 * The claims of one status at `now`, as {@link claimStatus} reads them: an open claim whose end
 * has passed counts as expired before the nightly job marks it so.
 */
function statusIs(status: ClaimStatus, now: Date): SQL | undefined {
  const open = eq(patientPromotions.status, 'claimed')
  const lapsed = lte(patientPromotions.ends_at, now)
  if (status === 'redeemed') return eq(patientPromotions.status, 'redeemed')
  if (status === 'expired') return or(eq(patientPromotions.status, 'expired'), and(open, lapsed))
  return and(open, or(isNull(patientPromotions.ends_at), gt(patientPromotions.ends_at, now)))
}

/**
 * A page of an offer's claims, newest first, each with the patient's name: the desk's list of
 * whom to call about an offer they claimed and have not used. Another practice's offer is not
 * found.
 */
export async function listOfferClaims(
  db: Executor,
  practiceId: number,
  promotionId: number,
  query: OfferClaimsQuery,
  now: Date,
): Promise<OfferClaimsPage> {
  const [offer] = await db
    .select({ id: promotions.id })
    .from(promotions)
    .where(and(eq(promotions.id, promotionId), eq(promotions.practice_id, practiceId)))
  if (!offer) throw notFound(PROMOTION_MESSAGES.notFound)
  const where = and(
    eq(patientPromotions.practice_id, practiceId),
    eq(patientPromotions.promotion_id, promotionId),
    query.status ? statusIs(query.status, now) : undefined,
  )
  const [total] = await db.select({ n: count() }).from(patientPromotions).where(where)
  const rows = await db
    .select({
      id: patientPromotions.id,
      patient_id: patientPromotions.patient_id,
      first_name: patients.first_name,
      last_name: patients.last_name,
      archived_at: patients.archived_at,
      status: patientPromotions.status,
      ends_at: patientPromotions.ends_at,
      claimed_at: patientPromotions.claimed_at,
      redeemed_at: patientPromotions.redeemed_at,
    })
    .from(patientPromotions)
    .innerJoin(patients, eq(patients.id, patientPromotions.patient_id))
    .where(where)
    .orderBy(desc(patientPromotions.claimed_at), desc(patientPromotions.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
  return {
    data: rows.map((row) => ({
      id: row.id,
      patient_id: row.patient_id,
      patient_name: `${row.first_name} ${row.last_name}`.trim(),
      patient_archived: row.archived_at !== null,
      status: claimStatus(row, now),
      claimed_at: iso(row.claimed_at),
      redeemed_at: iso(row.redeemed_at),
      ends_at: iso(row.ends_at),
    })),
    total: Number(total?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}

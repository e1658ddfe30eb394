/**
 * Promotions: the offer's life (create, edit, publish, end, duplicate, archive), its
 * funnel (sent, claimed, redeemed, expired, rate, revenue) and the two steps a patient takes:
 * claim (within the dates, the limits and the code, one transaction holding the offer's row lock
 * so concurrent claims cannot pass a limit) and redeem (through the ledger, exactly once, by the
 * checkout's redemption path and its consent rules).
 */
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm'
import { hasValue, OFFER_VALUE_MESSAGES, offerValueWords } from '#domain/offer-value.ts'
import {
  claimStatus,
  EMPTY_FUNNEL,
  LIVE_EDITABLE_FIELDS,
  normalizeCode,
  PROMOTION_MESSAGES,
  type PromotionChange,
  type PromotionClaim,
  type PromotionDetail,
  type PromotionFunnel,
  type PromotionInput,
  type PromotionStatus,
  promotionStatus,
} from '#domain/promotions.ts'
import { type AuditAction, type AuditDetail, recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import {
  activities,
  patientPromotions,
  patients,
  procedures,
  promotionSends,
  promotions,
  visits,
} from '#server/db/schema.ts'
import { conflict, invalid, notAllowed, notFound, rejected } from '#server/lib/domain-error.ts'
import type { Checkout, RedemptionPosted } from '#server/modules/visits/index.ts'

type Executor = Database | Transaction
export type PromotionRow = typeof promotions.$inferSelect
export type ClaimRow = typeof patientPromotions.$inferSelect

const iso = (date: Date | null) => (date ? date.toISOString() : null)

/** Who changes an offer: the staff member, and the address of the request (for the audit event). */
export type Staff = { user: AuthUser; ip: string }

/** Records a change of the practice's offers with the transaction that made it. */
function recordChange(
  tx: Executor,
  by: { userId: number | null; practiceId: number; ip: string },
  action: AuditAction,
  details: Record<string, AuditDetail>,
  now: Date,
) {
  return recordWithin(tx, { action, ...by, details }, now)
}

/** {@link recordChange} by a staff member of the practice. */
export const recordStaff = (
  tx: Executor,
  staff: Staff,
  action: AuditAction,
  details: Record<string, AuditDetail>,
  now: Date,
) =>
  recordChange(
    tx,
    { userId: staff.user.id, practiceId: staff.user.practice_id, ip: staff.ip },
    action,
    details,
    now,
  )

/** The offer as the API answers it (domain `PromotionDetailSchema`). */
export function promotionAnswer(
  row: PromotionRow,
  funnel: PromotionFunnel,
  now: Date,
): PromotionDetail {
  return {
    id: row.id,
    practice_id: row.practice_id,
    title: row.title,
    description: row.description,
    points_cost: row.points_cost,
    bonus_points: row.points,
    points: row.points,
    starts_at: iso(row.starts_at),
    ends_at: iso(row.ends_at),
    max_redemptions: row.max_redemptions,
    per_patient_limit: row.per_patient_limit,
    code: row.code,
    discount_cents: row.discount_cents,
    discount_percent: row.discount_percent,
    procedure_ids: row.procedure_ids,
    status: promotionStatus(row, now),
    published_at: iso(row.published_at),
    ended_at: iso(row.ended_at),
    archived_at: iso(row.archived_at),
    created_at: row.created_at.toISOString(),
    funnel,
  }
}

/** The SQL condition of a status at `now` (the same reading as `promotionStatus`). */
export function statusCondition(status: PromotionStatus, now: Date) {
  const notArchived = isNull(promotions.archived_at)
  const published = and(notArchived, isNotNull(promotions.published_at))
  const running = and(
    published,
    isNull(promotions.ended_at),
    or(isNull(promotions.ends_at), gt(promotions.ends_at, now)),
  )
  switch (status) {
    case 'archived':
      return isNotNull(promotions.archived_at)
    case 'draft':
      return and(notArchived, isNull(promotions.published_at))
    case 'ended':
      return and(published, or(isNotNull(promotions.ended_at), lte(promotions.ends_at, now)))
    case 'scheduled':
      return and(running, gt(promotions.starts_at, now))
    case 'live':
      return and(running, or(isNull(promotions.starts_at), lte(promotions.starts_at, now)))
  }
}

/**
 * The funnel of each offer: `sent` (its e-mails sent), `claimed` (every claim), `redeemed`,
 * `expired` (claims whose offer ended before they were redeemed), the rate redeemed / claimed and
 * the revenue of the visits (not undone) where it was redeemed, in cents.
 */
export async function funnelFor(
  db: Executor,
  practiceId: number,
  promotionIds: number[],
  now: Date,
): Promise<Map<number, PromotionFunnel>> {
  const funnels = new Map<number, PromotionFunnel>()
  if (promotionIds.length === 0) return funnels
  for (const id of promotionIds) funnels.set(id, { ...EMPTY_FUNNEL })
  const claims = await db
    .select({
      promotion_id: patientPromotions.promotion_id,
      claimed: count(),
      redeemed: sql<number>`count(*) filter (where ${patientPromotions.status} = 'redeemed')`,
      expired: sql<number>`count(*) filter (where ${patientPromotions.status} = 'expired' or (${patientPromotions.status} = 'claimed' and ${patientPromotions.ends_at} <= ${now}))`,
    })
    .from(patientPromotions)
    .where(
      and(
        eq(patientPromotions.practice_id, practiceId),
        inArray(patientPromotions.promotion_id, promotionIds),
      ),
    )
    .groupBy(patientPromotions.promotion_id)
  const sends = await db
    .select({ promotion_id: promotionSends.promotion_id, sent: count() })
    .from(promotionSends)
    .where(
      and(
        eq(promotionSends.practice_id, practiceId),
        inArray(promotionSends.promotion_id, promotionIds),
        isNotNull(promotionSends.sent_at),
      ),
    )
    .groupBy(promotionSends.promotion_id)
  const revenue = await db
    .select({
      promotion_id: visits.redemption_promotion_id,
      cents: sql<number>`coalesce(sum(${visits.total_cents}), 0)`,
    })
    .from(visits)
    .where(
      and(
        eq(visits.practice_id, practiceId),
        inArray(visits.redemption_promotion_id, promotionIds),
        isNull(visits.undone_at),
      ),
    )
    .groupBy(visits.redemption_promotion_id)
  /** Hands each row to `apply` with the funnel of its offer. */
  const tally = <R extends { promotion_id: number | null }>(
    rows: R[],
    apply: (funnel: PromotionFunnel, row: R) => void,
  ) => {
    for (const row of rows) {
      const funnel = row.promotion_id === null ? undefined : funnels.get(row.promotion_id)
      if (funnel) apply(funnel, row)
    }
  }
  tally(claims, (funnel, row) => {
    funnel.claimed = Number(row.claimed)
    funnel.redeemed = Number(row.redeemed)
    funnel.expired = Number(row.expired)
    funnel.redemption_rate = funnel.claimed > 0 ? funnel.redeemed / funnel.claimed : 0
  })
  tally(sends, (funnel, row) => {
    funnel.sent = Number(row.sent)
  })
  tally(revenue, (funnel, row) => {
    funnel.revenue_cents = Number(row.cents)
  })
  return funnels
}

/** One offer of the practice (another practice's is not found either). */
export async function promotionOf(
  db: Executor,
  practiceId: number,
  id: number,
  lock = false,
): Promise<PromotionRow> {
  const query = db
    .select()
    .from(promotions)
    .where(and(eq(promotions.id, id), eq(promotions.practice_id, practiceId)))
  const [row] = lock ? await query.for('update') : await query
  if (!row) throw notFound(PROMOTION_MESSAGES.notFound)
  return row
}

/** One offer with its funnel. */
export async function readPromotion(
  db: Executor,
  practiceId: number,
  id: number,
  now: Date,
): Promise<PromotionDetail> {
  const row = await promotionOf(db, practiceId, id)
  const funnels = await funnelFor(db, practiceId, [id], now)
  return promotionAnswer(row, funnels.get(id) ?? EMPTY_FUNNEL, now)
}

/** A page of the practice's offers (one status, or all), newest first, with their funnels. */
export async function listPromotions(
  db: Executor,
  practiceId: number,
  query: { status?: PromotionStatus | undefined; page: number; pageSize: number },
  now: Date,
) {
  const where = and(
    eq(promotions.practice_id, practiceId),
    query.status ? statusCondition(query.status, now) : undefined,
  )
  const [total] = await db.select({ n: count() }).from(promotions).where(where)
  const rows = await db
    .select()
    .from(promotions)
    .where(where)
    .orderBy(desc(promotions.starts_at), desc(promotions.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
  const funnels = await funnelFor(
    db,
    practiceId,
    rows.map((r) => r.id),
    now,
  )
  return {
    data: rows.map((r) => promotionAnswer(r, funnels.get(r.id) ?? EMPTY_FUNNEL, now)),
    total: Number(total?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}

const toDate = (value: string | null) => (value === null ? null : new Date(value))

/**
 * An offer's value in words with its procedures' names ("$50.00 off HydraFacial"), for the
 * offer's e-mail and page; null for an offer without value.
 */
export async function offerValueText(
  db: Executor,
  offer: Pick<PromotionRow, 'discount_cents' | 'discount_percent' | 'procedure_ids'>,
): Promise<string | null> {
  if (!hasValue(offer)) return null
  const rows =
    offer.procedure_ids.length === 0
      ? []
      : await db
          .select({ id: procedures.id, name: procedures.name })
          .from(procedures)
          .where(inArray(procedures.id, offer.procedure_ids))
  const names = new Map(rows.map((row) => [row.id, row.name]))
  return offerValueWords(
    offer,
    offer.procedure_ids.flatMap((id) => names.get(id) ?? []),
  )
}

/**
 * Checks that an offer's procedures are the practice's (refused as invalid, naming
 * `procedure_ids`, otherwise): an offer's value applies to its own catalogue only.
 */
export async function checkProcedureIds(
  db: Executor,
  practiceId: number,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return
  const found = await db
    .select({ id: procedures.id })
    .from(procedures)
    .where(and(eq(procedures.practice_id, practiceId), inArray(procedures.id, [...ids])))
  const known = new Set(found.map((row) => row.id))
  const unknown = ids.find((id) => !known.has(id))
  if (unknown !== undefined) {
    throw invalid(OFFER_VALUE_MESSAGES.procedureUnknown(unknown), { field: 'procedure_ids' })
  }
}

/** A new draft, on record. */
export async function createPromotion(
  db: Database,
  staff: Staff,
  input: PromotionInput,
  now: Date,
): Promise<PromotionRow> {
  const { user } = staff
  return db.transaction(async (tx) => {
    await checkProcedureIds(tx, user.practice_id, input.procedure_ids)
    const [row] = await tx
      .insert(promotions)
      .values({
        practice_id: user.practice_id,
        title: input.title,
        description: input.description,
        points_cost: input.points_cost,
        points: input.bonus_points,
        starts_at: toDate(input.starts_at),
        ends_at: toDate(input.ends_at),
        max_redemptions: input.max_redemptions,
        per_patient_limit: input.per_patient_limit,
        code: normalizeCode(input.code),
        discount_cents: input.discount_cents,
        discount_percent: input.discount_percent,
        procedure_ids: input.procedure_ids,
        created_by: user.id,
        created_at: now,
      })
      .returning()
    if (!row) throw new Error('The promotion was not stored')
    await recordStaff(
      tx,
      staff,
      'promotion.created',
      { promotion_id: row.id, title: row.title },
      now,
    )
    return row
  })
}

/** Sets `values` on the offer `id` (and its `updated_at`); answers the row as it is now. */
async function setPromotion(
  tx: Executor,
  id: number,
  values: Partial<PromotionRow>,
  now: Date,
): Promise<PromotionRow> {
  const [updated] = await tx
    .update(promotions)
    .set({ ...values, updated_at: now })
    .where(eq(promotions.id, id))
    .returning()
  if (!updated) throw new Error('The promotion was not updated')
  return updated
}

/**
 * Changes an offer. A draft or scheduled offer changes freely; a live one only its text, its end
 * and its limits (claims keep the terms they were made with either way); an ended or archived
 * one not at all. Answers the offer and the names of the fields that changed.
 */
export async function updatePromotion(
  db: Database,
  staff: Staff,
  id: number,
  change: PromotionChange,
  now: Date,
): Promise<{ row: PromotionRow; fields: string[] }> {
  const practiceId = staff.user.practice_id
  return db.transaction(async (tx) => {
    const row = await promotionOf(tx, practiceId, id, true)
    const status = promotionStatus(row, now)
    if (status === 'archived') throw conflict(PROMOTION_MESSAGES.archived)
    if (status === 'ended') throw conflict(PROMOTION_MESSAGES.editEnded)
    const next = {
      title: change.title ?? row.title,
      description: change.description ?? row.description,
      points_cost: change.points_cost ?? row.points_cost,
      points: change.bonus_points ?? row.points,
      starts_at: change.starts_at === undefined ? row.starts_at : toDate(change.starts_at),
      ends_at: change.ends_at === undefined ? row.ends_at : toDate(change.ends_at),
      max_redemptions:
        change.max_redemptions === undefined ? row.max_redemptions : change.max_redemptions,
      per_patient_limit: change.per_patient_limit ?? row.per_patient_limit,
      code: change.code === undefined ? row.code : normalizeCode(change.code),
      // One discount or the other: giving one clears the other unless both are given.
      discount_cents:
        change.discount_cents !== undefined
          ? change.discount_cents
          : change.discount_percent != null
            ? null
            : row.discount_cents,
      discount_percent:
        change.discount_percent !== undefined
          ? change.discount_percent
          : change.discount_cents != null
            ? null
            : row.discount_percent,
      procedure_ids: change.procedure_ids ?? row.procedure_ids,
    }
    if (change.procedure_ids) await checkProcedureIds(tx, practiceId, change.procedure_ids)
    const same = (a: unknown, b: unknown) =>
      a instanceof Date || b instanceof Date
        ? (a as Date | null)?.getTime() === (b as Date | null)?.getTime()
        : Array.isArray(a) && Array.isArray(b)
          ? a.length === b.length && a.every((x, i) => x === b[i])
          : a === b
    const current: Record<string, unknown> = { ...row }
    const fields = Object.entries(next)
      .filter(([key, value]) => !same(current[key], value))
      .map(([key]) => (key === 'points' ? 'bonus_points' : key))
    if (status === 'live') {
      const fixed = fields.filter((f) => !(LIVE_EDITABLE_FIELDS as readonly string[]).includes(f))
      if (fixed.length > 0) throw conflict(PROMOTION_MESSAGES.editLive)
    }
    if (next.starts_at && next.ends_at && next.ends_at <= next.starts_at) {
      throw invalid(PROMOTION_MESSAGES.endAfterStart, { field: 'ends_at' })
    }
    if (fields.length === 0) return { row, fields }
    const updated = await setPromotion(tx, row.id, next, now)
    await recordStaff(
      tx,
      staff,
      'promotion.updated',
      { promotion_id: id, title: updated.title, fields: fields.join(',') },
      now,
    )
    return { row: updated, fields }
  })
}

/** The actions of an offer's life and what each allows. */
export type PromotionAction = 'publish' | 'end' | 'duplicate' | 'archive'

/** The audit event of each action. */
const ACTION_AUDIT: Record<PromotionAction, AuditAction> = {
  publish: 'promotion.published',
  end: 'promotion.ended',
  duplicate: 'promotion.duplicated',
  archive: 'promotion.archived',
}

/** What an action does to the offer `row` (`status` at `now`): the offer it made or changed. */
async function applyAction(
  tx: Transaction,
  user: AuthUser,
  row: PromotionRow,
  action: PromotionAction,
  now: Date,
): Promise<PromotionRow> {
  const status = promotionStatus(row, now)
  switch (action) {
    case 'publish':
      if (status !== 'draft') {
        throw conflict(
          status === 'archived' ? PROMOTION_MESSAGES.archived : PROMOTION_MESSAGES.publishNotDraft,
        )
      }
      if (row.ends_at && row.ends_at <= now) throw conflict(PROMOTION_MESSAGES.publishEnded)
      return setPromotion(tx, row.id, { published_at: now }, now)
    case 'end':
      if (status !== 'live' && status !== 'scheduled') {
        throw conflict(PROMOTION_MESSAGES.endNotRunning)
      }
      return setPromotion(tx, row.id, { ended_at: now }, now)
    case 'archive':
      if (status === 'archived') return row
      if (status === 'live' || status === 'scheduled') {
        throw conflict(PROMOTION_MESSAGES.archiveRunning)
      }
      return setPromotion(tx, row.id, { archived_at: now }, now)
    case 'duplicate': {
      const [copy] = await tx
        .insert(promotions)
        .values({
          practice_id: row.practice_id,
          title: `${row.title} (copy)`.slice(0, 120),
          description: row.description,
          points: row.points,
          points_cost: row.points_cost,
          starts_at: row.starts_at && row.starts_at > now ? row.starts_at : null,
          ends_at: row.ends_at && row.ends_at > now ? row.ends_at : null,
          max_redemptions: row.max_redemptions,
          per_patient_limit: row.per_patient_limit,
          code: row.code,
          discount_cents: row.discount_cents,
          discount_percent: row.discount_percent,
          procedure_ids: row.procedure_ids,
          created_by: user.id,
          created_at: now,
        })
        .returning()
      if (!copy) throw new Error('The promotion was not duplicated')
      return copy
    }
  }
}

/**
 * Publish (a draft whose end has not passed), end (a scheduled or live offer), archive (a draft
 * or an ended offer) or duplicate (any offer, into a new draft). Impossible moves are refused as
 * conflicts with the reason. Answers the offer the action made or changed; on record.
 */
export async function transitionPromotion(
  db: Database,
  staff: Staff,
  id: number,
  action: PromotionAction,
  now: Date,
): Promise<PromotionRow> {
  return db.transaction(async (tx) => {
    const row = await promotionOf(tx, staff.user.practice_id, id, true)
    const result = await applyAction(tx, staff.user, row, action, now)
    await recordStaff(
      tx,
      staff,
      ACTION_AUDIT[action],
      {
        promotion_id: id,
        title: result.title,
        ...(action === 'duplicate' ? { copy_id: result.id } : {}),
      },
      now,
    )
    return result
  })
}

/** Deletes a draft nobody claimed, on record; a claimed offer is archived instead, never deleted. */
export async function deletePromotion(db: Database, staff: Staff, id: number, now: Date) {
  return db.transaction(async (tx) => {
    const row = await promotionOf(tx, staff.user.practice_id, id, true)
    const [claims] = await tx
      .select({ n: count() })
      .from(patientPromotions)
      .where(eq(patientPromotions.promotion_id, id))
    if (Number(claims?.n ?? 0) > 0) throw conflict(PROMOTION_MESSAGES.deleteClaimed)
    if (promotionStatus(row, now) !== 'draft') throw conflict(PROMOTION_MESSAGES.deleteNotDraft)
    await tx.delete(promotionSends).where(eq(promotionSends.promotion_id, id))
    await tx.delete(promotions).where(eq(promotions.id, id))
    await recordStaff(tx, staff, 'promotion.deleted', { promotion_id: id, title: row.title }, now)
    return row
  })
}

/** The columns of a claim answer, its terms read from the offer for claims older than migration 0024. */
const claimColumns = {
  id: patientPromotions.id,
  patient_id: patientPromotions.patient_id,
  promotion_id: patientPromotions.promotion_id,
  status: patientPromotions.status,
  title: sql<string>`coalesce(${patientPromotions.title}, ${promotions.title})`,
  points_cost: sql<number>`coalesce(${patientPromotions.points_cost}, ${promotions.points_cost})`,
  bonus_points: sql<number>`coalesce(${patientPromotions.bonus_points}, ${promotions.points})`,
  ends_at: sql<Date | null>`coalesce(${patientPromotions.ends_at}, ${promotions.ends_at})`.mapWith(
    patientPromotions.ends_at,
  ),
  claimed_at: patientPromotions.claimed_at,
  redeemed_at: patientPromotions.redeemed_at,
  expired_at: patientPromotions.expired_at,
  promotion: {
    id: promotions.id,
    practice_id: promotions.practice_id,
    title: promotions.title,
    description: promotions.description,
    points: promotions.points,
    points_cost: promotions.points_cost,
    starts_at: promotions.starts_at,
    ends_at: promotions.ends_at,
    discount_cents: promotions.discount_cents,
    discount_percent: promotions.discount_percent,
    procedure_ids: promotions.procedure_ids,
  },
}

/** The claims joined with their offers, as {@link claimColumns} reads them. */
const selectClaims = (db: Executor) =>
  db
    .select(claimColumns)
    .from(patientPromotions)
    .innerJoin(promotions, eq(promotions.id, patientPromotions.promotion_id))

type ClaimSelect = Awaited<ReturnType<typeof selectClaims>>[number]

/** A claim as the API answers it: its status at `now`, the terms it was claimed with, the offer. */
export type ClaimAnswer = PromotionClaim & {
  promotion: Omit<ClaimSelect['promotion'], 'starts_at' | 'ends_at'> & {
    starts_at: string | null
    ends_at: string | null
  }
}

function claimAnswer(row: ClaimSelect, now: Date): ClaimAnswer {
  return {
    id: row.id,
    patient_id: row.patient_id,
    promotion_id: row.promotion_id,
    status: claimStatus(row, now),
    title: row.title,
    points_cost: Number(row.points_cost),
    bonus_points: Number(row.bonus_points),
    ends_at: iso(row.ends_at ? new Date(row.ends_at) : null),
    claimed_at: iso(row.claimed_at),
    redeemed_at: iso(row.redeemed_at),
    expired_at: iso(row.expired_at),
    promotion: {
      ...row.promotion,
      starts_at: iso(row.promotion.starts_at),
      ends_at: iso(row.promotion.ends_at),
    },
  }
}

/** One claim by id. */
export async function readClaim(db: Executor, claimId: number, now: Date): Promise<ClaimAnswer> {
  const [row] = await selectClaims(db).where(eq(patientPromotions.id, claimId))
  if (!row) throw notFound(PROMOTION_MESSAGES.notClaimed)
  return claimAnswer(row, now)
}

/** A patient's claims, newest first. */
export async function claimsOfPatient(
  db: Executor,
  patientId: number,
  now: Date,
): Promise<ClaimAnswer[]> {
  const rows = await selectClaims(db)
    .where(eq(patientPromotions.patient_id, patientId))
    .orderBy(desc(patientPromotions.claimed_at), desc(patientPromotions.id))
  return rows.map((r) => claimAnswer(r, now))
}

/** The patient's open claim of an offer (at most one), else their latest claim of it. */
async function latestClaim(ex: Executor, patientId: number, promotionId: number) {
  const [row] = await ex
    .select()
    .from(patientPromotions)
    .where(
      and(
        eq(patientPromotions.patient_id, patientId),
        eq(patientPromotions.promotion_id, promotionId),
      ),
    )
    .orderBy(
      sql`case when ${patientPromotions.status} = 'claimed' then 0 else 1 end`,
      desc(patientPromotions.id),
    )
    .limit(1)
  return row
}

/** The claim of a patient, or who may see what: `actor` null is the patient from the offer's link. */
export type ClaimInput = {
  practiceId: number
  promotionId: number
  patientId: number
  actor: AuthUser | null
  /** The address of the request, for the claim's audit event. */
  ip: string
  code?: string | undefined
  now: Date
}

/** The patient of the practice with this id (a missing one is refused as not found). */
async function patientOf(ex: Executor, practiceId: number, patientId: number) {
  const [patient] = await ex
    .select({ id: patients.id, archived_at: patients.archived_at })
    .from(patients)
    .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
  if (!patient) throw notFound(PROMOTION_MESSAGES.patientNotFound)
  return patient
}

/**
 * A patient claims a live offer: one transaction that locks the offer's row, so that concurrent
 * claims run one after the other and the total and per-patient limits hold. A patient who
 * already holds an open claim gets it back (`created` false); a code-only offer needs its code.
 * The claim keeps the offer's terms as they are now; a new claim is on record, by the staff
 * member or (with no `actor`) by the patient.
 */
export async function claimPromotion(
  db: Database,
  input: ClaimInput,
): Promise<{ claim: ClaimAnswer; created: boolean; promotion: PromotionRow }> {
  const { now } = input
  const result = await db.transaction(async (tx) => {
    const promotion = await promotionOf(tx, input.practiceId, input.promotionId, true)
    const patient = await patientOf(tx, input.practiceId, input.patientId)
    const open = await latestClaim(tx, patient.id, promotion.id)
    if (open && open.status === 'claimed' && claimStatus(open, now) === 'claimed') {
      return { claimId: open.id, created: false, promotion }
    }
    const status = promotionStatus(promotion, now)
    if (status !== 'live') throw conflict(PROMOTION_MESSAGES.notLive[status])
    if (patient.archived_at) throw conflict(PROMOTION_MESSAGES.patientArchived)
    if (promotion.code !== null) {
      const given = (input.code ?? '').trim().toUpperCase()
      if (given === '') throw notAllowed(PROMOTION_MESSAGES.codeNeeded)
      if (given !== promotion.code) throw rejected(PROMOTION_MESSAGES.codeWrong)
    }
    const [mine] = await tx
      .select({ n: count() })
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.patient_id, patient.id),
          eq(patientPromotions.promotion_id, promotion.id),
        ),
      )
    if (Number(mine?.n ?? 0) >= promotion.per_patient_limit) {
      throw conflict(PROMOTION_MESSAGES.perPatient(promotion.per_patient_limit))
    }
    if (promotion.max_redemptions !== null) {
      const [all] = await tx
        .select({ n: count() })
        .from(patientPromotions)
        .where(eq(patientPromotions.promotion_id, promotion.id))
      if (Number(all?.n ?? 0) >= promotion.max_redemptions)
        throw conflict(PROMOTION_MESSAGES.soldOut)
    }
    // An open claim whose end passed is expired now, so the patient's new claim can be the open one.
    if (open && open.status === 'claimed') {
      await tx
        .update(patientPromotions)
        .set({ status: 'expired', expired_at: now })
        .where(eq(patientPromotions.id, open.id))
    }
    const [claim] = await tx
      .insert(patientPromotions)
      .values({
        practice_id: promotion.practice_id,
        patient_id: patient.id,
        promotion_id: promotion.id,
        status: 'claimed',
        title: promotion.title,
        points_cost: promotion.points_cost,
        bonus_points: promotion.points,
        ends_at: promotion.ends_at,
        claimed_by: input.actor?.id ?? null,
        claimed_at: now,
      })
      .returning({ id: patientPromotions.id })
    if (!claim) throw new Error('The claim was not stored')
    await tx.insert(activities).values({
      practice_id: promotion.practice_id,
      patient_id: patient.id,
      kind: 'promotion_claimed',
      description: promotion.title,
      points: 0,
      created_at: now,
    })
    await recordChange(
      tx,
      { userId: input.actor?.id ?? null, practiceId: input.practiceId, ip: input.ip },
      'promotion.claimed',
      {
        promotion_id: promotion.id,
        patient_id: patient.id,
        claim_id: claim.id,
        title: promotion.title,
      },
      now,
    )
    return { claimId: claim.id, created: true, promotion }
  })
  return {
    claim: await readClaim(db, result.claimId, now),
    created: result.created,
    promotion: result.promotion,
  }
}

/** What a redemption asks for: the patient, and the consent as `POST /patients/{id}/redemptions`. */
export type RedeemInput = {
  patientId: number
  promotionId: number
  idempotencyKey?: string | undefined
  verification?: { authyId: string; code: string } | undefined
  override?: { reason: string } | undefined
}

/**
 * Redeems the patient's open claim exactly once, through the checkout's redemption path: its
 * consent rule (the patient's code above the threshold, or a manager's override), the points cost
 * taken and the bonus given in the ledger, in one transaction under the patient's lock. The
 * idempotency key defaults to one per claim, so a repeat answers the same redemption. An offer
 * with neither cost nor bonus is marked redeemed with no ledger entry. A new redemption is on
 * record.
 */
export async function redeemPromotion(
  deps: { db: Database; now: () => Date; checkout: Checkout },
  staff: Staff,
  input: RedeemInput,
) {
  const { db } = deps
  const { user } = staff
  const now = deps.now()
  const promotion = await promotionOf(db, user.practice_id, input.promotionId)
  // An offer with value lowers a visit's lines: it is redeemed at the checkout.
  if (hasValue(promotion)) throw conflict(OFFER_VALUE_MESSAGES.valueAtCheckout(promotion.title))
  const patient = await patientOf(db, user.practice_id, input.patientId)
  const claim = await latestClaim(db, patient.id, promotion.id)
  if (!claim) throw conflict(PROMOTION_MESSAGES.notClaimed)
  const key = input.idempotencyKey ?? `promotion-claim:${claim.id}:redeemed`
  if (
    claim.status === 'expired' ||
    (claim.status === 'claimed' && claimStatus(claim, now) === 'expired')
  ) {
    throw conflict(PROMOTION_MESSAGES.expired)
  }
  const cost = claim.points_cost ?? promotion.points_cost
  const bonus = claim.bonus_points ?? promotion.points
  const title = claim.title ?? promotion.title
  /** The redemption in the patient's activity and on record, with the transaction `tx`. */
  const recordRedemption = async (tx: Executor, posting: RedemptionPosted | null) => {
    await tx.insert(activities).values({
      practice_id: user.practice_id,
      patient_id: patient.id,
      kind: 'promotion_redeemed',
      description: title,
      points: bonus - cost,
      created_at: now,
    })
    await recordStaff(
      tx,
      staff,
      'promotion.redeemed',
      {
        promotion_id: promotion.id,
        patient_id: patient.id,
        claim_id: claim.id,
        title,
        redeemed: posting?.summary.redeemed ?? 0,
        bonus: posting?.summary.bonus ?? 0,
        override: posting?.summary.override ?? false,
        ...(posting ? { entry_id: posting.entryId } : {}),
      },
      now,
    )
  }
  const answer = async (posting: RedeemPosting | null, replayed: boolean) => ({
    claim: await readClaim(db, claim.id, now),
    posting,
    replayed,
  })
  if (cost === 0 && bonus === 0) {
    const redeemed = await db.transaction(async (tx) => {
      const done = await tx
        .update(patientPromotions)
        .set({ status: 'redeemed', redeemed_at: now })
        .where(and(eq(patientPromotions.id, claim.id), eq(patientPromotions.status, 'claimed')))
        .returning({ id: patientPromotions.id })
      if (done.length === 0) return false
      await recordRedemption(tx, null)
      return true
    })
    if (redeemed) return answer(null, false)
    if (!input.idempotencyKey && claim.status === 'redeemed') return answer(null, true)
    throw conflict(PROMOTION_MESSAGES.redeemed)
  }
  // The ledger's postings, the activity and the audit event of a new redemption commit in the
  // checkout's one transaction, under the patient's lock; a replay writes none of them again.
  const posting = await deps.checkout.redeem(
    user,
    patient.id,
    {
      promotion_id: promotion.id,
      verification: input.verification,
      override: input.override,
      idempotencyKey: key,
    },
    undefined,
    recordRedemption,
  )
  return answer(posting, posting.replayed)
}

/** What the checkout answers for a redemption. */
type RedeemPosting = Awaited<ReturnType<Checkout['redeem']>>

/** Claims left open past their offer's end become expired (the expiry job's step); answers how many. */
export async function expireClaims(db: Database, now: Date): Promise<number> {
  const done = await db
    .update(patientPromotions)
    .set({ status: 'expired', expired_at: now })
    .where(and(eq(patientPromotions.status, 'claimed'), lte(patientPromotions.ends_at, now)))
    .returning({ id: patientPromotions.id })
  return done.length
}

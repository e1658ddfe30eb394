/**
 * What the sync leaves to a person (NEXTECH.md section 2): the review queue (a patient it would
 * not guess, a reversal of points already spent, a line above the ceiling) and the service codes
 * without a catalogue item. Every decision is in the activity log.
 */
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import {
  NEXTECH_SYNC_MESSAGES,
  type NextechCodeMapping,
  type NextechReviewAction,
  type NextechReviewItem,
  type NextechServiceCode,
} from '#domain/nextech.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { Actor } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import {
  nextechClaimLines,
  nextechPatients,
  nextechReviews,
  nextechServiceCodes,
  patients,
  procedures,
  products,
} from '#server/db/schema.ts'
import { conflict, notFound, rejected } from '#server/lib/domain-error.ts'
import type { Bills } from './bills.ts'
import type { PatientSync, ReviewRecord } from './patients.ts'

type Context = Pick<ServerContext, 'db' | 'now'>

export function createReview(ctx: Context, sync: { patients: PatientSync; bills: Bills }) {
  const { db, now } = ctx

  async function items(practiceId: number): Promise<NextechReviewItem[]> {
    const rows = await db
      .select()
      .from(nextechReviews)
      .where(and(eq(nextechReviews.practice_id, practiceId), isNull(nextechReviews.resolved_at)))
      .orderBy(asc(nextechReviews.id))
      .limit(200)
    const candidateIds = rows.flatMap((row) =>
      Array.isArray(row.details.candidates) ? (row.details.candidates as number[]) : [],
    )
    const lineIds = rows
      .map((row) => row.details.line_id)
      .filter((id): id is number => typeof id === 'number')
    const [candidates, lines] = await Promise.all([
      candidateIds.length === 0
        ? []
        : db
            .select({
              id: patients.id,
              first_name: patients.first_name,
              last_name: patients.last_name,
              email: patients.email,
              phone: patients.phone,
            })
            .from(patients)
            .where(inArray(patients.id, candidateIds)),
      lineIds.length === 0
        ? []
        : db.select().from(nextechClaimLines).where(inArray(nextechClaimLines.id, lineIds)),
    ])
    const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]))
    const lineById = new Map(lines.map((line) => [line.id, line]))
    return rows.map((row) => {
      const record = row.details.nextech as ReviewRecord | undefined
      const line =
        typeof row.details.line_id === 'number' ? lineById.get(row.details.line_id) : undefined
      const concerned = line?.patient_id ? [line.patient_id] : []
      const ids = Array.isArray(row.details.candidates)
        ? (row.details.candidates as number[])
        : concerned
      return {
        id: row.id,
        kind: row.kind as NextechReviewItem['kind'],
        message: row.message,
        nextech_patient: record
          ? {
              id: record.id,
              first_name: record.first_name,
              last_name: record.last_name,
              email: record.email,
              phone: record.phone,
            }
          : null,
        candidates: ids.flatMap((id) => {
          const candidate = byId.get(id)
          return candidate ? [candidate] : []
        }),
        bill: line
          ? {
              claim_id: line.claim_id,
              text: line.text,
              points: line.points,
              net_cents: line.net_cents,
            }
          : null,
        created_at: row.created_at.toISOString(),
      }
    })
  }

  return {
    items,

    /** Open items of the queue. */
    async count(practiceId: number): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(nextechReviews)
        .where(and(eq(nextechReviews.practice_id, practiceId), isNull(nextechReviews.resolved_at)))
      return Number(row?.n ?? 0)
    },

    /** Resolves one open item as the Admin says; answers the queue left. */
    async resolve(actor: Actor, id: number, action: NextechReviewAction) {
      const practiceId = actor.user.practice_id
      const userId = actor.user.id
      let linkedNextechId: string | null = null
      await db.transaction(async (tx) => {
        const [item] = await tx
          .select()
          .from(nextechReviews)
          .where(
            and(
              eq(nextechReviews.id, id),
              eq(nextechReviews.practice_id, practiceId),
              isNull(nextechReviews.resolved_at),
            ),
          )
          .for('update')
        if (!item) throw notFound(NEXTECH_SYNC_MESSAGES.reviewNotFound)
        const allowed =
          item.kind === 'patient'
            ? ['link', 'create', 'ignore']
            : item.kind === 'ceiling'
              ? ['award', 'ignore']
              : ['ignore']
        if (!allowed.includes(action.action)) {
          throw rejected(NEXTECH_SYNC_MESSAGES.wrongAction(item.kind))
        }
        const at = now()
        let patientId: number | null = null
        if (item.kind === 'patient') {
          const record = item.details.nextech as ReviewRecord
          if (action.action === 'link') {
            const [target] = await tx
              .select({ id: patients.id })
              .from(patients)
              .where(
                and(
                  eq(patients.id, action.patient_id),
                  eq(patients.practice_id, practiceId),
                  isNull(patients.archived_at),
                ),
              )
            if (!target) throw notFound(NEXTECH_SYNC_MESSAGES.patientNotFound)
            await sync.patients.link(tx, practiceId, record, target.id, userId)
            await sync.patients.refresh(tx, target.id, record)
            patientId = target.id
            linkedNextechId = record.id
          } else if (action.action === 'create') {
            patientId = await sync.patients.createFrom(tx, practiceId, record, userId)
            await sync.patients.link(tx, practiceId, record, patientId, userId)
            linkedNextechId = record.id
          } else {
            await sync.patients.dropWaitingAppointments(tx, practiceId, record.id)
            await tx
              .update(nextechPatients)
              .set({ state: 'ignored', patient_id: null, updated_at: at })
              .where(
                and(
                  eq(nextechPatients.practice_id, practiceId),
                  eq(nextechPatients.nextech_id, record.id),
                ),
              )
          }
        } else {
          const lineId = item.details.line_id as number
          const [line] = await tx
            .select()
            .from(nextechClaimLines)
            .where(eq(nextechClaimLines.id, lineId))
            .for('update')
          if (line && item.kind === 'ceiling' && action.action === 'award') {
            if (line.voided || line.state !== 'review' || line.patient_id === null) {
              throw conflict(NEXTECH_SYNC_MESSAGES.reviewNotFound)
            }
            await sync.bills.earn(tx, practiceId, line, line.patient_id, null, {
              userId,
              points: line.points,
            })
          } else if (line) {
            await tx
              .update(nextechClaimLines)
              .set({
                state: 'none',
                note:
                  item.kind === 'reversal'
                    ? 'Voided in Nextech; the points were kept (reviewed).'
                    : 'Above the ceiling; not awarded (reviewed).',
                updated_at: at,
              })
              .where(eq(nextechClaimLines.id, line.id))
          }
        }
        await tx
          .update(nextechReviews)
          .set({ resolution: action.action, resolved_by: userId, resolved_at: at })
          .where(eq(nextechReviews.id, item.id))
        await recordWithin(
          tx,
          {
            action: 'nextech.review_resolved',
            userId,
            practiceId,
            ip: actor.ip,
            details: {
              review_id: item.id,
              kind: item.kind,
              resolution: action.action,
              patient_id: patientId,
            },
          },
          at,
        )
      })
      if (linkedNextechId) {
        await sync.bills.applyWaiting(practiceId, [linkedNextechId], null)
        await sync.patients.applyWaitingAppointments(practiceId, [linkedNextechId], null)
      }
      return { items: await items(practiceId) }
    },

    /** The service codes of synced bills: unmapped first, with their lines. */
    async codes(practiceId: number): Promise<NextechServiceCode[]> {
      const rows = await db
        .select({
          code: nextechClaimLines.code,
          text: sql<string>`max(${nextechClaimLines.text})`,
          lines: sql<number>`count(*)::int`,
          procedure_id: nextechServiceCodes.procedure_id,
          product_id: nextechServiceCodes.product_id,
          procedure_name: procedures.name,
          product_name: products.name,
        })
        .from(nextechClaimLines)
        .leftJoin(
          nextechServiceCodes,
          and(
            eq(nextechServiceCodes.practice_id, nextechClaimLines.practice_id),
            eq(nextechServiceCodes.code, nextechClaimLines.code),
          ),
        )
        .leftJoin(procedures, eq(procedures.id, nextechServiceCodes.procedure_id))
        .leftJoin(products, eq(products.id, nextechServiceCodes.product_id))
        .where(
          and(
            eq(nextechClaimLines.practice_id, practiceId),
            sql`${nextechClaimLines.code} is not null`,
          ),
        )
        .groupBy(
          nextechClaimLines.code,
          nextechServiceCodes.procedure_id,
          nextechServiceCodes.product_id,
          procedures.name,
          products.name,
        )
        .orderBy(
          sql`(${nextechServiceCodes.procedure_id} is null and ${nextechServiceCodes.product_id} is null) desc`,
          desc(sql`count(*)`),
          asc(nextechClaimLines.code),
        )
        .limit(500)
      return rows.map((row) => ({
        code: row.code ?? '',
        text: row.text,
        lines: Number(row.lines),
        mapped_to:
          row.procedure_id !== null
            ? { kind: 'procedure' as const, id: row.procedure_id, name: row.procedure_name ?? '' }
            : row.product_id !== null
              ? { kind: 'product' as const, id: row.product_id, name: row.product_name ?? '' }
              : null,
      }))
    },

    /** Service codes of synced bills without a catalogue item. */
    async unmappedCount(practiceId: number): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(distinct ${nextechClaimLines.code})::int` })
        .from(nextechClaimLines)
        .where(
          and(
            eq(nextechClaimLines.practice_id, practiceId),
            sql`${nextechClaimLines.code} is not null`,
            sql`not exists (select 1 from ${nextechServiceCodes} m where m.practice_id = ${practiceId} and m.code = ${nextechClaimLines.code})`,
          ),
        )
      return Number(row?.n ?? 0)
    },

    /**
     * Maps a service code to a catalogue item for later bills; with `apply_to_synced`, the lines
     * already synced that are still waiting or earned nothing for want of a mapping are priced
     * again (earned lines keep what they earned: re-pricing them would take points back).
     */
    async map(actor: Actor, code: string, mapping: NextechCodeMapping) {
      const practiceId = actor.user.practice_id
      const table = mapping.kind === 'product' ? products : procedures
      const [item] = await db
        .select({ id: table.id, name: table.name })
        .from(table)
        .where(
          and(
            eq(table.id, mapping.catalogue_item_id),
            eq(table.practice_id, practiceId),
            isNull(table.archived_at),
          ),
        )
      if (!item) throw notFound(NEXTECH_SYNC_MESSAGES.itemNotFound)
      const [known] = await db
        .select({ id: nextechClaimLines.id })
        .from(nextechClaimLines)
        .where(and(eq(nextechClaimLines.practice_id, practiceId), eq(nextechClaimLines.code, code)))
        .limit(1)
      if (!known) throw notFound(NEXTECH_SYNC_MESSAGES.codeNotFound)
      const at = now()
      const values = {
        procedure_id: mapping.kind === 'product' ? null : item.id,
        product_id: mapping.kind === 'product' ? item.id : null,
        updated_at: at,
      }
      await db.transaction(async (tx) => {
        await tx
          .insert(nextechServiceCodes)
          .values({ practice_id: practiceId, code, ...values })
          .onConflictDoUpdate({
            target: [nextechServiceCodes.practice_id, nextechServiceCodes.code],
            set: values,
          })
        await recordWithin(
          tx,
          {
            action: 'nextech.code_mapped',
            userId: actor.user.id,
            practiceId,
            ip: actor.ip,
            details: { code, item: item.name, apply_to_synced: mapping.apply_to_synced },
          },
          at,
        )
      })
      if (mapping.apply_to_synced) {
        const lines = await db
          .select({ id: nextechClaimLines.id })
          .from(nextechClaimLines)
          .where(
            and(
              eq(nextechClaimLines.practice_id, practiceId),
              eq(nextechClaimLines.code, code),
              eq(nextechClaimLines.voided, false),
              eq(nextechClaimLines.state, 'none'),
              sql`${nextechClaimLines.patient_id} is not null`,
              sql`${nextechClaimLines.earn_entry_id} is null`,
            ),
          )
        for (const { id } of lines) {
          await db.transaction(async (tx) => {
            const [line] = await tx
              .select()
              .from(nextechClaimLines)
              .where(eq(nextechClaimLines.id, id))
              .for('update')
            if (line?.state !== 'none' || line.patient_id === null) return
            await sync.bills.earn(tx, practiceId, line, line.patient_id, null)
          })
        }
      }
      return { codes: await this.codes(practiceId) }
    },
  }
}

/** The review queue and the service codes. */
export type Review = ReturnType<typeof createReview>

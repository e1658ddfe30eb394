/**
 * Merging two patients of a practice (docs/decisions/016-merging-patients.md). In one
 * transaction that holds both patients' row locks: the merged patient is archived with a link to
 * the kept one (`merged_into_id`), every row of every table with a `patient_id` moves to the kept
 * patient (the ledger's entries and allocations too, through the one exception of the ledger's
 * append-only trigger, migration 0026), the kept patient's balance becomes the sum of both ledgers
 * and its empty contact fields are filled from the merged one. A merge is recorded once per merged
 * patient (`patient_merges`), so the same merge sent again, by key or by pair, moves nothing twice.
 */
import { and, eq, sql } from 'drizzle-orm'
import {
  MERGE_FILLED_FIELDS,
  MERGE_MESSAGES,
  type MergeCounts,
  type MergeFilledField,
} from '#domain/patient-merge.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { lockPatients } from '#server/db/locks.ts'
import { patientMerges, patients } from '#server/db/schema.ts'
import { conflict, DomainError } from '#server/lib/domain-error.ts'
import {
  duplicatePairs,
  type Executor,
  findPatient,
  patientDetailColumns,
  rowsOf,
} from './queries.ts'
import type { Actor, PatientDeps } from './service.ts'

/** A refusal of a merge, answered with its status and sentence. */
export class MergeError extends DomainError {
  constructor(kind: 'invalid' | 'not-found' | 'conflict', message: string) {
    super(kind, message)
  }
}

/** The tables whose rows count under their own name in what a merge moves; the rest is `other`. */
const NAMED_TABLES: Record<string, keyof MergeCounts> = {
  ledger_entries: 'ledger_entries',
  visits: 'visits',
  appointments: 'appointments',
  patient_promotions: 'claims',
  promotion_sends: 'offers_sent',
}

/**
 * Every table of the database with a `patient_id` column: all of them belong to a patient, so all
 * of them move. Read from the catalogue rather than listed, so a table added later moves too
 * (patient-merge.test.ts checks that nothing of the merged patient is left anywhere).
 */
async function patientTables(ex: Executor): Promise<string[]> {
  const result = await ex.execute(sql`
    select c.table_name as name
    from information_schema.columns c
    join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.column_name = 'patient_id' and c.table_schema = current_schema()
      and t.table_type = 'BASE TABLE'
    order by c.table_name`)
  return rowsOf<{ name: string }>(result).map((row) => row.name)
}

/** How many rows of each table belong to `patientId`, summed as {@link MergeCounts}. */
async function countRows(ex: Executor, tables: string[], patientId: number): Promise<MergeCounts> {
  const counts: MergeCounts = {
    ledger_entries: 0,
    visits: 0,
    appointments: 0,
    claims: 0,
    offers_sent: 0,
    other: 0,
  }
  for (const table of tables) {
    const result = await ex.execute(
      sql`select count(*)::int as n from ${sql.identifier(table)} where patient_id = ${patientId}`,
    )
    const n = Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0)
    counts[NAMED_TABLES[table] ?? 'other'] += n
  }
  return counts
}

const patientFields = {
  ...patientDetailColumns,
  archived_at: patients.archived_at,
  merged_into_id: patients.merged_into_id,
  last_visit_at: patients.last_visit_at,
  joined_on: patients.joined_on,
}
type PatientRow = { [K in keyof typeof patientFields]: (typeof patients.$inferSelect)[K] }

const fullName = (p: PatientRow) => `${p.first_name} ${p.last_name}`

/** The patient of the practice; 404 with the sentence otherwise. */
async function patientOf(ex: Executor, practiceId: number, id: number) {
  const [row] = await ex
    .select(patientFields)
    .from(patients)
    .where(and(eq(patients.id, id), eq(patients.practice_id, practiceId)))
  if (!row) throw new MergeError('not-found', MERGE_MESSAGES.notFound)
  return row
}

/** The patient `id` among rows locked by {@link lockPatients}; 404 with the sentence otherwise. */
function lockedPatient(rows: readonly PatientRow[], id: number): PatientRow {
  const row = rows.find((candidate) => candidate.id === id)
  if (!row) throw new MergeError('not-found', MERGE_MESSAGES.notFound)
  return row
}

/** Refuses a merge that cannot be done: a merged or archived patient. */
function assertMergeable(patient: PatientRow) {
  if (patient.merged_into_id !== null) {
    throw new MergeError('conflict', MERGE_MESSAGES.alreadyMerged(fullName(patient)))
  }
  if (patient.archived_at !== null) {
    throw new MergeError('conflict', MERGE_MESSAGES.archived(fullName(patient)))
  }
}

/**
 * What the kept patient becomes: the balance of both ledgers; e-mail, phone and birth date taken
 * from the merged patient only where the kept one has none; each consent on only when both records
 * had it on (a merge never turns on a consent either record refused); the later last visit, the
 * earlier joining day, converted when either was.
 */
export function mergedValues(kept: PatientRow, merged: PatientRow) {
  const fills: MergeFilledField[] = MERGE_FILLED_FIELDS.filter(
    (field) => !kept[field] && Boolean(merged[field]),
  )
  const later = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b))
  const earlier = (a: string | null, b: string | null) => (a && b ? (a < b ? a : b) : (a ?? b))
  return {
    fills,
    values: {
      points: kept.points + merged.points,
      email: kept.email ?? merged.email,
      phone: kept.phone ?? merged.phone,
      birth_date: kept.birth_date ?? merged.birth_date,
      email_subscription: kept.email_subscription && merged.email_subscription,
      sms_subscription: kept.sms_subscription && merged.sms_subscription,
      converted: kept.converted || merged.converted,
      last_visit_at: later(kept.last_visit_at, merged.last_visit_at),
      joined_on: earlier(kept.joined_on, merged.joined_on),
    },
  }
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

/** A merge done or replayed, before its patients are read for the answer. */
type MergeResult = {
  id: number
  keptId: number
  mergedId: number
  moved: MergeCounts
  createdAt: Date
  replayed: boolean
}

/** The merge of two patients over one database, with `now` as its clock. */
export function createPatientMerge({ db, now }: PatientDeps) {
  /** The merge already recorded for this key or this merged patient, as a replay. */
  async function recorded(
    ex: Executor,
    practiceId: number,
    where: { key?: string | undefined; mergedId?: number },
  ): Promise<MergeResult | undefined> {
    const condition =
      where.key !== undefined
        ? eq(patientMerges.idempotency_key, where.key)
        : eq(patientMerges.merged_id, where.mergedId ?? 0)
    const [row] = await ex
      .select()
      .from(patientMerges)
      .where(and(eq(patientMerges.practice_id, practiceId), condition))
    if (!row) return undefined
    return {
      id: row.id,
      keptId: row.kept_id,
      mergedId: row.merged_id,
      moved: row.moved as MergeCounts,
      createdAt: row.created_at,
      replayed: true,
    }
  }

  /** A replay of the same merge, or a refusal of a key used for another pair. */
  function sameMerge(found: MergeResult, keptId: number, mergedId: number): MergeResult {
    if (found.keptId !== keptId || found.mergedId !== mergedId) {
      throw new MergeError('conflict', MERGE_MESSAGES.keyReused)
    }
    return found
  }

  /** Both patients as the API answers them, read after the merge or for its preview. */
  async function bothPatients(keptId: number, mergedId: number) {
    const [kept, merged] = await Promise.all([findPatient(db, keptId), findPatient(db, mergedId)])
    return { kept, merged }
  }

  /** The merge itself, or the recorded one it replays. */
  async function mergeOnce(
    actor: Actor,
    input: { keptId: number; mergedId: number; idempotencyKey?: string | undefined },
  ): Promise<MergeResult> {
    const { practiceId } = actor
    const { keptId, mergedId, idempotencyKey } = input
    if (keptId === mergedId) throw new MergeError('invalid', MERGE_MESSAGES.samePatient)
    const replay = async (ex: Executor) => {
      const byKey =
        idempotencyKey === undefined
          ? undefined
          : await recorded(ex, practiceId, { key: idempotencyKey })
      return byKey ? sameMerge(byKey, keptId, mergedId) : undefined
    }
    try {
      return await db.transaction(async (tx) => {
        const first = await replay(tx)
        if (first) return first
        // Both rows locked in one statement, lower id first (server/db/locks.ts), so two merges
        // of one pair (either way round) and a checkout or adjustment on either patient run one
        // after the other, never interleaved.
        const locked = await lockPatients(tx, patientFields, practiceId, [keptId, mergedId])
        const kept = lockedPatient(locked, keptId)
        const merged = lockedPatient(locked, mergedId)
        // The key's merge may have committed while this one waited for the locks.
        const again = await replay(tx)
        if (again) return again
        if (merged.merged_into_id === kept.id) {
          const done = await recorded(tx, practiceId, { mergedId })
          if (done) return done
        }
        assertMergeable(kept)
        assertMergeable(merged)
        // A patient holds one membership that runs at a time; the merged one's moves over only
        // when the kept one has none.
        const live = await tx.execute(sql`
          select count(distinct patient_id)::int as n from memberships
          where patient_id in (${kept.id}, ${merged.id})
            and status in ('active', 'past_due', 'paused', 'unpaid')`)
        if (Number((live as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0) > 1) {
          throw conflict(MERGE_MESSAGES.twoMemberships)
        }

        const at = now()
        const tables = await patientTables(tx)
        const moved = await countRows(tx, tables, mergedId)
        const { values } = mergedValues(kept, merged)
        // First the link: the ledger's trigger lets an entry move only to the patient its
        // patient was merged into.
        await tx
          .update(patients)
          .set({ merged_into_id: kept.id, archived_at: at, points: 0 })
          .where(eq(patients.id, merged.id))
        // A patient holds one open claim of an offer: an open claim of the merged patient for an
        // offer the kept one also holds open is closed as expired, the kept one's stays.
        await tx.execute(sql`
          update patient_promotions m set status = 'expired', expired_at = ${at}
          where m.patient_id = ${merged.id} and m.status = 'claimed'
            and exists (
              select 1 from patient_promotions k
              where k.patient_id = ${kept.id} and k.promotion_id = m.promotion_id
                and k.status = 'claimed'
            )`)
        for (const table of tables) {
          await tx.execute(
            sql`update ${sql.identifier(table)} set patient_id = ${kept.id} where patient_id = ${merged.id}`,
          )
        }
        await tx.update(patients).set(values).where(eq(patients.id, kept.id))
        // The balance is the ledger's sum, or the merge does not happen.
        const sum = await tx.execute(
          sql`select coalesce(sum(points), 0)::int as total from ledger_entries where patient_id = ${kept.id}`,
        )
        const total = Number(rowsOf<{ total: number }>(sum)[0]?.total ?? 0)
        if (total !== values.points) {
          throw new Error('The merged balance is not the sum of the ledger')
        }
        const [row] = await tx
          .insert(patientMerges)
          .values({
            practice_id: practiceId,
            kept_id: kept.id,
            merged_id: merged.id,
            idempotency_key: idempotencyKey ?? null,
            moved,
            created_by: actor.userId,
            created_at: at,
          })
          .returning()
        if (!row) throw new Error('The merge was not recorded')
        // Last, so the audit trail's turn is held only until the commit.
        await recordWithin(
          tx,
          {
            action: 'patient.merged',
            userId: actor.userId,
            practiceId,
            ip: actor.ip,
            details: {
              patient_id: kept.id,
              merged_patient_id: merged.id,
              merge_id: row.id,
              ...moved,
            },
          },
          at,
        )
        return {
          id: row.id,
          keptId: kept.id,
          mergedId: merged.id,
          moved,
          createdAt: row.created_at,
          replayed: false,
        }
      })
    } catch (error) {
      // The same key committed by another request for another pair (the locks differ).
      if (!(error instanceof DomainError) && isUniqueViolation(error) && idempotencyKey) {
        const found = await recorded(db, practiceId, { key: idempotencyKey })
        if (found) return sameMerge(found, keptId, mergedId)
      }
      throw error
    }
  }

  return {
    /** One page of the practice's possible duplicates: active patients sharing a phone or e-mail. */
    duplicates: (practiceId: number, page: { page: number; pageSize: number }) =>
      duplicatePairs(db, practiceId, page),

    /** What merging `mergedId` into `keptId` would move and make, without changing anything. */
    async preview(practiceId: number, keptId: number, mergedId: number) {
      if (keptId === mergedId) throw new MergeError('invalid', MERGE_MESSAGES.samePatient)
      const kept = await patientOf(db, practiceId, keptId)
      const merged = await patientOf(db, practiceId, mergedId)
      assertMergeable(kept)
      assertMergeable(merged)
      const moves = await countRows(db, await patientTables(db), mergedId)
      const { fills, values } = mergedValues(kept, merged)
      return {
        ...(await bothPatients(keptId, mergedId)),
        moves,
        balance: values.points,
        fills,
        email_subscription: values.email_subscription,
        sms_subscription: values.sms_subscription,
      }
    },

    /**
     * Merges `mergedId` into `keptId` in the actor's practice, audited (naming both patients and
     * what moved) in the merge's transaction. The same merge again (the same key, or the same pair
     * after it was done) answers the recorded one with `replayed`, moves nothing and records
     * nothing.
     */
    async merge(
      actor: Actor,
      input: { keptId: number; mergedId: number; idempotencyKey?: string | undefined },
    ) {
      const result = await mergeOnce(actor, input)
      return {
        id: result.id,
        ...(await bothPatients(result.keptId, result.mergedId)),
        moved: result.moved,
        created_at: result.createdAt.toISOString(),
        replayed: result.replayed,
      }
    },
  }
}

/**
 * The patients' use cases: the lists and counts, reading, adding, changing, archiving and
 * restoring a patient, and the unsubscribe link. Each change and its audit event are written in
 * one transaction, so they commit or roll back together.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import {
  DUPLICATE_PATIENT_MESSAGES,
  type PatientInput,
  type PatientListQuery,
} from '#domain/practice-data.ts'
import { type AuditAction, recordWithin } from '#server/audit/audit.ts'
import type { Database } from '#server/db/client.ts'
import { patients } from '#server/db/schema.ts'
import { conflict, notFound } from '#server/lib/domain-error.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, readProgrammeRules } from '#server/modules/ledger/index.ts'
import {
  claimsOfPatient,
  isUnsubscribeTokenShaped,
  UNSUBSCRIBE_LINK_INVALID,
  unsubscribeByToken,
} from '#server/modules/promotions/index.ts'
import {
  type Executor,
  ownPatient,
  type PatientRow,
  patientActivity,
  patientColumns,
  patientCounts,
  patientPage,
  practicePatients,
} from './queries.ts'

/** Who makes a change and from which address: what its audit event names. */
export type Actor = { userId: number; practiceId: number; ip: string | null }

/** What the module's services work on: the database and the clock. */
export type PatientDeps = { db: Database; now: () => Date }

/** Writes the audit event of `action` on one patient with the change's transaction. */
export function recordPatientEvent(
  tx: Executor,
  actor: Actor,
  action: AuditAction,
  patientId: number,
  at: Date,
) {
  return recordWithin(
    tx,
    {
      action,
      userId: actor.userId,
      practiceId: actor.practiceId,
      ip: actor.ip,
      details: { patient_id: patientId },
    },
    at,
  )
}

/**
 * Refuses (409) an e-mail or phone another patient of the practice already has, naming the field
 * and that patient's id so the app can link to them.
 */
async function refuseDuplicate(
  db: Executor,
  practiceId: number,
  input: { email?: string | null | undefined; phone?: string | null | undefined },
  exceptId?: number,
) {
  const checks = [
    input.email
      ? { field: 'email' as const, where: sql`lower(${patients.email}) = lower(${input.email})` }
      : undefined,
    input.phone ? { field: 'phone' as const, where: eq(patients.phone, input.phone) } : undefined,
  ]
  for (const check of checks) {
    if (!check) continue
    const [row] = await db
      .select({ id: patients.id })
      .from(patients)
      .where(
        and(
          eq(patients.practice_id, practiceId),
          check.where,
          // A merged record keeps its contact details but is no longer a patient.
          isNull(patients.merged_into_id),
          exceptId === undefined ? undefined : ne(patients.id, exceptId),
        ),
      )
      .limit(1)
    if (row) {
      throw conflict(DUPLICATE_PATIENT_MESSAGES[check.field], {
        patient_id: row.id,
        field: check.field,
      })
    }
  }
}

/** The patients' use cases over one database, with `now` as their clock. */
export function createPatients({ db, now }: PatientDeps) {
  const ledger = createLedger({ db, now })

  return {
    /** One page of the practice's patients, searched and sorted, with the number that match. */
    list: (practiceId: number, query: PatientListQuery) => patientPage(db, practiceId, query),

    /** A page of the practice's patients by name (`limit`, `offset`). */
    page: (practiceId: number, page: { limit: number; offset: number }) =>
      practicePatients(db, practiceId, page),

    /**
     * A page of a whole-list call, ordered by name: at most `limit` rows, and whether more follow
     * (one more row is read to know).
     */
    async wholeList(
      practiceId: number,
      { limit, offset }: { limit: number; offset: number },
      only: { convertedOnly?: boolean } = {},
    ) {
      const rows = await practicePatients(db, practiceId, { limit: limit + 1, offset }, only)
      return { rows: rows.slice(0, limit), more: rows.length > limit }
    },

    /** The practice's counts for the dashboard (archived patients left out). */
    summary: (practiceId: number) => patientCounts(db, practiceId),

    /** A patient's activity, newest first; 404 for another practice's patient. */
    async activity(practiceId: number, id: number) {
      await ownPatient(db, practiceId, id)
      return patientActivity(db, id)
    },

    /** The promotions a patient claimed or redeemed; 404 for another practice's patient. */
    async promotions(practiceId: number, id: number) {
      await ownPatient(db, practiceId, id)
      return claimsOfPatient(db, id, now())
    },

    /** One patient; opening the record is itself on record (who, which patient, never values). */
    async view(actor: Actor, id: number): Promise<PatientRow> {
      const patient = await ownPatient(db, actor.practiceId, id)
      await recordPatientEvent(db, actor, 'patient.viewed', id, now())
      return patient
    },

    /**
     * Adds a patient to the actor's practice with a new unsubscribe token, and the programme's
     * joining bonus (under the rules as they stand when the patient joins) in the same
     * transaction. 409 for an e-mail or phone another patient has.
     */
    async create(actor: Actor, input: PatientInput): Promise<PatientRow> {
      const { joining_bonus } = await readProgrammeRules(db, actor.practiceId)
      return db.transaction(async (tx) => {
        await refuseDuplicate(tx, actor.practiceId, input)
        const at = now()
        const [row] = await tx
          .insert(patients)
          .values({
            ...input,
            practice_id: actor.practiceId,
            unsubscribe_id: randomToken(),
            created_at: at,
          })
          .returning(patientColumns)
        if (!row) throw new Error('The patient was not stored')
        let patient = row
        if (joining_bonus > 0) {
          // The patient is new to this transaction, so nobody else can hold or see its row. The
          // bonus's key makes it once per patient.
          const postings = ledger.locked(tx, {
            practiceId: row.practice_id,
            patientId: row.id,
            balance: row.points,
          })
          await postings.credit({
            userId: actor.userId,
            kind: 'bonus',
            points: joining_bonus,
            sourceType: 'joining',
            idempotencyKey: `joining-bonus:${row.id}`,
          })
          patient = { ...row, points: postings.balance() }
        }
        await recordPatientEvent(tx, actor, 'patient.created', row.id, at)
        return patient
      })
    },

    /**
     * Changes the fields given; no field changes nothing (and records nothing). 404 for another
     * practice's patient, 409 for an e-mail or phone another patient has.
     */
    update(actor: Actor, id: number, changes: Partial<PatientInput>): Promise<PatientRow> {
      return db.transaction(async (tx) => {
        const current = await ownPatient(tx, actor.practiceId, id)
        if (Object.keys(changes).length === 0) return current
        await refuseDuplicate(tx, actor.practiceId, changes, id)
        const [row] = await tx
          .update(patients)
          .set(changes)
          .where(eq(patients.id, id))
          .returning(patientColumns)
        if (!row) throw new Error('The patient was not updated')
        await recordPatientEvent(tx, actor, 'patient.updated', id, now())
        return row
      })
    },

    /**
     * Archives (hides from lists and marketing e-mail) or restores a patient. A merged record has
     * nothing left of its own: its rows are on the patient it became. It stays archived
     * (archiving it again changes nothing and records nothing) and cannot be restored (409).
     */
    setArchived(actor: Actor, id: number, archived: boolean): Promise<PatientRow> {
      return db.transaction(async (tx) => {
        const patient = await ownPatient(tx, actor.practiceId, id)
        if (patient.merged_into_id !== null) {
          if (archived) return patient
          throw conflict(MERGE_MESSAGES.restoreMerged)
        }
        const at = now()
        const [row] = await tx
          .update(patients)
          .set({ archived_at: archived ? at : null })
          .where(eq(patients.id, id))
          .returning(patientColumns)
        if (!row) throw new Error('The patient was not updated')
        await recordPatientEvent(
          tx,
          actor,
          archived ? 'patient.archived' : 'patient.restored',
          id,
          at,
        )
        return row
      })
    },

    /**
     * The unsubscribe link of a patient e-mail. Only a token of the wrong shape is refused (404);
     * any other is answered alike, whether or not it names a patient, so the call tells nobody
     * which links exist.
     */
    async unsubscribe(token: string): Promise<void> {
      if (!isUnsubscribeTokenShaped(token)) throw notFound(UNSUBSCRIBE_LINK_INVALID)
      await unsubscribeByToken(db, token)
    },
  }
}

/**
 * Nextech patients and appointments in Glow (NEXTECH.md section 2, "Mapping"). A Nextech patient
 * is linked to a Glow patient by its Nextech id. One not linked yet is matched by e-mail or
 * phone: no candidate creates the patient, one whose name agrees links it, and several, or one
 * whose name disagrees, wait in the review queue; the sync never guesses. For a linked patient
 * Nextech is the source of truth for the name and contact details; `exclude-from-mailings`
 * turns marketing e-mail off (and never back on).
 */
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import { NEXTECH_SYNC_MESSAGES, type NextechCounts } from '#domain/nextech.ts'
import { toE164 } from '#domain/phone.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { appointments, nextechPatients, nextechReviews, patients } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, readProgrammeRules } from '#server/modules/ledger/index.ts'
import type { NextechAppointment, NextechPatient } from '#server/nextech/resources.ts'

type Context = Pick<ServerContext, 'db' | 'now'>

/** Nextech's appointment statuses in Glow's three. */
export function glowAppointmentStatus(status: string): 'scheduled' | 'completed' | 'cancelled' {
  if (status === 'fulfilled') return 'completed'
  if (status === 'cancelled' || status === 'noshow' || status === 'entered-in-error') {
    return 'cancelled'
  }
  return 'scheduled'
}

/** Letters only, lower-cased: "O'Brien" and "obrien" agree. */
const letters = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z]/g, '')

/** Whether two people's names agree: the same last name and the same first initial. */
export function namesAgree(
  a: { first_name: string; last_name: string },
  b: { first_name: string; last_name: string },
): boolean {
  return (
    letters(a.last_name) === letters(b.last_name) &&
    letters(a.first_name).slice(0, 1) === letters(b.first_name).slice(0, 1)
  )
}

/** The Glow fields of a Nextech patient. */
function fieldsOf(patient: NextechPatient) {
  return {
    first_name: patient.firstName.trim() || '(no first name)',
    last_name: patient.lastName.trim() || '(no last name)',
    email: patient.email?.trim().toLowerCase() || null,
    phone: patient.phone ? toE164(patient.phone) : null,
    birth_date: patient.birthDate,
  }
}

/** The Nextech record as the review queue keeps and shows it. */
export function reviewRecord(patient: NextechPatient) {
  const fields = fieldsOf(patient)
  return {
    id: patient.id,
    first_name: fields.first_name,
    last_name: fields.last_name,
    email: fields.email,
    phone: fields.phone,
    birth_date: fields.birth_date,
    exclude_from_mailings: patient.excludeFromMailings,
    referring_patient_id: patient.referringPatientId,
  }
}
export type ReviewRecord = ReturnType<typeof reviewRecord>

export function createPatientSync(ctx: Context) {
  const { db, now } = ctx
  const ledger = createLedger({ db, now })

  /** Creates the Glow patient of a Nextech record, with the joining bonus, in `tx`. */
  async function createFrom(
    tx: Transaction,
    practiceId: number,
    record: ReviewRecord,
    userId: number | null,
  ): Promise<number> {
    const at = now()
    const [row] = await tx
      .insert(patients)
      .values({
        practice_id: practiceId,
        first_name: record.first_name,
        last_name: record.last_name,
        email: record.email,
        phone: record.phone,
        birth_date: record.birth_date,
        email_subscription: !record.exclude_from_mailings,
        unsubscribe_id: randomToken(),
        created_at: at,
      })
      .returning({ id: patients.id, points: patients.points })
    if (!row) throw new Error('The patient was not stored')
    const { joining_bonus } = await readProgrammeRules(tx, practiceId)
    if (joining_bonus > 0) {
      await ledger.locked(tx, { practiceId, patientId: row.id, balance: row.points }).credit({
        userId,
        kind: 'bonus',
        points: joining_bonus,
        sourceType: 'joining',
        idempotencyKey: `joining-bonus:${row.id}`,
      })
    }
    await recordWithin(
      tx,
      {
        action: 'nextech.patient_created',
        userId,
        practiceId,
        details: { patient_id: row.id, nextech_id: record.id },
      },
      at,
    )
    return row.id
  }

  /** Nextech's details on a linked patient; answers whether anything changed. */
  async function refresh(tx: Transaction, patientId: number, record: ReviewRecord) {
    const [current] = await tx
      .select({
        first_name: patients.first_name,
        last_name: patients.last_name,
        email: patients.email,
        phone: patients.phone,
        birth_date: patients.birth_date,
        email_subscription: patients.email_subscription,
      })
      .from(patients)
      .where(eq(patients.id, patientId))
    if (!current) return false
    const changes: Partial<typeof patients.$inferInsert> = {}
    if (current.first_name !== record.first_name) changes.first_name = record.first_name
    if (current.last_name !== record.last_name) changes.last_name = record.last_name
    // An empty field in Nextech does not erase what the desk knows.
    if (record.email && current.email !== record.email) changes.email = record.email
    if (record.phone && current.phone !== record.phone) changes.phone = record.phone
    if (record.birth_date && String(current.birth_date) !== record.birth_date) {
      changes.birth_date = record.birth_date
    }
    if (record.exclude_from_mailings && current.email_subscription) {
      changes.email_subscription = false
    }
    if (Object.keys(changes).length === 0) return false
    await tx.update(patients).set(changes).where(eq(patients.id, patientId))
    await recordWithin(
      tx,
      {
        action: 'patient.updated',
        userId: null,
        details: { patient_id: patientId, source: 'nextech' },
      },
      now(),
    )
    return true
  }

  /** Links a Nextech patient to a Glow patient in `tx`. */
  async function link(
    tx: Transaction,
    practiceId: number,
    record: ReviewRecord,
    patientId: number,
    userId: number | null,
  ) {
    const at = now()
    await tx
      .insert(nextechPatients)
      .values({
        practice_id: practiceId,
        nextech_id: record.id,
        patient_id: patientId,
        state: 'linked',
        referring_nextech_id: record.referring_patient_id,
        updated_at: at,
      })
      .onConflictDoUpdate({
        target: [nextechPatients.practice_id, nextechPatients.nextech_id],
        set: { patient_id: patientId, state: 'linked', updated_at: at },
      })
    await recordWithin(
      tx,
      {
        action: 'nextech.patient_linked',
        userId,
        practiceId,
        details: { patient_id: patientId, nextech_id: record.id },
      },
      at,
    )
  }

  return {
    createFrom,
    link,
    refresh,

    /**
     * One Nextech patient: refreshed when linked, else matched (created, linked or queued).
     * Answers the Glow patient it is linked to now, if any.
     */
    async apply(
      practiceId: number,
      patient: NextechPatient,
      counts: NextechCounts,
    ): Promise<number | null> {
      const record = reviewRecord(patient)
      const linked = await db.transaction(async (tx) => {
        // The link row is the Nextech patient's lock: two walks of one record wait in turn.
        await tx
          .insert(nextechPatients)
          .values({
            practice_id: practiceId,
            nextech_id: patient.id,
            patient_id: null,
            state: 'review',
            referring_nextech_id: patient.referringPatientId,
            updated_at: now(),
          })
          .onConflictDoNothing()
        const [current] = await tx
          .select()
          .from(nextechPatients)
          .where(
            and(
              eq(nextechPatients.practice_id, practiceId),
              eq(nextechPatients.nextech_id, patient.id),
            ),
          )
          .for('update')
        if (!current || current.state === 'ignored') return null
        if (current.state === 'linked' && current.patient_id !== null) {
          if (await refresh(tx, current.patient_id, record)) counts.patients_updated += 1
          return current.patient_id
        }
        const [open] = await tx
          .select({ id: nextechReviews.id })
          .from(nextechReviews)
          .where(
            and(
              eq(nextechReviews.practice_id, practiceId),
              eq(nextechReviews.kind, 'patient'),
              eq(nextechReviews.subject, patient.id),
              isNull(nextechReviews.resolved_at),
            ),
          )
        // Waiting for a person: keep what they will see up to date, decide nothing.
        if (open) {
          await tx
            .update(nextechReviews)
            .set({
              details: sql`${nextechReviews.details} || ${JSON.stringify({ nextech: record })}::jsonb`,
            })
            .where(eq(nextechReviews.id, open.id))
          return null
        }
        const candidates = await tx
          .select({
            id: patients.id,
            first_name: patients.first_name,
            last_name: patients.last_name,
          })
          .from(patients)
          .where(
            and(
              eq(patients.practice_id, practiceId),
              isNull(patients.archived_at),
              or(
                record.email ? sql`lower(${patients.email}) = ${record.email}` : sql`false`,
                record.phone ? eq(patients.phone, record.phone) : sql`false`,
              ),
              // A patient already linked to another Nextech record is not this one.
              sql`not exists (select 1 from ${nextechPatients} l where l.practice_id = ${practiceId} and l.patient_id = ${patients.id} and l.state = 'linked')`,
            ),
          )
          .limit(20)
        const [only] = candidates
        if (candidates.length === 0) {
          const patientId = await createFrom(tx, practiceId, record, null)
          await link(tx, practiceId, record, patientId, null)
          counts.patients_created += 1
          return patientId
        }
        if (candidates.length === 1 && only && namesAgree(only, record)) {
          await link(tx, practiceId, record, only.id, null)
          await refresh(tx, only.id, record)
          counts.patients_linked += 1
          return only.id
        }
        const message =
          candidates.length === 1 && only
            ? NEXTECH_SYNC_MESSAGES.nameDisagrees(
                `${record.first_name} ${record.last_name}`,
                `${only.first_name} ${only.last_name}`,
              )
            : NEXTECH_SYNC_MESSAGES.several(candidates.length)
        await tx.insert(nextechReviews).values({
          practice_id: practiceId,
          kind: 'patient',
          subject: patient.id,
          message,
          details: { nextech: record, candidates: candidates.map((candidate) => candidate.id) },
        })
        counts.patients_to_review += 1
        return null
      })
      return linked
    },

    /** One Nextech appointment, on its linked patient's record (skipped until linked). */
    async applyAppointment(
      practiceId: number,
      appointment: NextechAppointment,
      counts: NextechCounts,
    ): Promise<void> {
      if (!appointment.patientId || !appointment.start) return
      const [link] = await db
        .select({ patient_id: nextechPatients.patient_id })
        .from(nextechPatients)
        .where(
          and(
            eq(nextechPatients.practice_id, practiceId),
            eq(nextechPatients.nextech_id, appointment.patientId),
            eq(nextechPatients.state, 'linked'),
          ),
        )
      if (!link?.patient_id) return
      const at = now()
      const values = {
        patient_id: link.patient_id,
        starts_at: new Date(appointment.start),
        status: glowAppointmentStatus(appointment.status),
        nextech_status: appointment.status,
        notes: appointment.type ?? '',
        updated_at: at,
      }
      await db
        .insert(appointments)
        .values({ practice_id: practiceId, nextech_id: appointment.id, created_at: at, ...values })
        .onConflictDoUpdate({
          target: [appointments.practice_id, appointments.nextech_id],
          targetWhere: sql`${appointments.nextech_id} is not null`,
          set: values,
        })
      counts.appointments += 1
    },
  }
}

/** The patients half of the sync. */
export type PatientSync = ReturnType<typeof createPatientSync>

import { and, asc, eq, gte, isNull, lt } from 'drizzle-orm'
import {
  APPOINTMENT_MESSAGES,
  type AppointmentChange,
  type AppointmentInput,
} from '#domain/appointments.ts'
import { type AuditAction, recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { appointments, patients, procedures } from '#server/db/schema.ts'
import { conflict, invalid, notFound } from '#server/lib/domain-error.ts'

type Executor = Database | Transaction

/** Who changes an appointment: the staff member, and the address of the request (for the audit event). */
export type Staff = { user: AuthUser; ip: string }

/** The answer to an id that is not an appointment of the caller's practice. */
const NOT_FOUND = 'Appointment not found.'

const appointmentColumns = {
  id: appointments.id,
  practice_id: appointments.practice_id,
  patient_id: appointments.patient_id,
  procedure_id: appointments.procedure_id,
  starts_at: appointments.starts_at,
  status: appointments.status,
}

/**
 * An appointment as the desk reads it: its patient's name and phone and its procedure's name,
 * joined in the same query (never one request per row, never the whole patient table).
 */
async function appointmentDetails(db: Database, where: ReturnType<typeof and>) {
  const rows = await db
    .select({
      ...appointmentColumns,
      notes: appointments.notes,
      nextech_status: appointments.nextech_status,
      patient_first_name: patients.first_name,
      patient_last_name: patients.last_name,
      patient_phone: patients.phone,
      procedure_name: procedures.name,
    })
    .from(appointments)
    .innerJoin(patients, eq(patients.id, appointments.patient_id))
    .leftJoin(procedures, eq(procedures.id, appointments.procedure_id))
    .where(where)
    .orderBy(asc(appointments.starts_at), asc(appointments.id))
  return rows.map(
    ({ patient_first_name, patient_last_name, patient_phone, procedure_name, ...row }) => ({
      ...row,
      patient: {
        id: row.patient_id,
        first_name: patient_first_name,
        last_name: patient_last_name,
        phone: patient_phone,
      },
      procedure:
        row.procedure_id === null
          ? null
          : { id: row.procedure_id, name: procedure_name ?? `Procedure #${row.procedure_id}` },
    }),
  )
}

/** A refusal naming the field, so the form shows it beside that field. */
const invalidField = (field: string, message: string) => invalid(message, { field })

/** A bookable patient: of this practice and not archived. */
async function assertPatient(ex: Executor, practiceId: number, patientId: number) {
  const [row] = await ex
    .select({ archived_at: patients.archived_at })
    .from(patients)
    .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
  if (!row) throw invalidField('patient_id', APPOINTMENT_MESSAGES.patientNotFound)
  if (row.archived_at) throw invalidField('patient_id', APPOINTMENT_MESSAGES.patientArchived)
}

/** A bookable procedure: of this practice and not archived (none is fine). */
async function assertProcedure(
  ex: Executor,
  practiceId: number,
  procedureId: number | null | undefined,
) {
  if (procedureId === null || procedureId === undefined) return
  const [row] = await ex
    .select({ id: procedures.id })
    .from(procedures)
    .where(
      and(
        eq(procedures.id, procedureId),
        eq(procedures.practice_id, practiceId),
        isNull(procedures.archived_at),
      ),
    )
  if (!row) throw invalidField('procedure_id', APPOINTMENT_MESSAGES.procedureNotFound)
}

/** Records a change of an appointment with the transaction that made it. */
function recordChange(
  tx: Transaction,
  staff: Staff,
  action: AuditAction,
  row: { id: number; patient_id: number },
  at: Date,
) {
  return recordWithin(
    tx,
    {
      action,
      userId: staff.user.id,
      practiceId: staff.user.practice_id,
      ip: staff.ip,
      details: { appointment_id: row.id, patient_id: row.patient_id },
    },
    at,
  )
}

/**
 * The appointments' use cases and reads, on one database: the routes check who asks and answer;
 * what is read and written is here, and each change is on record with the transaction that
 * makes it.
 */
export function appointmentService(db: Database, now: () => Date) {
  /** The appointment with this id when it is the caller's practice's; else not found. */
  const own = async (user: AuthUser, id: number) => {
    const [row] = await db
      .select({ ...appointmentColumns, notes: appointments.notes })
      .from(appointments)
      .where(eq(appointments.id, id))
      .limit(1)
    if (!row || row.practice_id !== user.practice_id) throw notFound(NOT_FOUND)
    return row
  }

  /** Runs `change` in a transaction that records `action` of `row` too. */
  const onRecord = (
    staff: Staff,
    action: AuditAction,
    row: { id: number; patient_id: number },
    change: (tx: Transaction, at: Date) => Promise<unknown>,
  ) =>
    db.transaction(async (tx) => {
      const at = now()
      await change(tx, at)
      await recordChange(tx, staff, action, row, at)
    })

  return {
    own,

    /** One appointment of the practice with its patient and procedure. */
    async detail(practiceId: number, id: number) {
      const [row] = await appointmentDetails(
        db,
        and(eq(appointments.practice_id, practiceId), eq(appointments.id, id)),
      )
      if (!row) throw new Error('The appointment vanished while it was being answered')
      return row
    },

    /** The practice's appointments from `from` until before `to`, with patient and procedure. */
    range(practiceId: number, from: Date, to: Date) {
      return appointmentDetails(
        db,
        and(
          eq(appointments.practice_id, practiceId),
          gte(appointments.starts_at, from),
          lt(appointments.starts_at, to),
        ),
      )
    },

    /** The practice's appointments from `start` until before `end`, as the spec's day answers. */
    day(practiceId: number, start: Date, end: Date) {
      return db
        .select(appointmentColumns)
        .from(appointments)
        .where(
          and(
            eq(appointments.practice_id, practiceId),
            gte(appointments.starts_at, start),
            lt(appointments.starts_at, end),
          ),
        )
        .orderBy(asc(appointments.starts_at), asc(appointments.id))
    },

    /** Books an appointment for a bookable patient and procedure of the practice. */
    async book(staff: Staff, input: AppointmentInput) {
      const practiceId = staff.user.practice_id
      return db.transaction(async (tx) => {
        await assertPatient(tx, practiceId, input.patient_id)
        await assertProcedure(tx, practiceId, input.procedure_id)
        const at = now()
        const [row] = await tx
          .insert(appointments)
          .values({
            practice_id: practiceId,
            patient_id: input.patient_id,
            procedure_id: input.procedure_id ?? null,
            starts_at: new Date(input.starts_at),
            notes: input.notes ?? '',
            status: 'scheduled',
            created_at: at,
          })
          .returning({ id: appointments.id, patient_id: appointments.patient_id })
        if (!row) throw new Error('The appointment was not stored')
        await recordChange(tx, staff, 'appointment.created', row, at)
        return row
      })
    },

    /** Changes a scheduled appointment's procedure, time or notes. */
    async change(staff: Staff, id: number, changes: AppointmentChange) {
      const current = await own(staff.user, id)
      if (current.status !== 'scheduled') throw conflict(APPOINTMENT_MESSAGES.notScheduled)
      await onRecord(staff, 'appointment.updated', current, async (tx, at) => {
        await assertProcedure(tx, current.practice_id, changes.procedure_id)
        await tx
          .update(appointments)
          .set({
            ...(changes.procedure_id === undefined ? {} : { procedure_id: changes.procedure_id }),
            ...(changes.starts_at === undefined ? {} : { starts_at: new Date(changes.starts_at) }),
            ...(changes.notes === undefined ? {} : { notes: changes.notes }),
            updated_at: at,
          })
          // Only while still scheduled: a checkout completing it meanwhile wins.
          .where(and(eq(appointments.id, current.id), eq(appointments.status, 'scheduled')))
      })
      return current
    },

    /** Cancels a scheduled appointment; a cancelled one stays as it is, a completed one cannot. */
    async cancel(staff: Staff, id: number) {
      const current = await own(staff.user, id)
      if (current.status === 'completed') throw conflict(APPOINTMENT_MESSAGES.notScheduled)
      if (current.status === 'scheduled') {
        await onRecord(staff, 'appointment.cancelled', current, (tx, at) =>
          tx
            .update(appointments)
            .set({ status: 'cancelled', updated_at: at })
            .where(and(eq(appointments.id, id), eq(appointments.status, 'scheduled'))),
        )
      }
      return current
    },

    /**
     * Deletes a scheduled or cancelled appointment unless its status changed since it was read;
     * a completed one stays. Answers the appointment as it was.
     */
    async remove(staff: Staff, id: number) {
      const appointment = await own(staff.user, id)
      if (appointment.status === 'completed') {
        throw conflict(APPOINTMENT_MESSAGES.completedNoDelete)
      }
      await onRecord(staff, 'appointment.deleted', appointment, (tx) =>
        tx
          .delete(appointments)
          .where(
            and(eq(appointments.id, appointment.id), eq(appointments.status, appointment.status)),
          ),
      )
      return appointment
    },
  }
}

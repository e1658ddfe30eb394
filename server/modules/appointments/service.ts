import { and, asc, eq, gte, isNull, lt } from 'drizzle-orm'
import {
  APPOINTMENT_MESSAGES,
  type AppointmentChange,
  type AppointmentInput,
} from '#domain/appointments.ts'
import type { Database } from '#server/db/client.ts'
import { appointments, patients, procedures } from '#server/db/schema.ts'
import { badRequest } from '#server/http/errors.ts'

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

/** A 400 naming the field, so the form shows it beside that field. */
const invalid = (field: string, message: string) => badRequest(message, { field })

/**
 * The appointments' use cases and reads, on one database: the routes check who asks, audit and
 * answer; what is read and written is here.
 */
export function appointmentService(db: Database, now: () => Date) {
  /** A bookable patient: of this practice and not archived. */
  const assertPatient = async (practiceId: number, patientId: number) => {
    const [row] = await db
      .select({ archived_at: patients.archived_at })
      .from(patients)
      .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
    if (!row) throw invalid('patient_id', APPOINTMENT_MESSAGES.patientNotFound)
    if (row.archived_at) throw invalid('patient_id', APPOINTMENT_MESSAGES.patientArchived)
  }

  /** A bookable procedure: of this practice and not archived (none is fine). */
  const assertProcedure = async (practiceId: number, procedureId: number | null | undefined) => {
    if (procedureId === null || procedureId === undefined) return
    const [row] = await db
      .select({ id: procedures.id })
      .from(procedures)
      .where(
        and(
          eq(procedures.id, procedureId),
          eq(procedures.practice_id, practiceId),
          isNull(procedures.archived_at),
        ),
      )
    if (!row) throw invalid('procedure_id', APPOINTMENT_MESSAGES.procedureNotFound)
  }

  return {
    /** The appointment with this id, of any practice (the caller checks it is its own). */
    async find(id: number) {
      const [row] = await db
        .select({ ...appointmentColumns, notes: appointments.notes })
        .from(appointments)
        .where(eq(appointments.id, id))
        .limit(1)
      return row
    },

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
    async book(practiceId: number, input: AppointmentInput) {
      await assertPatient(practiceId, input.patient_id)
      await assertProcedure(practiceId, input.procedure_id)
      const [row] = await db
        .insert(appointments)
        .values({
          practice_id: practiceId,
          patient_id: input.patient_id,
          procedure_id: input.procedure_id ?? null,
          starts_at: new Date(input.starts_at),
          notes: input.notes ?? '',
          status: 'scheduled',
          created_at: now(),
        })
        .returning({ id: appointments.id, patient_id: appointments.patient_id })
      if (!row) throw new Error('The appointment was not stored')
      return row
    },

    /** Changes a scheduled appointment's procedure, time or notes. */
    async change(current: { id: number; practice_id: number }, changes: AppointmentChange) {
      await assertProcedure(current.practice_id, changes.procedure_id)
      await db
        .update(appointments)
        .set({
          ...(changes.procedure_id === undefined ? {} : { procedure_id: changes.procedure_id }),
          ...(changes.starts_at === undefined ? {} : { starts_at: new Date(changes.starts_at) }),
          ...(changes.notes === undefined ? {} : { notes: changes.notes }),
          updated_at: now(),
        })
        // Only while still scheduled: a checkout completing it meanwhile wins.
        .where(and(eq(appointments.id, current.id), eq(appointments.status, 'scheduled')))
    },

    /** Cancels the appointment if it is still scheduled. */
    async cancel(id: number) {
      await db
        .update(appointments)
        .set({ status: 'cancelled', updated_at: now() })
        .where(and(eq(appointments.id, id), eq(appointments.status, 'scheduled')))
    },

    /** Deletes the appointment unless its status changed since it was read. */
    async remove(appointment: { id: number; status: string }) {
      await db
        .delete(appointments)
        .where(
          and(eq(appointments.id, appointment.id), eq(appointments.status, appointment.status)),
        )
    },
  }
}

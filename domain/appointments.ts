import * as v from 'valibot'
import { MAX_STORED_INTEGER } from '#domain/practice-data.ts'

/**
 * Appointments at the front desk: booked for a patient, maybe a procedure,
 * at an instant; rescheduled, cancelled, completed (by a visit at checkout) or deleted.
 * Days are calendar days in UTC, as the server has always counted them.
 */

/** The longest range one `GET /appointments?from=&to=` answers, in days. */
export const APPOINTMENT_RANGE_MAX_DAYS = 42

/** The longest note an appointment keeps. */
export const APPOINTMENT_NOTES_MAX_LENGTH = 1000

/** What the front desk reads about an appointment's refusals, word for word. */
export const APPOINTMENT_MESSAGES = {
  completedNoDelete:
    "A completed appointment cannot be deleted: reverse its visit from the patient's profile.",
  notScheduled: 'Only a scheduled appointment can be changed.',
  patientNotFound: 'Choose a patient of this practice.',
  patientArchived: 'This patient is archived: restore them before booking.',
  procedureNotFound: 'Choose a procedure of this practice that is not archived.',
  startsAt: 'Choose the date and time the appointment starts.',
  range: `Choose a range of at most ${APPOINTMENT_RANGE_MAX_DAYS} days.`,
  notes: `Notes can be at most ${APPOINTMENT_NOTES_MAX_LENGTH} characters.`,
} as const

const RowId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_STORED_INTEGER))

const StartsAt = v.pipe(
  v.string(APPOINTMENT_MESSAGES.startsAt),
  v.isoTimestamp(APPOINTMENT_MESSAGES.startsAt),
)

const Notes = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(APPOINTMENT_NOTES_MAX_LENGTH, APPOINTMENT_MESSAGES.notes),
)

/** `POST /appointments`. */
export const AppointmentInputSchema = v.strictObject({
  patient_id: v.pipe(
    v.number(APPOINTMENT_MESSAGES.patientNotFound),
    v.integer(),
    v.minValue(1),
    v.maxValue(MAX_STORED_INTEGER),
  ),
  procedure_id: v.optional(v.nullable(RowId)),
  starts_at: StartsAt,
  notes: v.optional(Notes),
})
export type AppointmentInput = v.InferOutput<typeof AppointmentInputSchema>

/** `PUT /appointments/{id}`: reschedule, change the procedure or the notes. */
export const AppointmentChangeSchema = v.strictObject({
  procedure_id: v.optional(v.nullable(RowId)),
  starts_at: v.optional(StartsAt),
  notes: v.optional(Notes),
})
export type AppointmentChange = v.InferOutput<typeof AppointmentChangeSchema>

/** An appointment with what the desk needs to show it: the patient's name and the procedure's. */
export const AppointmentDetailSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  patient_id: v.number(),
  procedure_id: v.nullable(v.number()),
  starts_at: v.string(),
  notes: v.string(),
  status: v.picklist(['scheduled', 'completed', 'cancelled']),
  /**
   * The status Nextech gives an appointment the sync brought (proposed, pending, booked, arrived,
   * fulfilled, cancelled, noshow); null for one made here.
   */
  nextech_status: v.nullable(v.string()),
  patient: v.object({
    id: v.number(),
    first_name: v.string(),
    last_name: v.string(),
    phone: v.nullable(v.string()),
  }),
  procedure: v.nullable(v.object({ id: v.number(), name: v.string() })),
})
export type AppointmentDetail = v.InferOutput<typeof AppointmentDetailSchema>

/** `GET /appointments?from=&to=`: the first day and the day after the last (`YYYY-MM-DD`, UTC). */
export const AppointmentRangeQuerySchema = v.object({
  from: v.pipe(v.string(), v.isoDate('from must be a calendar date written YYYY-MM-DD.')),
  to: v.pipe(v.string(), v.isoDate('to must be a calendar date written YYYY-MM-DD.')),
})

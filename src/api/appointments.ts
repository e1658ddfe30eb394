import * as v from 'valibot'
import { type AppointmentDetail, AppointmentDetailSchema } from '#domain/appointments.ts'
import { type Appointment, AppointmentSchema } from '#domain/practice-data.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** The calendar day of `date` as `YYYY-MM-DD` in UTC, the day the server counts in. */
export function toDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/**
 * `GET /appointments/{practiceId}/{day}`: the practice's appointments starting on one UTC day
 * (`YYYY-MM-DD`), earliest first. The spec names the segments only `{a}/{b}`; practice and day is
 * our contract with the server.
 */
export async function listAppointments(practiceId: number, day: string): Promise<Appointment[]> {
  return parseAnswer(
    'GET /api/appointments/:practiceId/:date',
    v.array(AppointmentSchema),
    await http.get(`appointments/${practiceId}/${encodeURIComponent(day)}`).json(),
  )
}

/** `DELETE /appointments/{id}`: removes an appointment. */
export async function deleteAppointment(id: number): Promise<void> {
  await http.delete(`appointments/${id}`)
}

/** `GET /appointments?from=&to=`: the days from `from` up to (not including) `to`, with names. */
export async function listAppointmentRange(from: string, to: string): Promise<AppointmentDetail[]> {
  return parseAnswer(
    'GET /api/appointments',
    v.array(AppointmentDetailSchema),
    await http.get('appointments', { searchParams: { from, to } }).json(),
  )
}

/** `POST /appointments`: books an appointment. */
export async function createAppointment(
  input: Body<'POST /api/appointments'>,
): Promise<AppointmentDetail> {
  return parseAnswer(
    'POST /api/appointments',
    AppointmentDetailSchema,
    await http.post('appointments', { json: input }).json(),
  )
}

/** `PUT /appointments/{id}`: reschedules, or changes the procedure or the notes. */
export async function updateAppointment(
  id: number,
  changes: Body<'PUT /api/appointments/:id'>,
): Promise<AppointmentDetail> {
  return parseAnswer(
    'PUT /api/appointments/:id',
    AppointmentDetailSchema,
    await http.put(`appointments/${id}`, { json: changes }).json(),
  )
}

/** `POST /appointments/{id}/cancel`: cancels a scheduled appointment. */
export async function cancelAppointment(id: number): Promise<AppointmentDetail> {
  return parseAnswer(
    'POST /api/appointments/:id/cancel',
    AppointmentDetailSchema,
    await http.post(`appointments/${id}/cancel`).json(),
  )
}

/** `GET /appointments/{id}`: one appointment with its patient and procedure. */
export async function getAppointment(id: number): Promise<AppointmentDetail> {
  return parseAnswer(
    'GET /api/appointments/:id',
    AppointmentDetailSchema,
    await http.get(`appointments/${id}`).json(),
  )
}

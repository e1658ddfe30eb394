import * as v from 'valibot'
import { type Appointment, AppointmentSchema } from '#domain/practice-data.ts'
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
  return v.parse(
    v.array(AppointmentSchema),
    await http.get(`appointments/${practiceId}/${encodeURIComponent(day)}`).json(),
  )
}

/** `DELETE /appointments/{id}`: removes an appointment. */
export async function deleteAppointment(id: number): Promise<void> {
  await http.delete(`appointments/${id}`)
}

import * as v from 'valibot'
import { type Appointment, AppointmentSchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** A calendar day as `YYYY-MM-DD` in the browser's time zone. */
export function toDay(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, '0')
  const day = String(date.getDate()).padStart(2, '0')
  return `${date.getFullYear()}-${month}-${day}`
}

/**
 * `GET /appointments/{practiceId}/{day}`: the practice's appointments on one day (`YYYY-MM-DD`).
 * The spec names the segments only `{a}/{b}`; practice and day is our contract with the server.
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

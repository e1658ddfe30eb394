import * as v from 'valibot'
import { type Activity, ActivitySchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** `GET /activities/patient/{id}`: a patient's reward activity, newest first. */
export async function listPatientActivities(patientId: number): Promise<Activity[]> {
  return v.parse(v.array(ActivitySchema), await http.get(`activities/patient/${patientId}`).json())
}

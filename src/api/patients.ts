import * as v from 'valibot'
import { type Patient, type PatientInput, PatientSchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

const PatientListSchema = v.array(PatientSchema)

/** `GET /patients/by-practice/{id}`: the practice's patients. */
export async function listPatientsByPractice(practiceId: number): Promise<Patient[]> {
  return v.parse(PatientListSchema, await http.get(`patients/by-practice/${practiceId}`).json())
}

/** `GET /patients/all/by-practice/{id}`: every patient of the practice. */
export async function listAllPatientsByPractice(practiceId: number): Promise<Patient[]> {
  return v.parse(PatientListSchema, await http.get(`patients/all/by-practice/${practiceId}`).json())
}

/** `GET /patients/all/by-practice/converted/{id}`: the practice's converted patients. */
export async function listConvertedPatientsByPractice(practiceId: number): Promise<Patient[]> {
  return v.parse(
    PatientListSchema,
    await http.get(`patients/all/by-practice/converted/${practiceId}`).json(),
  )
}

/** `GET /patients/{id}`: one patient. */
export async function getPatient(id: number): Promise<Patient> {
  return v.parse(PatientSchema, await http.get(`patients/${id}`).json())
}

/** `PUT /patients/{id}`: changes some fields of a patient; answers the updated patient. */
export async function updatePatient(id: number, changes: Partial<PatientInput>): Promise<Patient> {
  return v.parse(PatientSchema, await http.put(`patients/${id}`, { json: changes }).json())
}

/** `POST /patients`: adds a patient to the signed-in user's practice. */
export async function createPatient(input: PatientInput): Promise<Patient> {
  return v.parse(PatientSchema, await http.post('patients', { json: input }).json())
}

/**
 * `PUT /patients/unsubscribe/{id}` (no sign-in needed): stops marketing e-mail for the patient
 * whose unsubscribe link carries `id` (a random token, not the patient's row number).
 */
export async function unsubscribePatient(id: string): Promise<void> {
  await http.put(`patients/unsubscribe/${encodeURIComponent(id)}`, {
    json: { email_subscription: false },
  })
}

import { HTTPError } from 'ky'
import * as v from 'valibot'
import {
  type Patient,
  type PatientPage,
  PatientPageSchema,
  PatientSchema,
  type PatientSort,
  type PatientSummary,
  PatientSummarySchema,
} from '#domain/practice-data.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { apiErrorMessage, http } from '#src/lib/http.ts'

/** `GET /patients/summary`: how many patients, e-mail subscribers and clients, counted by the server. */
export async function patientSummary(): Promise<PatientSummary> {
  return parseAnswer(
    'GET /api/patients/summary',
    PatientSummarySchema,
    await http.get('patients/summary').json(),
  )
}

/** `GET /patients/{id}`: one patient. */
export async function getPatient(id: number): Promise<Patient> {
  return parseAnswer(
    'GET /api/patients/:id',
    PatientSchema,
    await http.get(`patients/${id}`).json(),
  )
}

/** `PUT /patients/{id}`: changes some fields of a patient; answers the updated patient. */
export async function updatePatient(
  id: number,
  changes: Body<'PUT /api/patients/:id'>,
): Promise<Patient> {
  return parseAnswer(
    'PUT /api/patients/:id',
    PatientSchema,
    await http.put(`patients/${id}`, { json: changes }).json(),
  )
}

/** `POST /patients`: adds a patient to the signed-in user's practice. */
export async function createPatient(input: Body<'POST /api/patients'>): Promise<Patient> {
  return parseAnswer(
    'POST /api/patients',
    PatientSchema,
    await http.post('patients', { json: input }).json(),
  )
}

/**
 * The names of the patients `ids` names (each fetched once by id), for a screen that lists rows of
 * a few patients (a day's appointments) without loading the practice's whole patient table. A
 * patient the server does not answer for is left out; the screen says "Patient #id".
 */
export async function patientNames(ids: readonly number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)]
  const found = await Promise.allSettled(unique.map((id) => getPatient(id)))
  const names = new Map<number, string>()
  for (const result of found) {
    if (result.status === 'fulfilled') {
      names.set(result.value.id, `${result.value.first_name} ${result.value.last_name}`)
    }
  }
  return names
}

/** `GET /patients`: one page of the practice's patients, searched and sorted on the server. */
export async function listPatients(query: {
  search?: string | undefined
  page?: number | undefined
  pageSize?: number | undefined
  sort?: PatientSort | undefined
  archived?: boolean | undefined
}): Promise<PatientPage> {
  const searchParams: Record<string, string> = {}
  if (query.search) searchParams.search = query.search
  if (query.page) searchParams.page = String(query.page)
  if (query.pageSize) searchParams.pageSize = String(query.pageSize)
  if (query.sort) searchParams.sort = query.sort
  if (query.archived) searchParams.archived = 'true'
  return parseAnswer(
    'GET /api/patients',
    PatientPageSchema,
    await http.get('patients', { searchParams }).json(),
  )
}

/** `POST /patients/{id}/archive` (Manager, Admin): hides the patient from lists; history stays. */
export async function archivePatient(id: number): Promise<Patient> {
  return parseAnswer(
    'POST /api/patients/:id/archive',
    PatientSchema,
    await http.post(`patients/${id}/archive`).json(),
  )
}

/** `POST /patients/{id}/restore` (Manager, Admin): brings an archived patient back. */
export async function restorePatient(id: number): Promise<Patient> {
  return parseAnswer(
    'POST /api/patients/:id/restore',
    PatientSchema,
    await http.post(`patients/${id}/restore`).json(),
  )
}

/**
 * The sentence of a failed patient save and, for a duplicate e-mail or phone (409), the id of the
 * patient who already has it, so the form can link to them.
 */
export async function patientSaveFailure(
  error: unknown,
): Promise<{ message: string; existingPatientId?: number | undefined }> {
  const message = await apiErrorMessage(error)
  if (error instanceof HTTPError && error.response.status === 409) {
    const body = v.safeParse(
      DuplicateSchema,
      await error.response
        .clone()
        .json()
        .catch(() => null),
    )
    if (body.success) return { message, existingPatientId: body.output.error.details.patient_id }
  }
  return { message }
}

const DuplicateSchema = v.object({
  error: v.object({ details: v.object({ patient_id: v.number() }) }),
})

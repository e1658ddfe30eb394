import {
  type PatientImportAnswer,
  PatientImportAnswerSchema,
  type PatientImportPreview,
  PatientImportPreviewSchema,
} from '#domain/patient-import.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `POST /patients/import/preview`: what importing these rows would do; writes nothing. */
export async function previewImportChunk(
  chunk: Body<'POST /api/patients/import/preview'>,
): Promise<PatientImportPreview> {
  return parseAnswer(
    'POST /api/patients/import/preview',
    PatientImportPreviewSchema,
    await http.post('patients/import/preview', { json: chunk }).json(),
  )
}

/**
 * `POST /patients/import`: creates the rows of a chunk that pass; the same chunk again creates
 * nobody and lists those rows as already imported.
 */
export async function importPatientsChunk(
  chunk: Body<'POST /api/patients/import'>,
): Promise<PatientImportAnswer> {
  return parseAnswer(
    'POST /api/patients/import',
    PatientImportAnswerSchema,
    await http.post('patients/import', { json: chunk }).json(),
  )
}

import * as v from 'valibot'
import {
  RedemptionCodeAnswerSchema,
  type VisitAnswer,
  VisitAnswerSchema,
  type VisitInput,
  type VisitPreview,
  type VisitPreviewInput,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import { http } from '#src/lib/http.ts'

/** `POST /visits/preview`: what the lines would earn for the patient, and the lines refused. */
export async function previewVisit(input: VisitPreviewInput): Promise<VisitPreview> {
  return v.parse(VisitPreviewSchema, await http.post('visits/preview', { json: input }).json())
}

/**
 * `POST /visits`: records a visit (its items, points and optional redemption) once per
 * `idempotencyKey`; the same key again answers the visit already recorded.
 */
export async function recordVisit(input: VisitInput): Promise<VisitAnswer> {
  return v.parse(VisitAnswerSchema, await http.post('visits', { json: input }).json())
}

/** `GET /visits/{id}`: a recorded visit with its lines and entries. */
export async function getVisit(id: number): Promise<VisitAnswer> {
  return v.parse(VisitAnswerSchema, await http.get(`visits/${id}`).json())
}

/** `POST /visits/{id}/undo`: reverses the visit's entries within its 10 minutes. */
export async function undoVisit(id: number): Promise<{ balance: number }> {
  return v.parse(VisitUndoAnswerSchema, await http.post(`visits/${id}/undo`).json())
}

/** `POST /patients/{id}/redemption-code`: texts the patient a code for a redemption. */
export async function sendRedemptionCode(patientId: number): Promise<{ authyId: string }> {
  return v.parse(
    RedemptionCodeAnswerSchema,
    await http.post(`patients/${patientId}/redemption-code`).json(),
  )
}

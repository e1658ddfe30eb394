import {
  type ApprovalAnswer,
  ApprovalAnswerSchema,
  RedemptionCodeAnswerSchema,
  RedemptionCodeCheckAnswerSchema,
  type VisitAnswer,
  VisitAnswerSchema,
  type VisitPreview,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `POST /visits/preview`: what the lines would earn for the patient, and the lines refused. */
export async function previewVisit(input: Body<'POST /api/visits/preview'>): Promise<VisitPreview> {
  return parseAnswer(
    'POST /api/visits/preview',
    VisitPreviewSchema,
    await http.post('visits/preview', { json: input }).json(),
  )
}

/**
 * `POST /visits`: records a visit (its items, points and optional redemption) once per
 * `idempotencyKey`; the same key again answers the visit already recorded.
 */
export async function recordVisit(input: Body<'POST /api/visits'>): Promise<VisitAnswer> {
  return parseAnswer(
    'POST /api/visits',
    VisitAnswerSchema,
    await http.post('visits', { json: input }).json(),
  )
}

/** `GET /visits/{id}`: a recorded visit with its lines and entries. */
export async function getVisit(id: number): Promise<VisitAnswer> {
  return parseAnswer(
    'GET /api/visits/:id',
    VisitAnswerSchema,
    await http.get(`visits/${id}`).json(),
  )
}

/**
 * `POST /visits/{id}/undo`: reverses the visit's entries within its 10 minutes, and puts back
 * what it took from the membership (the bank it paid from, the allowances it used).
 */
export async function undoVisit(
  id: number,
): Promise<{ balance: number; membership_bank_cents?: number | null }> {
  return parseAnswer(
    'POST /api/visits/:id/undo',
    VisitUndoAnswerSchema,
    await http.post(`visits/${id}/undo`).json(),
  )
}

/** `POST /patients/{id}/redemption-code`: texts the patient a code for one amount. */
export async function sendRedemptionCode(
  patientId: number,
  amount: Body<'POST /api/patients/:id/redemption-code'>,
): Promise<{ authyId: string }> {
  return parseAnswer(
    'POST /api/patients/:id/redemption-code',
    RedemptionCodeAnswerSchema,
    await http.post(`patients/${patientId}/redemption-code`, { json: amount }).json(),
  )
}

/** `POST /patients/{id}/redemption-code/check`: whether the typed code is right (uses nothing). */
export async function checkRedemptionCode(
  patientId: number,
  input: Body<'POST /api/patients/:id/redemption-code/check'>,
): Promise<{ valid: true }> {
  return parseAnswer(
    'POST /api/patients/:id/redemption-code/check',
    RedemptionCodeCheckAnswerSchema,
    await http.post(`patients/${patientId}/redemption-code/check`, { json: input }).json(),
  )
}

/** `POST /visits/approval`: a manager's approval of the lines' prices and points. */
export async function approveVisit(
  input: Body<'POST /api/visits/approval'>,
): Promise<ApprovalAnswer> {
  return parseAnswer(
    'POST /api/visits/approval',
    ApprovalAnswerSchema,
    await http.post('visits/approval', { json: input }).json(),
  )
}

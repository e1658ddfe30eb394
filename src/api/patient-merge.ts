import {
  type DuplicatePage,
  DuplicatePageSchema,
  type MergeAnswer,
  MergeAnswerSchema,
  type MergePreview,
  MergePreviewSchema,
} from '#domain/patient-merge.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /patients/duplicates` (Manager, Admin): a page of possible duplicate pairs. */
export async function listDuplicates(page = 1, pageSize = 25): Promise<DuplicatePage> {
  return parseAnswer(
    'GET /api/patients/duplicates',
    DuplicatePageSchema,
    await http
      .get('patients/duplicates', {
        searchParams: { page: String(page), pageSize: String(pageSize) },
      })
      .json(),
  )
}

/** `GET /patients/{keptId}/merge/{mergedId}`: what merging `mergedId` into `keptId` would do. */
export async function previewMerge(keptId: number, mergedId: number): Promise<MergePreview> {
  return parseAnswer(
    'GET /api/patients/:id/merge/:mergedId',
    MergePreviewSchema,
    await http.get(`patients/${keptId}/merge/${mergedId}`).json(),
  )
}

/** `POST /patients/{keptId}/merge/{mergedId}`: merges; the key makes a retry a replay. */
export async function mergePatients(
  keptId: number,
  mergedId: number,
  idempotencyKey: string,
): Promise<MergeAnswer> {
  return parseAnswer(
    'POST /api/patients/:id/merge/:mergedId',
    MergeAnswerSchema,
    await http
      .post(`patients/${keptId}/merge/${mergedId}`, {
        json: { idempotencyKey } satisfies Body<'POST /api/patients/:id/merge/:mergedId'>,
      })
      .json(),
  )
}

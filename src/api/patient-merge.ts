import * as v from 'valibot'
import {
  type DuplicatePage,
  DuplicatePageSchema,
  type MergeAnswer,
  MergeAnswerSchema,
  type MergePreview,
  MergePreviewSchema,
} from '#domain/patient-merge.ts'
import { http } from '#src/lib/http.ts'

/** `GET /patients/duplicates` (Manager, Admin): a page of possible duplicate pairs. */
export async function listDuplicates(page = 1, pageSize = 25): Promise<DuplicatePage> {
  return v.parse(
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
  return v.parse(MergePreviewSchema, await http.get(`patients/${keptId}/merge/${mergedId}`).json())
}

/** `POST /patients/{keptId}/merge/{mergedId}`: merges; the key makes a retry a replay. */
export async function mergePatients(
  keptId: number,
  mergedId: number,
  idempotencyKey: string,
): Promise<MergeAnswer> {
  return v.parse(
    MergeAnswerSchema,
    await http.post(`patients/${keptId}/merge/${mergedId}`, { json: { idempotencyKey } }).json(),
  )
}

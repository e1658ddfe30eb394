import type { MergeAnswer, MergePreview } from '#domain/patient-merge.ts'
import { formatPhone } from '#domain/phone.ts'
import { mergePatients, previewMerge } from '#src/api/patient-merge.ts'
import { listPatients } from '#src/api/patients.ts'
import { apiErrorMessage } from '#src/lib/http.ts'
import type { PatientChoice } from '#src/ui/patient-picker.tsx'

/** A refused call as the sentence the server gave, for the merge dialog to show. */
async function sentenceOf<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw new Error(await apiErrorMessage(error))
  }
}

/** The other patient of a merge, found as the person types (the patient list's search). */
export async function searchMergePatients(term: string): Promise<PatientChoice[]> {
  const page = await listPatients({ search: term, pageSize: 10 })
  return page.data.map((p) => {
    const name = `${p.first_name} ${p.last_name}`
    const detail = p.phone ? formatPhone(p.phone) : p.email
    return { id: p.id, label: detail ? `${name} · ${detail}` : name }
  })
}

/**
 * The calls of one opening of the merge dialog: the preview, and the merge with one idempotency
 * key, so a retry or a double click of "Merge patients" merges once.
 */
export function mergeCalls(): {
  preview: (keptId: number, mergedId: number) => Promise<MergePreview>
  merge: (keptId: number, mergedId: number) => Promise<MergeAnswer>
} {
  const key = `web-merge-${crypto.randomUUID()}`
  return {
    preview: (keptId, mergedId) => sentenceOf(() => previewMerge(keptId, mergedId)),
    merge: (keptId, mergedId) => sentenceOf(() => mergePatients(keptId, mergedId, key)),
  }
}

import type { SnapshotFrom } from 'xstate'
import { type ImportField, mappingProblems } from '#domain/patient-import.ts'
import {
  chunkCount,
  type PatientImportContext,
  type patientImportMachine,
} from '#machines/patient-import/patient-import.machine.ts'

/** A snapshot of the patient import. */
export type PatientImportSnapshot = SnapshotFrom<typeof patientImportMachine>

/** The four steps the page shows, in order. */
export const IMPORT_STEPS = [
  'Choose a file',
  'Match the columns',
  'Check the rows',
  'Import',
] as const

/** The step on screen, from 0. */
export function selectStepIndex(snapshot: PatientImportSnapshot): number {
  if (snapshot.matches('choosing') || snapshot.matches('reading')) return 0
  if (snapshot.matches('mapping')) return 1
  if (snapshot.matches('checking') || snapshot.matches('reviewing')) return 2
  return 3
}

/** How many patient rows the file has. */
export function selectRowCount(context: PatientImportContext): number {
  return context.csv?.records.length ?? 0
}

/** Rows checked or imported so far, of all, for the progress bar. */
export function selectProgress(snapshot: PatientImportSnapshot): { done: number; total: number } {
  const { context } = snapshot
  const total = selectRowCount(context)
  const chunks = Math.min(context.chunk, chunkCount(context))
  return { done: Math.min(chunks * context.chunkRows, total), total }
}

/** What is wrong with the current mapping, by field. */
export function selectMappingProblems(
  context: PatientImportContext,
): Partial<Record<ImportField, string>> {
  return mappingProblems(context.mapping)
}

/** "1,000" in the page's words. */
export const formatCount = (n: number) => n.toLocaleString('en-US')

/** "1 row" or "2 rows". */
export const rowsText = (n: number, word = 'row') =>
  `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`

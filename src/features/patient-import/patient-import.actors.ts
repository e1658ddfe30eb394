import Papa from 'papaparse'
import { fromPromise } from 'xstate'
import {
  IMPORT_MAX_ROWS,
  IMPORT_MESSAGES,
  type PatientImportAnswer,
  type PatientImportChunk,
  type PatientImportPreview,
} from '#domain/patient-import.ts'
import type { CsvSource, ParsedCsv } from '#machines/patient-import/patient-import.machine.ts'
import { importPatientsChunk, previewImportChunk } from '#src/api/patient-import.ts'
import { withUserMessage } from '#src/lib/http.ts'

/** Bytes PapaParse reads at a time: the page gets the main thread back between slices. */
const PARSE_SLICE_BYTES = 256 * 1024

/** The SHA-256 of the content, as 64 hexadecimal digits. */
async function sha256(blob: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer())
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * Parses a CSV with PapaParse in slices (a file is read through FileReader a slice at a time, so
 * 10,000 rows never freeze the page), never by splitting on commas: quoted commas, quotes and
 * line breaks inside cells are read as the file means them.
 */
function parseRecords(blob: Blob): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const records: string[][] = []
    let tooMany = false
    // PapaParse reads a Blob like a File; its types only name File.
    Papa.parse<string[]>(blob as File, {
      skipEmptyLines: 'greedy',
      chunkSize: PARSE_SLICE_BYTES,
      chunk: (results, parser) => {
        for (const record of results.data) records.push(record)
        // The header is one more line than the patients.
        if (records.length > IMPORT_MAX_ROWS + 1) {
          tooMany = true
          parser.abort()
        }
      },
      complete: () => {
        if (tooMany) reject(new Error(IMPORT_MESSAGES.tooManyRows))
        else resolve(records)
      },
      error: () => reject(new Error(IMPORT_MESSAGES.unreadable)),
    })
  })
}

/** Reads the chosen file or the pasted text: its header, its records and its SHA-256. */
export async function readCsv(source: CsvSource): Promise<ParsedCsv> {
  if (source.kind === 'text' && source.text.trim() === '')
    throw new Error(IMPORT_MESSAGES.emptyText)
  if (source.kind === 'file' && !/\.(csv|txt)$/i.test(source.name)) {
    throw new Error(IMPORT_MESSAGES.notCsv)
  }
  const blob = source.kind === 'file' ? source.file : new Blob([source.text], { type: 'text/csv' })
  const [records, fileId] = await Promise.all([parseRecords(blob), sha256(blob)])
  const [header, ...rows] = records
  if (!header || rows.length === 0) throw new Error(IMPORT_MESSAGES.emptyFile)
  return {
    name: source.kind === 'file' ? source.name : 'Pasted text',
    fileId,
    headers: header.map((h, i) => (i === 0 ? h.replace(/^\ufeff/, '') : h).trim()),
    records: rows,
  }
}

/** The real effects of the patient import: PapaParse and the two import calls of the API. */
export const patientImportActors = {
  readCsv: fromPromise<ParsedCsv, CsvSource>(({ input }) => readCsv(input)),
  previewChunk: fromPromise<PatientImportPreview, PatientImportChunk>(({ input }) =>
    withUserMessage(() => previewImportChunk(input)),
  ),
  importChunk: fromPromise<PatientImportAnswer, PatientImportChunk>(({ input }) =>
    withUserMessage(() => importPatientsChunk(input)),
  ),
}

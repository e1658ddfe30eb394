import { assign, fromPromise, setup } from 'xstate'
import { csvRow } from '#domain/csv.ts'
import {
  contactsOf,
  type DateOrder,
  dateCells,
  duplicatesWithin,
  type FileDates,
  fileDates,
  guessMapping,
  IMPORT_CHUNK_ROWS,
  IMPORT_MESSAGES,
  type ImportField,
  type ImportMapping,
  type ImportRejection,
  mappingProblems,
  mapRecord,
  type PatientImportAnswer,
  type PatientImportChunk,
  type PatientImportPreview,
  prepareRow,
  readBalance,
  rejectedRowsCsv,
} from '#domain/patient-import.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'

/** A failure the server answered with 403: the actors attach the answer's status to their errors. */
function isRefusal(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 403
  )
}

/** Where the CSV comes from: a chosen file, or text pasted into the page. */
export type CsvSource = { kind: 'file'; file: Blob; name: string } | { kind: 'text'; text: string }

/** A CSV as the `readCsv` actor reads it: its header, its records and the file's SHA-256. */
export type ParsedCsv = {
  /** The file's name, or "Pasted text". */
  name: string
  /** The SHA-256 of the content, 64 hexadecimal digits: the import's key for this file. */
  fileId: string
  headers: string[]
  /** The records after the header; record `i` is row `i + 2` as a spreadsheet numbers it. */
  records: string[][]
}

/** Totals of the checks or of the import so far. */
export type ImportTally = {
  /** Rows that would be created (checks) or were created (import). */
  created: number
  /** Opening balances that would be posted (checks) or were posted (import), in points. */
  points: number
  rejected: ImportRejection[]
  alreadyImported: number
}

export type PatientImportInput = {
  /** Rows per request; the API takes at most {@link IMPORT_CHUNK_ROWS}. */
  chunkRows?: number
}

export type PatientImportContext = {
  chunkRows: number
  source: CsvSource | null
  csv: ParsedCsv | null
  mapping: ImportMapping
  /** The chunk being checked or imported, from 0. */
  chunk: number
  preview: ImportTally
  result: ImportTally
  /** True when the person stopped the import before its last chunk. */
  stopped: boolean
  /**
   * The importer's statement that every patient of a file without an e-mail consent column
   * agreed to marketing e-mail; false until they tick it, and again for each check.
   */
  emailConsentStated: boolean
  /** The message of the last failure, shown until the next step. */
  error: string | null
  /**
   * False when the last failure was a refusal by permission (403): trying the chunk again cannot
   * help (the person's role changed while importing), so the view offers only to stop.
   */
  retryable: boolean
  /** What the mapped date columns say about their order, read on Check the rows. */
  dates: FileDates
  /**
   * The order the dates are read in and sent as YYYY-MM-DD: the file's own when its dates
   * decide it; for an ambiguous file month first until the person chooses (`dates.choose`).
   */
  dateOrder: DateOrder
  /** True once the person said how an ambiguous file writes its dates. */
  dateOrderChosen: boolean
}

export type PatientImportEvent =
  | { type: 'file.choose'; file: Blob; name: string }
  | { type: 'text.paste'; text: string }
  | { type: 'mapping.change'; field: ImportField; column: number | null }
  | { type: 'mapping.confirm' }
  | { type: 'mapping.edit' }
  | { type: 'check.cancel' }
  | { type: 'import.start' }
  | { type: 'import.retry' }
  | { type: 'import.stop' }
  | { type: 'rejected.download' }
  | { type: 'file.change' }
  | { type: 'consent.state'; stated: boolean }
  | { type: 'dates.choose'; order: DateOrder }

const emptyTally = (): ImportTally => ({
  created: 0,
  points: 0,
  rejected: [],
  alreadyImported: 0,
})

const noMapping = (): ImportMapping => guessMapping([])

/** How many requests the file takes. */
export function chunkCount(context: Pick<PatientImportContext, 'csv' | 'chunkRows'>): number {
  return Math.ceil((context.csv?.records.length ?? 0) / context.chunkRows)
}

/** The mapped rows of chunk `index`, with their row numbers. */
export function chunkOf(context: PatientImportContext, index: number): PatientImportChunk {
  const csv = context.csv
  if (!csv) throw new Error('No file was read')
  const from = index * context.chunkRows
  return {
    file_id: csv.fileId,
    ...(context.emailConsentStated ? { email_consent_for_all: true } : {}),
    rows: csv.records
      .slice(from, from + context.chunkRows)
      .map((cells, i) =>
        prepareRow(mapRecord(cells, context.mapping, from + i + 2), context.dateOrder),
      ),
  }
}

/** Adds a chunk's answer to a tally. */
function addUp(
  tally: ImportTally,
  answer: Pick<PatientImportAnswer, 'rejected' | 'already_imported'> & {
    created: number
    points: number
  },
): ImportTally {
  return {
    created: tally.created + answer.created,
    points: tally.points + answer.points,
    rejected: [...tally.rejected, ...answer.rejected],
    alreadyImported: tally.alreadyImported + answer.already_imported.length,
  }
}

/**
 * The checks complete: the server compared each chunk with the practice's patients and within
 * itself; rows repeating an earlier row of another chunk are found here, over the whole file.
 */
function withFileDuplicates(context: PatientImportContext, preview: ImportTally): ImportTally {
  // Rows the server refused are out already; the others only need their contacts compared,
  // which keeps this pass over 10,000 rows short (no field rules run again here).
  const refused = new Set(preview.rejected.map((r) => r.row))
  const valid: { row: number; input: ReturnType<typeof contactsOf> }[] = []
  const balances = new Map<number, number>()
  for (let i = 0; i < chunkCount(context); i++) {
    for (const row of chunkOf(context, i).rows) {
      if (refused.has(row.row)) continue
      valid.push({ row: row.row, input: contactsOf(row) })
      if (row.opening_balance) balances.set(row.row, readBalance(row.opening_balance) ?? 0)
    }
  }
  const extra = [...duplicatesWithin(valid)].map(([row, reason]) => ({
    row,
    reason,
    patient_id: null,
  }))
  const extraPoints = extra.reduce((sum, r) => sum + (balances.get(r.row) ?? 0), 0)
  return {
    ...preview,
    created: Math.max(0, preview.created - extra.length),
    points: Math.max(0, preview.points - extraPoints),
    rejected: [...preview.rejected, ...extra].sort((a, b) => a.row - b.row),
  }
}

/**
 * The patient import at `/patients/import`: choose a CSV file or
 * paste its text → map its columns (guessed from the header) → check every row with the server
 * (each row's problems and the duplicates of existing patients) → import chunk by chunk with
 * progress → a summary with the rejected rows to download.
 *
 * - The file is read by the `readCsv` actor (PapaParse in chunks, and the file's SHA-256, which
 *   keys the import: the same file again creates nobody). It rejects with the words to show for
 *   an unreadable, empty or too large file.
 * - Checking and importing send one chunk at a time (`previewChunk`, `importChunk`), so a file of
 *   10,000 rows moves in 50 requests with the progress between them. A failed chunk keeps the
 *   file, the mapping and what was imported: Try again sends that chunk again (the server answers
 *   a chunk it already took with "already imported"); Stop ends with the summary so far.
 * - Import never opts anyone in to marketing e-mail by default: a file without an
 *   e-mail consent column is imported unsubscribed unless the importer states, on the preview,
 *   that every patient of the file agreed (`consent.state`); the statement travels with each
 *   chunk and the server logs it with who and when.
 * - Effects are named, not implemented: the three actors reject with "not provided" until the
 *   route supplies them, and the slots `onImported` (the patient list is out of date) and
 *   `onDownloadRejected` (save the rejected rows' CSV) are the route's.
 */

/** An import of nothing yet: the machine's start, and where "Start over" goes back to. */
function freshContext(chunkRows: number): PatientImportContext {
  return {
    chunkRows,
    source: null,
    csv: null,
    mapping: noMapping(),
    chunk: 0,
    preview: emptyTally(),
    result: emptyTally(),
    stopped: false,
    emailConsentStated: false,
    error: null,
    retryable: true,
    dates: { kind: 'none' },
    dateOrder: 'mdy',
    dateOrderChosen: false,
  }
}

/** The mapped date columns' order, decided on Check the rows; month first until said otherwise. */
function datesOfMapping(context: PatientImportContext) {
  const dates = fileDates(dateCells(context.csv?.records ?? [], context.mapping))
  return {
    dates,
    dateOrder: dates.kind === 'decided' ? dates.order : ('mdy' as const),
    dateOrderChosen: false,
  }
}
export const patientImportMachine = setup({
  types: {
    input: {} as PatientImportInput,
    context: {} as PatientImportContext,
    events: {} as PatientImportEvent,
  },
  actors: {
    readCsv: fromPromise<ParsedCsv, CsvSource>(() =>
      Promise.reject(new Error('readCsv: not provided')),
    ),
    previewChunk: fromPromise<PatientImportPreview, PatientImportChunk>(() =>
      Promise.reject(new Error('previewChunk: not provided')),
    ),
    importChunk: fromPromise<PatientImportAnswer, PatientImportChunk>(() =>
      Promise.reject(new Error('importChunk: not provided')),
    ),
  },
  actions: {
    /** Slot: patients were created (the route refreshes the patient list). */
    onImported: () => {},
    /** Slot: save the rejected rows as a CSV file. */
    onDownloadRejected: (_, _params: { csv: string; fileName: string }) => {},
    startOver: assign(({ context }) => freshContext(context.chunkRows)),
  },
  guards: {
    isMappingUsable: ({ context }) => Object.keys(mappingProblems(context.mapping)).length === 0,
    hasMoreChunks: ({ context }) => context.chunk + 1 < chunkCount(context),
    hasNoEmailConsentColumn: ({ context }) => context.mapping.email_subscription === null,
    hasAmbiguousDates: ({ context }) => context.dates.kind === 'ambiguous',
    areDatesSettled: ({ context }) => context.dates.kind !== 'ambiguous' || context.dateOrderChosen,
  },
}).createMachine({
  id: 'patientImport',
  context: ({ input }) =>
    freshContext(Math.min(input.chunkRows ?? IMPORT_CHUNK_ROWS, IMPORT_CHUNK_ROWS)),
  initial: 'choosing',
  states: {
    choosing: {
      description: 'Choose a CSV file or paste its text.',
      on: {
        'file.choose': {
          target: 'reading',
          actions: assign(({ event }) => ({
            source: { kind: 'file' as const, file: event.file, name: event.name },
            error: null,
          })),
        },
        'text.paste': {
          target: 'reading',
          actions: assign(({ event }) => ({
            source: { kind: 'text' as const, text: event.text },
            error: null,
          })),
        },
      },
    },
    reading: {
      description: "Reading the CSV in chunks and computing the file's SHA-256.",
      invoke: {
        id: 'readCsv',
        src: 'readCsv',
        input: ({ context }) => context.source as CsvSource,
        onDone: {
          target: 'mapping',
          actions: assign(({ event }) => ({
            csv: event.output,
            mapping: guessMapping(event.output.headers),
          })),
        },
        onError: {
          target: 'choosing',
          actions: assign(({ event }) => ({
            source: null,
            error: errorMessage(event.error, IMPORT_MESSAGES.unreadable),
          })),
        },
      },
    },
    mapping: {
      description: 'Each field shows the column guessed from the header; the person can change it.',
      on: {
        'mapping.change': {
          actions: assign(({ context, event }) => ({
            mapping: { ...context.mapping, [event.field]: event.column },
            error: null,
          })),
        },
        'mapping.confirm': {
          guard: 'isMappingUsable',
          target: 'checking',
          actions: assign(({ context }) => ({
            chunk: 0,
            preview: emptyTally(),
            error: null,
            emailConsentStated: false,
            ...datesOfMapping(context),
          })),
        },
        'file.change': { target: 'choosing', actions: 'startOver' },
      },
    },
    checking: {
      description: 'Checking the rows with the server, one chunk at a time, writing nothing.',
      on: {
        'check.cancel': { target: 'mapping', actions: assign({ preview: emptyTally() }) },
      },
      invoke: {
        id: 'previewChunk',
        src: 'previewChunk',
        input: ({ context }) => chunkOf(context, context.chunk),
        onDone: [
          {
            guard: 'hasMoreChunks',
            target: 'checking',
            reenter: true,
            actions: assign(({ context, event }) => ({
              preview: addUp(context.preview, {
                ...event.output,
                created: event.output.ready,
              }),
              chunk: context.chunk + 1,
            })),
          },
          {
            target: 'reviewing',
            actions: assign(({ context, event }) => ({
              preview: withFileDuplicates(
                context,
                addUp(context.preview, { ...event.output, created: event.output.ready }),
              ),
            })),
          },
        ],
        onError: {
          target: 'mapping',
          actions: assign(({ event }) => ({
            preview: emptyTally(),
            error: errorMessage(event.error, IMPORT_MESSAGES.generic),
          })),
        },
      },
    },
    reviewing: {
      description:
        "The preview: how many rows will be created, and each refused row's reason; for a file without an e-mail consent column, the importer's statement that every patient agreed (unticked: nobody is opted in).",
      on: {
        'consent.state': {
          guard: 'hasNoEmailConsentColumn',
          actions: assign(({ event }) => ({ emailConsentStated: event.stated })),
        },
        'dates.choose': {
          guard: 'hasAmbiguousDates',
          target: 'checking',
          actions: assign(({ event }) => ({
            dateOrder: event.order,
            dateOrderChosen: true,
            chunk: 0,
            preview: emptyTally(),
            emailConsentStated: false,
          })),
        },
        'import.start': {
          guard: 'areDatesSettled',
          target: 'importing',
          actions: assign({ chunk: 0, result: emptyTally(), stopped: false, error: null }),
        },
        'mapping.edit': 'mapping',
        'file.change': { target: 'choosing', actions: 'startOver' },
      },
    },
    importing: {
      description: 'Importing one chunk at a time, with the progress shown; Stop ends after this.',
      on: {
        'import.stop': { target: 'imported', actions: assign({ stopped: true }) },
      },
      invoke: {
        id: 'importChunk',
        src: 'importChunk',
        input: ({ context }) => chunkOf(context, context.chunk),
        onDone: [
          {
            guard: 'hasMoreChunks',
            target: 'importing',
            reenter: true,
            actions: assign(({ context, event }) => ({
              result: addUp(context.result, {
                ...event.output,
                points: event.output.points_posted,
              }),
              chunk: context.chunk + 1,
            })),
          },
          {
            target: 'imported',
            actions: assign(({ context, event }) => ({
              result: addUp(context.result, {
                ...event.output,
                points: event.output.points_posted,
              }),
              chunk: context.chunk + 1,
            })),
          },
        ],
        onError: {
          target: 'failed',
          actions: assign(({ event }) => ({
            error: errorMessage(event.error, IMPORT_MESSAGES.generic),
            retryable: !isRefusal(event.error),
          })),
        },
      },
    },
    failed: {
      description: 'A chunk failed: what was imported stays; try that chunk again or stop.',
      on: {
        'import.retry': {
          target: 'importing',
          actions: assign({ error: null, retryable: true }),
        },
        'import.stop': { target: 'imported', actions: assign({ stopped: true, error: null }) },
      },
    },
    imported: {
      description: 'The summary: patients created, rows skipped with their reasons, the download.',
      entry: 'onImported',
      on: {
        'rejected.download': {
          actions: {
            type: 'onDownloadRejected',
            params: ({ context }) => rejectedDownload(context),
          },
        },
        'file.change': { target: 'choosing', actions: 'startOver' },
      },
    },
  },
})

/** The rejected rows' file: the file's columns, each rejected row as written, and a Reason. */
export function rejectedDownload(context: PatientImportContext): { csv: string; fileName: string } {
  const csv = context.csv
  if (!csv) return { csv: csvRow(['Reason']), fileName: 'rejected-rows.csv' }
  const rows = context.result.rejected.map((r) => ({
    cells: csv.records[r.row - 2] ?? [],
    reason: r.reason,
  }))
  const base = csv.name.replace(/\.csv$/i, '').replace(/[^\w.-]+/g, '-') || 'patients'
  return { csv: rejectedRowsCsv(csv.headers, rows), fileName: `${base}-rejected-rows.csv` }
}

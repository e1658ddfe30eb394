/**
 * The patient import's model and flow: the fixture events the real machine is walked
 * with, what tells its states apart, and a person's words. The view test (`view.test.tsx`)
 * replays its paths through the import page in jsdom (two rows a chunk); the browser replay
 * (`browser.spec.ts`) replays them in Chromium against the real server, with a file of
 * {@link REPLAY_FILE_ROWS} rows so that the page's own chunks of {@link IMPORT_CHUNK_ROWS} make two
 * chunks too. The end-to-end journey with a 1,000-row file is `tests/e2e/patient-import.spec.ts`.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import {
  IMPORT_CHUNK_ROWS,
  IMPORT_MESSAGES,
  mappingProblems,
  type PatientImportAnswer,
  type PatientImportPreview,
} from '#domain/patient-import.ts'
import {
  type ParsedCsv,
  type PatientImportEvent,
  patientImportMachine,
} from '#machines/patient-import/patient-import.machine.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswerFails,
  type QaPath,
  type StepPlan,
} from '#tests/mbt/index.ts'

/**
 * Three rows, the second without a last name; two rows a chunk, so the file takes two. Every
 * birth date could be read month first or day first, so the preview asks which.
 */
export const importFixtures = {
  chunkRows: 2,
  text: 'First name,Last name,Email,Birth date\nAna,Lopez,ana@example.com,03/04/1990\nBen,,ben@example.com,05/06/1985\nCara,Diaz,cara@example.com,01/02/1979\n',
  fileName: 'patients.csv',
  parsed: {
    name: 'patients.csv',
    fileId: 'c'.repeat(64),
    headers: ['First name', 'Last name', 'Email', 'Birth date'],
    records: [
      ['Ana', 'Lopez', 'ana@example.com', '03/04/1990'],
      ['Ben', '', 'ben@example.com', '05/06/1985'],
      ['Cara', 'Diaz', 'cara@example.com', '01/02/1979'],
    ],
  } satisfies ParsedCsv,
  preview: {
    ready: 1,
    points: 0,
    rejected: [{ row: 3, reason: 'The last name is missing.', patient_id: null }],
    already_imported: [],
  } satisfies PatientImportPreview,
  imported: {
    created: 1,
    points_posted: 0,
    skipped: 1,
    rejected: [{ row: 3, reason: 'The last name is missing.', patient_id: null }],
    already_imported: [],
  } satisfies PatientImportAnswer,
  unreadable: IMPORT_MESSAGES.emptyFile,
  serverDown: 'The server is taking too long to answer. Please try again.',
} as const

/**
 * Rows of the browser replay's file: the fixture's three, then more of its own, one more than
 * the page sends a chunk, so that the real chunks are two as the model's are.
 */
export const REPLAY_FILE_ROWS = IMPORT_CHUNK_ROWS + 1

/** Events of the graph: the person's, and the three calls' answers. */
export type PatientImportModelEvent =
  | PatientImportEvent
  | CallAnswers<'readCsv', ParsedCsv>
  | CallAnswers<'previewChunk', PatientImportPreview>
  | CallAnswers<'importChunk', PatientImportAnswer>

/** Every event with fixture payloads. */
export const patientImportEvents: PatientImportModelEvent[] = [
  {
    type: 'file.choose',
    file: new Blob([importFixtures.text], { type: 'text/csv' }),
    name: importFixtures.fileName,
  },
  { type: 'text.paste', text: importFixtures.text },
  { type: 'mapping.change', field: 'last_name', column: null },
  { type: 'mapping.change', field: 'last_name', column: 1 },
  { type: 'mapping.confirm' },
  { type: 'mapping.edit' },
  { type: 'check.cancel' },
  { type: 'import.start' },
  { type: 'import.retry' },
  { type: 'import.stop' },
  { type: 'rejected.download' },
  { type: 'file.change' },
  // The fixture's file has no e-mail consent column, so the preview asks for the
  // importer's statement.
  { type: 'consent.state', stated: true },
  // Every birth date of the fixture fits both orders, so the preview asks.
  { type: 'dates.choose', order: 'dmy' },
  {
    type: 'xstate.done.actor.readCsv',
    output: { ...importFixtures.parsed, records: [...importFixtures.parsed.records] },
  },
  { type: 'xstate.error.actor.readCsv', error: new Error(importFixtures.unreadable) },
  { type: 'xstate.done.actor.previewChunk', output: importFixtures.preview },
  { type: 'xstate.error.actor.previewChunk', error: new Error(importFixtures.serverDown) },
  { type: 'xstate.done.actor.importChunk', output: importFixtures.imported },
  { type: 'xstate.error.actor.importChunk', error: new Error(importFixtures.serverDown) },
]

/** The step, the chunk in flight, whether the mapping is usable, the message, stopped or not. */
export function importSignature(snapshot: AnyMachineSnapshot): string {
  const { chunk, error, mapping, stopped, source, dateOrderChosen } = snapshot.context
  return JSON.stringify({
    dateOrderChosen,
    value: snapshot.value,
    chunk,
    error,
    usable: Object.keys(mappingProblems(mapping)).length === 0,
    stopped,
    source: source?.kind ?? null,
  })
}

const states: Record<string, string> = {
  'patientImport.choosing':
    'You see: step 1 of 4, "Choose a CSV file", the CSV file field, "Or paste the CSV text" and Read pasted text',
  'patientImport.reading': 'You see: "Reading the file…"; the fields are disabled',
  'patientImport.mapping':
    'You see: step 2 of 4, "Match the columns", a field per patient detail with the column guessed from the header and the first row\'s value, Check the rows and Choose another file',
  'patientImport.checking':
    'You see: "Checking the rows", a progress bar and "Rows checked: N of M rows", Cancel',
  'patientImport.reviewing':
    'You see: "Check the rows": how many patients will be created, "How are the dates in this file written?" with Month/day/year (US) and Day/month/year (Import N patients is disabled until one is chosen), the rows that will be skipped with their reasons, the box "Every patient in this file agreed to receive marketing e-mail from the practice" (unticked until you tick it), Import N patients, Change the columns, Choose another file',
  'patientImport.importing':
    'You see: "Importing the patients", a progress bar and "Rows imported: N of M rows", Stop the import',
  'patientImport.failed':
    'You see: "The import paused" with the reason, the progress so far, Try again and Stop the import',
  'patientImport.imported':
    'You see: "Import finished" (or "Import stopped"), the patients created, the rejected rows with their reasons, Download rejected rows, Import another file, Go to the patient list',
}

const eventWords: Record<PatientImportModelEvent['type'], (e: EventObject) => string> = {
  'file.choose': () => `Choose the file ${importFixtures.fileName} in the CSV file field`,
  'text.paste': () => 'Paste the three rows into "Or paste the CSV text", click Read pasted text',
  'mapping.change': (e) =>
    (e as unknown as { column: number | null }).column === null
      ? 'Set Last name to "Not in the file"'
      : 'Set Last name to the column "Last name"',
  'mapping.confirm': () => 'Click Check the rows',
  'mapping.edit': () => 'Click Change the columns',
  'check.cancel': () => 'Click Cancel',
  'import.start': () => 'Click Import N patients',
  'import.retry': () => 'Click Try again',
  'import.stop': () => 'Click Stop the import',
  'rejected.download': () =>
    'Click Download rejected rows: a CSV file of the rejected rows with a Reason column',
  'file.change': () => 'Click Choose another file (or Import another file)',
  'dates.choose': () =>
    'Under "How are the dates in this file written?", choose Day/month/year: the rows are checked again',
  'consent.state': () =>
    'Tick "Every patient in this file agreed to receive marketing e-mail from the practice" (the file has no e-mail consent column)',
  'xstate.done.actor.readCsv': () =>
    'The file is read: 3 rows, the columns First name, Last name, Email and Birth date',
  'xstate.error.actor.readCsv': () =>
    `The file cannot be read: you see "${importFixtures.unreadable}"`,
  'xstate.done.actor.previewChunk': () => 'The server checks a chunk of rows',
  'xstate.error.actor.previewChunk': () =>
    `The check fails: back on the columns, you see "${importFixtures.serverDown}"`,
  'xstate.done.actor.importChunk': () => 'The server imports a chunk of rows',
  'xstate.error.actor.importChunk': () =>
    `A chunk fails: you see "The import paused" and "${importFixtures.serverDown}"`,
}

/** The patient import's model. */
export const patientImportModel: Model = {
  name: 'patientImport',
  title: 'Patient import',
  source: {
    file: 'machines/patient-import/patient-import.machine.ts',
    name: 'patientImportMachine',
    doc: 'patient-import',
  },
  machine: patientImportMachine,
  events: patientImportEvents,
  scenarios: [
    {
      name: 'Open Import patients as a Manager (two rows a chunk)',
      input: { chunkRows: importFixtures.chunkRows },
    },
  ],
  signature: importSignature,
  allows: (snapshot, event) => {
    if (event.type === 'mapping.change') {
      // Only a change the screen shows: clearing a set column, or setting the cleared one.
      const current = snapshot.context.mapping.last_name
      return (event as unknown as { column: number | null }).column === null
        ? current !== null
        : current === null
    }
    // The download is offered only when rows were rejected.
    if (event.type === 'rejected.download') return snapshot.context.result.rejected.length > 0
    // The question is asked once per check of an ambiguous file; choosing checks again.
    if (event.type === 'dates.choose') {
      return snapshot.context.dates.kind === 'ambiguous' && !snapshot.context.dateOrderChosen
    }
    // The statement is a tick: offered unticked, for a file without an e-mail consent column.
    if (event.type === 'consent.state') {
      return (
        snapshot.context.mapping.email_subscription === null && !snapshot.context.emailConsentStated
      )
    }
    return true
  },
  states,
  describeEvent: (event: EventObject) =>
    eventWords[event.type as PatientImportModelEvent['type']]?.(event) ?? '',
}

const extraRows = REPLAY_FILE_ROWS - importFixtures.parsed.records.length
const replayFile = `the fixture's three rows and ${extraRows} more (${REPLAY_FILE_ROWS} rows), every e-mail of its own`
const timedOut = (call: string) =>
  `the real server answers at once, so interception answers ${call} with a 504 carrying the sentence the page shows when no answer comes within 15 seconds`

/** Where the browser replay's input or answers differ from the model's fixtures. */
function replayStep(path: QaPath, i: number): StepPlan {
  const event = path.steps[i]?.event.type
  const unreadable = nextAnswerFails(path, i, 'readCsv')
  switch (event) {
    case 'file.choose':
      return {
        text: unreadable
          ? `Choose the file ${importFixtures.fileName} in the CSV file field, its header row only`
          : `Choose the file ${importFixtures.fileName} in the CSV file field: ${replayFile}`,
      }
    case 'text.paste':
      return {
        text: unreadable
          ? 'Paste the header row only into "Or paste the CSV text", click Read pasted text'
          : `Paste ${replayFile} into "Or paste the CSV text", click Read pasted text`,
      }
    case 'xstate.done.actor.readCsv':
      return {
        text: `The file is read: ${REPLAY_FILE_ROWS} rows, the columns First name, Last name, Email and Birth date`,
      }
    case 'import.stop':
      return path.steps[i - 1]?.state.matches('importing')
        ? {
            note: 'The chunk on its way still reaches the server, which imports it; the summary counts only the chunks answered before Stop.',
          }
        : {}
    case 'xstate.error.actor.previewChunk':
      return { intercepted: timedOut('the check of this chunk') }
    case 'xstate.error.actor.importChunk':
      return { intercepted: timedOut('this chunk') }
    default:
      return {}
  }
}

/** The patient import flow. */
export const patientImportFlow: FlowSpec = {
  id: 'patient-import',
  title: 'Patient import',
  intro:
    'Import patients from a CSV file at /patients/import as a Manager or an Admin: choose or paste the file, match its columns, check the rows, import chunk by chunk, download the rejected rows. These paths are replayed in Chromium against the real server (tests/flows/patient-import/browser.spec.ts) and through the page in jsdom; the journey with a 1,000-row file and the measured 10,000-row import is tests/e2e/patient-import.spec.ts.',
  viewTest: 'tests/flows/patient-import/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'patientImport',
      model: patientImportModel,
      title: 'Patient import',
      intro:
        'Paths of the import machine: reading, mapping, checking and importing, each with its failure, retry and stop.',
      scenarioName: () => 'Open Import patients as the Admin (a file of two chunks)',
      host: () => 'local',
      start: () =>
        `As the demo Admin (demo@example.com / DemoPass123), open Patients and click Import CSV (the browser replay signs in through the API). The file starts with the fixture's three rows (First name, Last name, Email, Birth date written 03/04/1990, which reads either way; the second has no last name). The browser replay adds ${extraRows} rows after them, and every file it reads has e-mails of its own, so nothing in the practice or an earlier import matches: the page sends ${IMPORT_CHUNK_ROWS} rows a chunk, so its ${REPLAY_FILE_ROWS} rows take two chunks. The view test reads the three rows two a chunk.`,
      step: replayStep,
    },
  ],
}

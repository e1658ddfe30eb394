/**
 * The patient import's Playwright driver: its QA paths (docs/paths/patient-import.md), replayed
 * in Chromium against the real server as the demo Admin. Every file a path reads is its own: the
 * fixture's three rows and more, up to {@link REPLAY_FILE_ROWS} rows (two of the page's chunks),
 * with e-mails stamped with the run, the path and the read, so the server's duplicate checks and
 * its memory of imported files (one import per file and row) find nothing from other paths.
 *
 * The checks and imports are held by the gate like every call. Reading the file is done in the
 * page (PapaParse and the file's SHA-256), so the replay holds that instead: an init script makes
 * `crypto.subtle.digest` wait until the path lets the read finish, so that "Reading the file…" can
 * be seen.
 */
import { readFile } from 'node:fs/promises'
import type { Page } from '@playwright/test'
import { IMPORT_CHUNK_ROWS } from '#domain/patient-import.ts'
import { apiSignIn, expect, storeSession } from '#tests/e2e/support/fixtures.ts'
import { answerActor, leafNode, nextAnswerFails, type QaStep } from '#tests/mbt/index.ts'
import {
  apiError,
  type ReplayContext,
  type Replayer,
  replayFlow,
} from '#tests/paths/support/replay.ts'
import {
  importFixtures as fixtures,
  patientImportFlow,
  patientImportModel,
  REPLAY_FILE_ROWS,
} from './model.ts'

/** Unique to this run: with the path and the read, every file's e-mails and SHA-256 are new. */
const RUN = Date.now().toString(36)

const HEADER = fixtures.parsed.headers

/** A file the path read: its records (after the header) and its text. */
type ReplayFile = { records: string[][]; text: string }

type Context = ReplayContext & {
  /** How many files the path made so far. */
  reads: number
  /** The last file read (the one the page now holds). */
  file: ReplayFile | null
}

/** A new file: the fixture's three rows, then rows of its own, every e-mail stamped. */
function newFile(context: Context): ReplayFile {
  context.reads += 1
  const stamp = `${RUN}.p${context.path.number}.r${context.reads}`
  const records = fixtures.parsed.records.map(([first = '', last = '', email = '', born = '']) => [
    first,
    last,
    email.replace('@', `.${stamp}@`),
    born,
  ])
  // Birth dates that read either way (every day 12 or less), as the fixture's.
  for (let n = records.length + 1; n <= REPLAY_FILE_ROWS; n++) {
    const day = String((n % 12) + 1).padStart(2, '0')
    records.push([`Avery${n}`, 'Replay', `avery${n}.${stamp}@example.com`, `${day}/03/1981`])
  }
  const text = `${[HEADER, ...records].map((cells) => cells.join(',')).join('\n')}\n`
  context.file = { records, text }
  return context.file
}

/** The header only: the file the page refuses as having no patient rows. */
const HEADER_ONLY = `${HEADER.join(',')}\n`

/** The rows of the current file the server refuses (no last name), with their row numbers. */
function refusedRows(file: ReplayFile, chunks: number): number[] {
  return file.records
    .slice(0, chunks * IMPORT_CHUNK_ROWS)
    .flatMap((cells, i) => (cells[1] ? [] : [i + 2]))
}

/** Rows of the current file the server creates when it imports its first `chunks` chunks. */
function createdRows(file: ReplayFile, chunks: number): number {
  const taken = Math.min(file.records.length, chunks * IMPORT_CHUNK_ROWS)
  return taken - refusedRows(file, chunks).length
}

const currentFile = (context: Context): ReplayFile => {
  if (!context.file) throw new Error('the path has read no file yet')
  return context.file
}

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })
const lastName = (page: Page) => page.getByRole('combobox', { name: /^Last name/ })

/** `n rows`, as the page writes counts. */
const rows = (n: number) => (n === 1 ? '1 row' : `${n.toLocaleString('en-US')} rows`)

/** `n patients`, as the page writes counts. */
const patients = (n: number) => (n === 1 ? '1 patient' : `${n.toLocaleString('en-US')} patients`)

// The read's hold, kept on `window` by the init script below.
type ReadHold = { readHold: { waiting: Array<() => void> } }

/** Makes every read of a file in the page wait for {@link finishRead}. */
async function holdReads(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const subtle = window.crypto?.subtle
    if (!subtle) return
    const digest = subtle.digest.bind(subtle)
    const hold: ReadHold['readHold'] = { waiting: [] }
    Object.assign(window, { readHold: hold })
    subtle.digest = async (algorithm: AlgorithmIdentifier, data: BufferSource) => {
      await new Promise<void>((resolve) => hold.waiting.push(resolve))
      return digest(algorithm, data)
    }
  })
}

/** Resolves once the page's read of a file waits for the replay. */
async function readHeld(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as ReadHold).readHold.waiting.length > 0)
}

/** Lets the waiting read finish (with the page's own result, or its own refusal). */
async function finishRead(page: Page): Promise<void> {
  await readHeld(page)
  await page.evaluate(() => (window as unknown as ReadHold).readHold.waiting.shift()?.())
}

/** The progress bar and its words for the chunk of the model's state. */
async function expectProgress(page: Page, label: string, chunk: number) {
  const total = REPLAY_FILE_ROWS
  const done = Math.min(chunk * IMPORT_CHUNK_ROWS, total)
  await expect(page.getByRole('progressbar', { name: label })).toHaveAttribute(
    'aria-valuenow',
    String(Math.round((done / total) * 100)),
  )
  await expect(
    page.getByRole('status').filter({ hasText: `${label}: ${done} of ${total} rows` }),
  ).toBeVisible()
}

/** How many chunks the import took since the last Import click, up to step `i`. */
function chunksImported(context: Context, i: number): number {
  const steps = context.path.steps.slice(1, i + 1).map((step) => step.event.type)
  const start = steps.lastIndexOf('import.start')
  return steps.slice(start + 1).filter((type) => type === 'xstate.done.actor.importChunk').length
}

const replayer: Replayer<Context> = {
  async open(context) {
    const { page, request } = context
    await holdReads(page)
    await storeSession(page, await apiSignIn(request))
    await page.goto('/patients')
    await page.getByRole('link', { name: 'Import CSV' }).click()
    await expect(page).toHaveURL(/\/patients\/import$/)
  },

  async perform(context, i) {
    const { page, path, gate } = context
    const { event, state } = path.steps[i] as QaStep
    const before = (path.steps[i - 1] as QaStep).state
    switch (event.type) {
      case 'file.choose': {
        const text = nextAnswerFails(path, i, 'readCsv') ? HEADER_ONLY : newFile(context).text
        await page.getByLabel('CSV file', { exact: true }).setInputFiles({
          name: fixtures.fileName,
          mimeType: 'text/csv',
          buffer: Buffer.from(text, 'utf8'),
        })
        return
      }
      case 'text.paste': {
        const text = nextAnswerFails(path, i, 'readCsv') ? HEADER_ONLY : newFile(context).text
        await page.getByRole('textbox', { name: 'Or paste the CSV text' }).fill(text)
        await button(page, 'Read pasted text').click()
        return
      }
      case 'mapping.change': {
        const { column } = event as unknown as { column: number | null }
        await lastName(page).selectOption({
          label: column === null ? 'Not in the file' : 'Last name',
        })
        return
      }
      case 'mapping.confirm':
        await button(page, 'Check the rows').click()
        return
      case 'mapping.edit':
        await button(page, 'Change the columns').click()
        return
      case 'check.cancel':
        await button(page, 'Cancel').click()
        // The chunk in flight still reaches the server (it writes nothing); its answer is ignored.
        await gate.release('previewChunk')
        return
      case 'import.start':
        await button(page, `Import ${patients(createdRows(currentFile(context), 2))}`).click()
        return
      case 'import.retry':
        await button(page, 'Try again').click()
        return
      case 'import.stop':
        await button(page, 'Stop the import').click()
        // Stop ends after the request in flight: the server may still import that chunk.
        if (before.matches('importing')) await gate.release('importChunk')
        return
      case 'rejected.download': {
        const file = currentFile(context)
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          button(page, 'Download rejected rows').click(),
        ])
        expect(download.suggestedFilename()).toBe('patients-rejected-rows.csv')
        const lines = refusedRows(file, chunksImported(context, i)).map(
          (row) => `${(file.records[row - 2] ?? []).join(',')},The last name is missing.`,
        )
        expect(await readFile(await download.path(), 'utf8')).toBe(
          [`${HEADER.join(',')},Reason`, ...lines, ''].join('\r\n'),
        )
        return
      }
      case 'dates.choose':
        // A click, not check(): the rows are checked again at once, so the question leaves the
        // screen (the check is held by the gate) before it could be seen ticked.
        await page.getByRole('radio', { name: 'Day/month/year' }).click()
        return
      case 'consent.state':
        await page
          .getByRole('checkbox', {
            name: 'Every patient in this file agreed to receive marketing e-mail from the practice',
          })
          .check()
        return
      case 'file.change':
        await button(
          page,
          before.matches('imported') ? 'Import another file' : 'Choose another file',
        ).click()
        return
      case 'xstate.done.actor.readCsv':
      case 'xstate.error.actor.readCsv':
        await finishRead(page)
        return
      case 'xstate.error.actor.previewChunk':
        await gate.release('previewChunk', apiError(504, 'GatewayTimeout', fixtures.serverDown))
        return
      case 'xstate.error.actor.importChunk':
        await gate.release('importChunk', apiError(504, 'GatewayTimeout', fixtures.serverDown))
        return
      default: {
        const actor = answerActor(event)
        if (!actor) throw new Error(`no action for ${event.type}`)
        // The next chunk's request is held too, so that its progress can be seen.
        if (state.matches('checking') || state.matches('importing')) gate.arm(actor)
        await gate.release(actor)
      }
    }
  },

  async expectStep(context, i) {
    const { page, path, gate } = context
    const { state } = path.steps[i] as QaStep
    const leaf = leafNode(patientImportModel.machine, state).id
    const { chunk, error, mapping, stopped, source } = state.context
    const heading = (name: string) => page.getByRole('heading', { level: 2, name })
    const alert = page.getByRole('main').getByRole('alert')
    switch (leaf) {
      case 'patientImport.choosing':
        await expect(heading('Choose a CSV file')).toBeVisible()
        await expect(page.getByText('Step 1 of 4: Choose a file')).toBeVisible()
        await expect(page.getByLabel('CSV file', { exact: true })).toBeEnabled()
        await expect(button(page, 'Read pasted text')).toBeEnabled()
        if (error) await expect(alert).toContainText(error)
        else await expect(alert).toHaveCount(0)
        return
      case 'patientImport.reading':
        await readHeld(page)
        await expect(
          page.getByRole('status').filter({ hasText: 'Reading the file…' }),
        ).toBeVisible()
        await expect(page.getByLabel('CSV file', { exact: true })).toBeDisabled()
        await expect(page.getByRole('textbox', { name: 'Or paste the CSV text' })).toBeDisabled()
        return
      case 'patientImport.mapping': {
        await expect(heading('Match the columns')).toBeVisible()
        await expect(page.getByText('Step 2 of 4: Match the columns')).toBeVisible()
        const name = source?.kind === 'text' ? 'Pasted text' : fixtures.fileName
        await expect(page.getByText(`${name}: ${REPLAY_FILE_ROWS} rows of patients.`)).toBeVisible()
        await expect(page.getByRole('combobox', { name: /^First name/ })).toHaveValue('0')
        await expect(page.getByRole('combobox', { name: 'E-mail', exact: true })).toHaveValue('2')
        const usable = mapping.last_name !== null
        await expect(lastName(page)).toHaveValue(usable ? '1' : '')
        await expect(
          page.getByText('Please choose the column that holds the last name.'),
        ).toHaveCount(usable ? 0 : 1)
        if (error) await expect(alert).toContainText(error)
        else await expect(alert).toHaveCount(0)
        await expect(button(page, 'Check the rows')).toBeEnabled()
        await expect(button(page, 'Choose another file')).toBeEnabled()
        return
      }
      case 'patientImport.checking':
        await gate.held('previewChunk')
        await expect(heading('Checking the rows')).toBeVisible()
        await expectProgress(page, 'Rows checked', chunk)
        await expect(button(page, 'Cancel')).toBeEnabled()
        return
      case 'patientImport.reviewing': {
        const file = currentFile(context)
        const refused = refusedRows(file, 2)
        await expect(heading('Check the rows')).toBeVisible()
        await expect(
          page.getByText(`${patients(createdRows(file, 2))} will be created.`),
        ).toBeVisible()
        await expect(
          page.getByText(`${rows(refused.length)} will be skipped; the reason for each is below.`),
        ).toBeVisible()
        const table = page.getByRole('table', { name: 'Rows that will be skipped' })
        for (const row of refused) {
          await expect(
            table.getByRole('row', { name: `${row} The last name is missing.` }),
          ).toBeVisible()
        }
        // The file has no e-mail consent column, so the statement is asked.
        const consent = page.getByRole('checkbox', {
          name: 'Every patient in this file agreed to receive marketing e-mail from the practice',
        })
        // Ticked when the path ticked it since the rows were last checked (the model's states do
        // not tell the tick apart: it changes no step of the flow).
        const events = path.steps.slice(0, i + 1).map((step) => step.event.type)
        const checked = Math.max(
          events.lastIndexOf('mapping.confirm'),
          events.lastIndexOf('dates.choose'),
        )
        if (events.lastIndexOf('consent.state') > checked) {
          await expect(consent).toBeChecked()
        } else await expect(consent).not.toBeChecked()
        // Every birth date reads both ways, so the page asks before importing.
        const importButton = button(page, `Import ${patients(createdRows(file, 2))}`)
        const dayFirst = page.getByRole('radio', { name: 'Day/month/year' })
        if (state.context.dateOrderChosen) {
          await expect(dayFirst).toBeChecked()
          await expect(importButton).toBeEnabled()
        } else {
          await expect(dayFirst).not.toBeChecked()
          await expect(importButton).toBeDisabled()
        }
        await expect(button(page, 'Change the columns')).toBeEnabled()
        await expect(button(page, 'Choose another file')).toBeEnabled()
        return
      }
      case 'patientImport.importing':
        await gate.held('importChunk')
        await expect(heading('Importing the patients')).toBeVisible()
        await expectProgress(page, 'Rows imported', chunk)
        await expect(button(page, 'Stop the import')).toBeEnabled()
        await expect(alert).toHaveCount(0)
        return
      case 'patientImport.failed':
        await expect(heading('Importing the patients')).toBeVisible()
        await expect(alert).toContainText('The import paused')
        await expect(alert).toContainText(error ?? '')
        await expectProgress(page, 'Rows imported', chunk)
        await expect(button(page, 'Try again')).toBeEnabled()
        await expect(button(page, 'Stop the import')).toBeEnabled()
        return
      case 'patientImport.imported': {
        const file = currentFile(context)
        const chunks = chunksImported(context, i)
        const refused = refusedRows(file, chunks)
        if (refused.length > 0) {
          await expect(
            page.getByText(`${rows(refused.length)} rejected; the reason for each is below.`),
          ).toBeVisible()
        }
        await expect(heading(stopped ? 'Import stopped' : 'Import finished')).toBeVisible()
        await expect(
          page.getByText(`${patients(createdRows(file, chunks))} created.`),
        ).toBeVisible()
        const download = button(page, 'Download rejected rows')
        if (refused.length > 0) {
          await expect(download).toBeEnabled()
          const table = page.getByRole('table', { name: 'Rejected rows' })
          for (const row of refused) {
            await expect(
              table.getByRole('row', { name: `${row} The last name is missing.` }),
            ).toBeVisible()
          }
        } else {
          await expect(download).toHaveCount(0)
        }
        await expect(button(page, 'Import another file')).toBeEnabled()
        await expect(page.getByRole('link', { name: 'Go to the patient list' })).toHaveAttribute(
          'href',
          '/patients',
        )
        return
      }
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

replayFlow<Context>(patientImportFlow, { [patientImportModel.name]: replayer }, (base) => ({
  ...base,
  reads: 0,
  file: null,
}))

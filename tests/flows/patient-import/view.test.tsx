/**
 * The patient import's jsdom driver: the import machine's paths replayed through the real page
 * with user-event, the three calls answered by the test, checking after every step that the actor
 * reached the modelled state and that the screen shows it.
 */
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import type { ReactNode } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { type Actor, createActor } from 'xstate'
import type {
  PatientImportAnswer,
  PatientImportChunk,
  PatientImportPreview,
} from '#domain/patient-import.ts'
import {
  type CsvSource,
  type ParsedCsv,
  patientImportMachine,
} from '#machines/patient-import/patient-import.machine.ts'
import { selectProgress } from '#machines/patient-import/patient-import.selectors.ts'
import { PatientImportView } from '#src/features/patient-import/patient-import-view.tsx'
import { UserFacingError } from '#src/lib/user-facing-error.ts'
import {
  expectEveryStateAndEvent,
  type PerformEach,
  replayThroughView,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, type QaPath, qaFlow } from '#tests/mbt/index.ts'
import { controlled } from '#tests/support/deferred.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import {
  importFixtures as fixtures,
  patientImportModel as model,
  type PatientImportModelEvent,
  patientImportEvents,
  patientImportFlow,
} from './model.ts'

type Harness = {
  actor: Actor<typeof patientImportMachine>
  user: UserEvent
  readCsv: ReturnType<typeof controlled<ParsedCsv, CsvSource>>
  previewChunk: ReturnType<typeof controlled<PatientImportPreview, PatientImportChunk>>
  importChunk: ReturnType<typeof controlled<PatientImportAnswer, PatientImportChunk>>
  onDownloadRejected: ReturnType<typeof vi.fn>
  onImported: ReturnType<typeof vi.fn>
}

/** Starts the real machine with calls the test answers and renders the import page around it. */
async function open(): Promise<Harness> {
  const readCsv = controlled<ParsedCsv, CsvSource>()
  const previewChunk = controlled<PatientImportPreview, PatientImportChunk>()
  const importChunk = controlled<PatientImportAnswer, PatientImportChunk>()
  const onDownloadRejected = vi.fn()
  const onImported = vi.fn()
  const actor = createActor(
    patientImportMachine.provide({
      actors: {
        readCsv: readCsv.logic,
        previewChunk: previewChunk.logic,
        importChunk: importChunk.logic,
      },
      actions: {
        onDownloadRejected: (_, params) => onDownloadRejected(params),
        onImported: () => onImported(),
      },
    }),
    { input: { chunkRows: fixtures.chunkRows } },
  ).start()
  renderInRouter((): ReactNode => <PatientImportView actorRef={actor} />, '/patients/import')
  await screen.findByRole('heading', { level: 2, name: 'Choose a CSV file' })
  return {
    actor,
    user: userEvent.setup(),
    readCsv,
    previewChunk,
    importChunk,
    onDownloadRejected,
    onImported,
  }
}

/** The fake server's refusals of a chunk: rows without a last name. */
const refused = (chunk: PatientImportChunk) =>
  chunk.rows
    .filter((r) => !r.last_name)
    .map((r) => ({ row: r.row, reason: 'The last name is missing.', patient_id: null }))

const button = (name: string | RegExp) => screen.getByRole('button', { name })
const lastName = () => screen.getByRole('combobox', { name: /^Last name/ })

/** What the person does for each event, and what the fake calls answer. */
const perform: PerformEach<Harness, PatientImportModelEvent> = {
  'file.choose': async ({ user }) => {
    const file = new File([fixtures.text], fixtures.fileName, { type: 'text/csv' })
    await user.upload(screen.getByLabelText('CSV file'), file)
  },
  'text.paste': async ({ user }) => {
    await user.click(screen.getByRole('textbox', { name: 'Or paste the CSV text' }))
    await user.paste(fixtures.text)
    await user.click(button('Read pasted text'))
  },
  'mapping.change': async ({ user }, { column }) => {
    await user.selectOptions(lastName(), column === null ? 'Not in the file' : 'Last name')
  },
  'mapping.confirm': ({ user }) => user.click(button('Check the rows')),
  'mapping.edit': ({ user }) => user.click(button('Change the columns')),
  'check.cancel': ({ user }) => user.click(button('Cancel')),
  'import.start': ({ user }) => user.click(button(/^Import \d/)),
  'import.retry': ({ user }) => user.click(button('Try again')),
  'import.stop': ({ user }) => user.click(button('Stop the import')),
  'rejected.download': async (h) => {
    await h.user.click(button('Download rejected rows'))
    expect(h.onDownloadRejected).toHaveBeenLastCalledWith({
      fileName: 'patients-rejected-rows.csv',
      csv: 'First name,Last name,Email,Birth date,Reason\r\nBen,,ben@example.com,05/06/1985,The last name is missing.\r\n',
    })
  },
  'dates.choose': ({ user }) => user.click(screen.getByRole('radio', { name: 'Day/month/year' })),
  'consent.state': ({ user }) =>
    user.click(
      screen.getByRole('checkbox', {
        name: 'Every patient in this file agreed to receive marketing e-mail from the practice',
      }),
    ),
  'file.change': ({ user }) =>
    user.click(
      screen.queryByRole('button', { name: 'Import another file' }) ??
        button('Choose another file'),
    ),
  'xstate.done.actor.readCsv': async (h, { output }) => {
    const source = h.readCsv.latest().input
    if (source.kind === 'text') expect(source.text).toBe(fixtures.text)
    else {
      expect(source.name).toBe(fixtures.fileName)
      expect(await source.file.text()).toBe(fixtures.text)
    }
    await act(async () => h.readCsv.latest().answer.resolve(output))
  },
  'xstate.error.actor.readCsv': async (h, { error }) => {
    await act(async () => h.readCsv.latest().answer.reject(error))
  },
  // The fake server answers each chunk for its own rows, as the model's fixture does for the
  // first chunk: a row without a last name is refused.
  'xstate.done.actor.previewChunk': async (h) => {
    const { input } = h.previewChunk.latest()
    expect(input.file_id).toBe(fixtures.parsed.fileId)
    const rejected = refused(input)
    await act(async () =>
      h.previewChunk.latest().answer.resolve({
        ready: input.rows.length - rejected.length,
        points: 0,
        rejected,
        already_imported: [],
      }),
    )
  },
  'xstate.error.actor.previewChunk': async (h, { error }) => {
    await act(async () => h.previewChunk.latest().answer.reject(error))
  },
  'xstate.done.actor.importChunk': async (h) => {
    const { input } = h.importChunk.latest()
    // The statement travels with each chunk only when the person ticked it.
    expect(input.email_consent_for_all).toBe(
      h.actor.getSnapshot().context.emailConsentStated ? true : undefined,
    )
    // Chunks of two rows, numbered as a spreadsheet numbers them (the header is row 1).
    const first = input.rows[0]?.row
    expect(input.rows.map((r) => r.row)).toEqual(first === 2 ? [2, 3] : [4])
    // The dates arrive as YYYY-MM-DD, read day first as the person chose.
    expect(input.rows[0]?.birth_date).toBe(first === 2 ? '1990-04-03' : '1979-02-01')
    const rejected = refused(input)
    await act(async () =>
      h.importChunk.latest().answer.resolve({
        created: input.rows.length - rejected.length,
        points_posted: 0,
        skipped: rejected.length,
        rejected,
        already_imported: [],
      }),
    )
  },
  'xstate.error.actor.importChunk': async (h, { error }) => {
    await act(async () => h.importChunk.latest().answer.reject(error))
  },
}

type Snapshot = ReturnType<Harness['actor']['getSnapshot']>

function expectAlert(message: string | null) {
  if (message === null) expect(screen.queryByRole('alert')).toBeNull()
  else expect(screen.getByRole('alert')).toHaveTextContent(message)
}

function expectProgress(label: string, snapshot: Snapshot) {
  const { done, total } = selectProgress(snapshot)
  expect(screen.getByRole('progressbar', { name: label })).toHaveAttribute(
    'aria-valuenow',
    String(Math.round((done / total) * 100)),
  )
  expect(screen.getByText(`${label}: ${done} of ${total} rows`)).toBeVisible()
}

/** What the page must show in each state (keyed by the state node id). */
const expectScreen: Record<string, (snapshot: Snapshot, h: Harness) => void> = {
  'patientImport.choosing': (snapshot) => {
    expect(screen.getByRole('heading', { name: 'Choose a CSV file' })).toBeVisible()
    expect(screen.getByText('Step 1 of 4: Choose a file')).toBeVisible()
    expect(button('Read pasted text')).toBeEnabled()
    expectAlert(snapshot.context.error)
  },
  'patientImport.reading': () => {
    expect(screen.getByRole('status')).toHaveTextContent('Reading the file…')
    expect(screen.getByLabelText('CSV file')).toBeDisabled()
  },
  'patientImport.mapping': (snapshot) => {
    expect(screen.getByRole('heading', { name: 'Match the columns' })).toBeVisible()
    expect(screen.getByRole('combobox', { name: /^First name/ })).toHaveDisplayValue('First name')
    expect(screen.getByRole('combobox', { name: /^E-mail$/ })).toHaveDisplayValue('Email')
    const usable = snapshot.context.mapping.last_name !== null
    expect(lastName()).toHaveDisplayValue(usable ? 'Last name' : 'Not in the file')
    if (usable) {
      expect(screen.queryByText('Please choose the column that holds the last name.')).toBeNull()
    } else {
      expect(screen.getByText('Please choose the column that holds the last name.')).toBeVisible()
    }
    expectAlert(snapshot.context.error)
  },
  'patientImport.checking': (snapshot) => {
    expect(screen.getByRole('heading', { name: 'Checking the rows' })).toBeVisible()
    expectProgress('Rows checked', snapshot)
  },
  'patientImport.reviewing': (snapshot) => {
    const { created, rejected } = snapshot.context.preview
    expect(
      screen.getByText(
        created === 1 ? '1 patient will be created.' : `${created} patients will be created.`,
      ),
    ).toBeVisible()
    const table = screen.getByRole('table', { name: 'Rows that will be skipped' })
    for (const r of rejected) expect(table).toHaveTextContent(r.reason)
    // No consent column, so the statement is asked, unticked until the person ticks it.
    const consent = screen.getByRole('checkbox', {
      name: 'Every patient in this file agreed to receive marketing e-mail from the practice',
    })
    if (snapshot.context.emailConsentStated) expect(consent).toBeChecked()
    else expect(consent).not.toBeChecked()
    // Every date reads both ways, so the page asks and imports only once answered.
    const dayFirst = screen.getByRole('radio', { name: 'Day/month/year' })
    expect(screen.getByRole('radio', { name: 'Month/day/year (US)' })).toBeVisible()
    if (snapshot.context.dateOrderChosen) {
      expect(dayFirst).toBeChecked()
      expect(button(/^Import \d/)).toBeEnabled()
    } else {
      expect(dayFirst).not.toBeChecked()
      expect(button(/^Import \d/)).toBeDisabled()
    }
  },
  'patientImport.importing': (snapshot) => {
    expect(screen.getByRole('heading', { name: 'Importing the patients' })).toBeVisible()
    expectProgress('Rows imported', snapshot)
    expect(button('Stop the import')).toBeEnabled()
    expectAlert(null)
  },
  'patientImport.failed': (snapshot) => {
    expect(screen.getByRole('alert')).toHaveTextContent(snapshot.context.error ?? '')
    if (snapshot.context.retryable) expect(button('Try again')).toBeEnabled()
    else expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull()
    expectProgress('Rows imported', snapshot)
  },
  'patientImport.imported': (snapshot, h) => {
    const { stopped, result } = snapshot.context
    expect(
      screen.getByRole('heading', { name: stopped ? 'Import stopped' : 'Import finished' }),
    ).toBeVisible()
    expect(
      screen.getByText(
        result.created === 1 ? '1 patient created.' : `${result.created} patients created.`,
      ),
    ).toBeVisible()
    const download = screen.queryByRole('button', { name: 'Download rejected rows' })
    if (result.rejected.length > 0) {
      expect(download).toBeEnabled()
      const table = screen.getByRole('table', { name: 'Rejected rows' })
      expect(within(table).getByText('The last name is missing.')).toBeVisible()
    } else expect(download).toBeNull()
    expect(screen.getByRole('link', { name: 'Go to the patient list' })).toHaveAttribute(
      'href',
      '/patients',
    )
    expect(h.onImported).toHaveBeenCalled()
  },
}

const paths = flowPaths(qaFlow(patientImportFlow))

describe('patient import: paths from the machine, replayed through the import page', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))('%s', async (_, path: QaPath) => {
    const replayed = await replayThroughView(path, { open, model, perform, checks: expectScreen })
    replayed.actor.stop()
  })

  it('has a screen check for every state and an action for every event', () => {
    expectEveryStateAndEvent(model.machine, expectScreen, perform, patientImportEvents)
  })
})

describe('patient import: a refusal by permission', () => {
  it('says so and offers only to stop: "Try again" cannot help a person who may no longer import', async () => {
    const h = await open()
    await perform['file.choose'](h, { type: 'file.choose' } as never)
    await act(async () =>
      h.readCsv.latest().answer.resolve({
        ...fixtures.parsed,
        records: [...fixtures.parsed.records],
      }),
    )
    // The fixture's rows are checked two a chunk: each call is answered as the fake server would.
    const answerChecks = async () => {
      while (!h.actor.getSnapshot().matches('reviewing')) {
        await waitFor(() => expect(h.actor.getSnapshot().matches('checking')).toBe(true))
        const call = h.previewChunk.latest()
        const settled = h.previewChunk.calls.length
        await act(async () =>
          call.answer.resolve({
            ...fixtures.preview,
            ready: call.input.rows.length - refused(call.input).length,
            rejected: refused(call.input),
          }),
        )
        await waitFor(() =>
          expect(
            h.actor.getSnapshot().matches('reviewing') || h.previewChunk.calls.length > settled,
          ).toBe(true),
        )
      }
    }
    await h.user.click(await screen.findByRole('button', { name: 'Check the rows' }))
    await answerChecks()
    await h.user.click(await screen.findByRole('radio', { name: 'Day/month/year' }))
    await answerChecks()
    await h.user.click(
      await screen.findByRole('checkbox', {
        name: 'Every patient in this file agreed to receive marketing e-mail from the practice',
      }),
    )
    await waitFor(() => expect(button(/^Import \d/)).toBeEnabled())
    await h.user.click(button(/^Import \d/))
    const refusal = new UserFacingError('Only a manager or an admin can import patients.', {
      status: 403,
    })
    await act(async () => h.importChunk.latest().answer.reject(refusal))
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent(
      'Only a manager or an admin can import patients. The patients imported so far stay imported.',
    )
    expect(alert).not.toHaveTextContent('trying again')
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull()
    expect(button('Stop the import')).toBeEnabled()
    h.actor.stop()
  })
})

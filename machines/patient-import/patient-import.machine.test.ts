import { describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise, waitFor } from 'xstate'
import type {
  PatientImportAnswer,
  PatientImportChunk,
  PatientImportPreview,
} from '#domain/patient-import.ts'
import {
  type ParsedCsv,
  patientImportMachine,
} from '#machines/patient-import/patient-import.machine.ts'
import { selectProgress } from '#machines/patient-import/patient-import.selectors.ts'

/** A file of `n` good rows; row 4 repeats row 2's e-mail when `twin`, row 3 has no last name. */
function csvOf(n: number, { twin = false } = {}): ParsedCsv {
  const records = Array.from({ length: n }, (_, i) => [
    'Avery',
    i === 1 ? '' : `Row${i + 2}`,
    twin && i === n - 1 ? 'avery.2@example.com' : `avery.${i + 2}@example.com`,
  ])
  return {
    name: 'clinic.csv',
    fileId: 'f'.repeat(64),
    headers: ['First', 'Last', 'Email'],
    records,
  }
}

/** A server that refuses rows without a last name and creates the others once per file row. */
function fakeServer({
  failOnce = -1,
  failure = new Error('The server did not answer.') as Error,
} = {}) {
  const created = new Set<number>()
  const requests: PatientImportChunk[] = []
  let calls = 0
  const refuse = (chunk: PatientImportChunk) =>
    chunk.rows
      .filter((r) => !r.last_name)
      .map((r) => ({ row: r.row, reason: 'The last name is missing.', patient_id: null }))
  const previewChunk = fromPromise<PatientImportPreview, PatientImportChunk>(async ({ input }) => {
    const rejected = refuse(input)
    const bad = new Set(rejected.map((r) => r.row))
    const points = input.rows
      .filter((r) => !bad.has(r.row))
      .reduce((sum, r) => sum + Number(r.opening_balance ?? 0), 0)
    return { ready: input.rows.length - rejected.length, points, rejected, already_imported: [] }
  })
  const importChunk = fromPromise<PatientImportAnswer, PatientImportChunk>(async ({ input }) => {
    requests.push(input)
    if (calls++ === failOnce) throw failure
    const rejected = refuse(input)
    const bad = new Set(rejected.map((r) => r.row))
    const already = input.rows.filter((r) => created.has(r.row)).map((r) => r.row)
    let count = 0
    let posted = 0
    for (const r of input.rows) {
      if (!bad.has(r.row) && !created.has(r.row)) {
        created.add(r.row)
        count++
        posted += Number(r.opening_balance ?? 0)
      }
    }
    return {
      created: count,
      points_posted: posted,
      skipped: rejected.length + already.length,
      rejected,
      already_imported: already,
    }
  })
  return { previewChunk, importChunk, requests, created }
}

function start(csv: ParsedCsv, server: ReturnType<typeof fakeServer>) {
  const onDownloadRejected = vi.fn()
  const onImported = vi.fn()
  const actor = createActor(
    patientImportMachine.provide({
      actors: {
        readCsv: fromPromise(async () => csv),
        previewChunk: server.previewChunk,
        importChunk: server.importChunk,
      },
      actions: {
        onDownloadRejected: (_, params) => onDownloadRejected(params),
        onImported: () => onImported(),
      },
    }),
    { input: {} },
  ).start()
  return { actor, onDownloadRejected, onImported }
}

describe('patient import machine', () => {
  it('reads, guesses the mapping, checks and imports 450 rows in 3 chunks, then offers the rejected rows', async () => {
    const server = fakeServer()
    const { actor, onDownloadRejected, onImported } = start(csvOf(450, { twin: true }), server)
    actor.send({ type: 'text.paste', text: 'First,Last,Email\n...' })
    await waitFor(actor, (s) => s.matches('mapping'))
    expect(actor.getSnapshot().context.mapping).toMatchObject({
      first_name: 0,
      last_name: 1,
      email: 2,
    })
    actor.send({ type: 'mapping.confirm' })
    const reviewing = await waitFor(actor, (s) => s.matches('reviewing'))
    // The repeat of row 2 is in the third chunk: found over the whole file, not by the server.
    expect(reviewing.context.preview).toEqual({
      created: 448,
      points: 0,
      rejected: [
        { row: 3, reason: 'The last name is missing.', patient_id: null },
        { row: 451, reason: 'Same e-mail as row 2 of this file.', patient_id: null },
      ],
      alreadyImported: 0,
    })
    actor.send({ type: 'import.start' })
    const done = await waitFor(actor, (s) => s.matches('imported'))
    expect(server.requests.map((c) => c.rows.length)).toEqual([200, 200, 50])
    expect(server.requests[2]?.rows[0]?.row).toBe(402)
    expect(done.context.result.created).toBe(449)
    expect(selectProgress(done)).toEqual({ done: 450, total: 450 })
    expect(onImported).toHaveBeenCalledTimes(1)
    actor.send({ type: 'rejected.download' })
    expect(onDownloadRejected).toHaveBeenCalledWith({
      fileName: 'clinic-rejected-rows.csv',
      csv: 'First,Last,Email,Reason\r\nAvery,,avery.3@example.com,The last name is missing.\r\n',
    })
  })

  it('offers no retry when the server refuses a chunk by permission (403): only stopping can help', async () => {
    // The actors attach the answer's status to their errors (UserFacingError in the app).
    const refusal = Object.assign(new Error('Only a manager or an admin can import patients.'), {
      status: 403,
    })
    const server = fakeServer({ failOnce: 1, failure: refusal })
    const { actor } = start(csvOf(450), server)
    actor.send({ type: 'file.choose', file: new Blob(['x']), name: 'clinic.csv' })
    await waitFor(actor, (s) => s.matches('mapping'))
    actor.send({ type: 'mapping.confirm' })
    await waitFor(actor, (s) => s.matches('reviewing'))
    actor.send({ type: 'import.start' })
    const failed = await waitFor(actor, (s) => s.matches('failed'))
    expect(failed.context.error).toBe('Only a manager or an admin can import patients.')
    expect(failed.context.retryable).toBe(false)
    actor.send({ type: 'import.stop' })
    const stopped = await waitFor(actor, (s) => s.matches('imported'))
    expect(stopped.context.stopped).toBe(true)
    expect(stopped.context.result.created).toBe(199)
  })

  it('keeps the file, the mapping and what was imported when a chunk fails, and sends that chunk again', async () => {
    const server = fakeServer({ failOnce: 1 })
    const { actor } = start(csvOf(450), server)
    actor.send({ type: 'file.choose', file: new Blob(['x']), name: 'clinic.csv' })
    await waitFor(actor, (s) => s.matches('mapping'))
    actor.send({ type: 'mapping.change', field: 'email', column: null })
    actor.send({ type: 'mapping.confirm' })
    await waitFor(actor, (s) => s.matches('reviewing'))
    actor.send({ type: 'import.start' })
    const failed = await waitFor(actor, (s) => s.matches('failed'))
    expect(failed.context.error).toBe('The server did not answer.')
    expect(failed.context.chunk).toBe(1)
    expect(failed.context.mapping.email).toBeNull()
    expect(failed.context.result.created).toBe(199)
    actor.send({ type: 'import.retry' })
    const done = await waitFor(actor, (s) => s.matches('imported'))
    expect(server.requests.map((c) => c.rows[0]?.row)).toEqual([2, 202, 202, 402])
    expect(done.context.result.created).toBe(449)
    expect(done.context.stopped).toBe(false)
  })

  it('stops when asked, refuses a mapping without a last name, and starts over with another file', async () => {
    const server = fakeServer({ failOnce: 0 })
    const { actor } = start(csvOf(10), server)
    actor.send({ type: 'text.paste', text: 'x' })
    await waitFor(actor, (s) => s.matches('mapping'))
    actor.send({ type: 'mapping.change', field: 'last_name', column: null })
    actor.send({ type: 'mapping.confirm' })
    expect(actor.getSnapshot().matches('mapping')).toBe(true)
    actor.send({ type: 'mapping.change', field: 'last_name', column: 1 })
    actor.send({ type: 'mapping.confirm' })
    await waitFor(actor, (s) => s.matches('reviewing'))
    actor.send({ type: 'import.start' })
    await waitFor(actor, (s) => s.matches('failed'))
    actor.send({ type: 'import.stop' })
    expect(actor.getSnapshot().matches('imported')).toBe(true)
    expect(actor.getSnapshot().context.stopped).toBe(true)
    actor.send({ type: 'file.change' })
    expect(actor.getSnapshot().matches('choosing')).toBe(true)
    expect(actor.getSnapshot().context.csv).toBeNull()
  })

  it('reads the dates the way the whole column says, asks for an ambiguous file, and totals the opening balances', async () => {
    const file = (dates: string[]): ParsedCsv => ({
      name: 'emr.csv',
      fileId: 'e'.repeat(64),
      headers: ['First Name', 'Last Name', 'Mobile Phone', 'Date of Birth', 'Points Balance'],
      records: dates.map((date, i) => [
        ` Ana  Maria `,
        `Row${i + 2}`,
        ['(408) 555-4743', '+1 408 555 4744', '408.555.4745'][i] ?? '',
        date,
        ['600', '', '1200'][i] ?? '',
      ]),
    })
    // US dates: 07/25/1987 fits month first only, so the file is read month first.
    const server = fakeServer()
    const us = start(file(['07/06/1992', '07/25/1987', '02/30/1985']), server).actor
    us.send({ type: 'text.paste', text: 'x' })
    await waitFor(us, (s) => s.matches('mapping'))
    us.send({ type: 'mapping.confirm' })
    const previewed = await waitFor(us, (s) => s.matches('reviewing'))
    expect(previewed.context.dates).toEqual({ kind: 'decided', order: 'mdy' })
    expect(previewed.context.preview.points).toBe(1800)
    us.send({ type: 'dates.choose', order: 'dmy' })
    expect(us.getSnapshot().matches('reviewing')).toBe(true)
    us.send({ type: 'import.start' })
    const done = await waitFor(us, (s) => s.matches('imported'))
    expect(done.context.result.points).toBe(1800)
    expect(server.requests[0]?.rows).toEqual([
      expect.objectContaining({
        first_name: 'Ana Maria',
        phone: '+14085554743',
        birth_date: '1992-07-06',
        opening_balance: '600',
      }),
      expect.objectContaining({ phone: '+14085554744', birth_date: '1987-07-25' }),
      // Not a day of the calendar: sent as typed, for the server to refuse with a sentence.
      expect.objectContaining({ phone: '+14085554745', birth_date: '02/30/1985' }),
    ])

    // Every day 12 or less: the preview asks, and nothing is imported until it is answered.
    const asked = fakeServer()
    const eu = start(file(['03/04/1990', '1/2/1980']), asked).actor
    eu.send({ type: 'text.paste', text: 'x' })
    await waitFor(eu, (s) => s.matches('mapping'))
    eu.send({ type: 'mapping.confirm' })
    const ambiguous = await waitFor(eu, (s) => s.matches('reviewing'))
    expect(ambiguous.context.dates).toEqual({ kind: 'ambiguous', example: '03/04/1990' })
    expect(ambiguous.can({ type: 'import.start' })).toBe(false)
    eu.send({ type: 'import.start' })
    expect(eu.getSnapshot().matches('reviewing')).toBe(true)
    eu.send({ type: 'dates.choose', order: 'dmy' })
    const chosen = await waitFor(eu, (s) => s.matches('reviewing'))
    expect(chosen.context).toMatchObject({ dateOrder: 'dmy', dateOrderChosen: true })
    eu.send({ type: 'import.start' })
    await waitFor(eu, (s) => s.matches('imported'))
    expect(asked.requests[0]?.rows.map((r) => r.birth_date)).toEqual(['1990-04-03', '1980-02-01'])
  })

  it('shows why a file could not be read and stays on the first step', async () => {
    const actor = createActor(
      patientImportMachine.provide({
        actors: {
          readCsv: fromPromise(() => Promise.reject(new Error('This file has no patient rows.'))),
        },
      }),
      { input: {} },
    ).start()
    actor.send({ type: 'text.paste', text: 'First,Last' })
    const back = await waitFor(actor, (s) => s.matches('choosing') && s.context.error !== null)
    expect(back.context.error).toBe('This file has no patient rows.')
  })
})

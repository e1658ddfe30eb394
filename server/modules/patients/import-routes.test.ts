import { createHash } from 'node:crypto'
import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import {
  IMPORT_MESSAGES,
  type ImportRow,
  OPENING_BALANCE_REASON,
  type PatientImportAnswer,
  type PatientImportPreview,
} from '#domain/patient-import.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { DUPLICATE_PATIENT_MESSAGES, FORMULA_NAME_MESSAGE } from '#domain/practice-data.ts'
import { auditEvents, ledgerEntries, patientImportRows, patients } from '#server/db/schema.ts'
import { useMember, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { rowsOf } from './queries.ts'

let fileCount = 0
/** A new file id each time: the SHA-256 of some unique content. */
const newFileId = () =>
  createHash('sha256').update(`file-${Date.now()}-${fileCount++}`).digest('hex')

/** `n` valid rows from row 2 on, with contacts unique to `tag`. */
function rows(tag: string, n: number, from = 2): ImportRow[] {
  return Array.from({ length: n }, (_, i) => ({
    row: from + i,
    first_name: 'Avery',
    last_name: `Import${i}`,
    email: `avery.${tag}.${from + i}@import.example`,
    phone: null,
    birth_date: '1985-03-15',
    email_subscription: 'yes',
    sms_subscription: 'no',
  }))
}

describe.each(testBackends())('the patient import on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')

  const post = (path: string, json: unknown, token = manager.token) =>
    t.request(path, { method: 'POST', token, json })

  const importChunk = async (fileId: string, chunk: ImportRow[]) => {
    const response = await post('/api/patients/import', { file_id: fileId, rows: chunk })
    expect([200, 201]).toContain(response.status)
    return (await response.json()) as PatientImportAnswer
  }

  const patientsWithEmails = async (emails: string[]) => {
    const [row] = await t.db
      .select({ n: count() })
      .from(patients)
      .where(and(eq(patients.practice_id, t.demo.practiceId), inArray(patients.email, emails)))
    return Number(row?.n ?? 0)
  }

  it('previews without writing, then creates the good rows and reports the bad ones and the duplicates with their reasons', async () => {
    const existing = await post('/api/patients', {
      first_name: 'Dana',
      last_name: 'Existing',
      email: 'dana.existing@import.example',
      phone: '+1 555 019 0001',
    })
    expect(existing.status).toBe(201)
    const existingId = ((await existing.json()) as { id: number }).id
    const fileId = newFileId()
    const chunk: ImportRow[] = [
      ...rows('mixed', 4),
      { row: 6, first_name: 'Nola', last_name: '', email: 'nola@import.example' },
      { row: 7, first_name: 'Ezra', last_name: 'Bad', email: 'not-an-email' },
      { row: 8, first_name: 'Ivy', last_name: 'Phone', phone: '12' },
      { row: 9, first_name: 'Ole', last_name: 'Born', birth_date: '15/03/1985' },
      { row: 10, first_name: 'Cal', last_name: 'Consent', email_subscription: 'maybe' },
      { row: 11, first_name: 'Dana', last_name: 'Twin', email: 'DANA.existing@import.example' },
      { row: 12, first_name: 'Dan', last_name: 'Phone', phone: '(555) 019-0001' },
      { row: 13, first_name: 'Avery', last_name: 'Again', email: 'avery.mixed.2@import.example' },
    ]
    // Phones are compared in E.164, so row 12's "(555) 019-0001" is the existing
    // patient's "+1 555 019 0001".
    const preview = await post('/api/patients/import/preview', { file_id: fileId, rows: chunk })
    expect(preview.status).toBe(200)
    const previewed = (await preview.json()) as PatientImportPreview
    expect(previewed.ready).toBe(4)
    expect(previewed.points).toBe(0)
    expect(previewed.already_imported).toEqual([])
    const expected = [
      { row: 6, reason: 'The last name is missing.', patient_id: null },
      { row: 7, reason: 'The e-mail address is not valid.', patient_id: null },
      { row: 8, reason: IMPORT_MESSAGES.phone('12'), patient_id: null },
      { row: 9, reason: IMPORT_MESSAGES.notADate('birth_date', '15/03/1985'), patient_id: null },
      { row: 10, reason: 'Please write the e-mail consent as yes or no.', patient_id: null },
      { row: 11, reason: DUPLICATE_PATIENT_MESSAGES.email, patient_id: existingId },
      { row: 12, reason: DUPLICATE_PATIENT_MESSAGES.phone, patient_id: existingId },
      { row: 13, reason: 'Same e-mail as row 2 of this file.', patient_id: null },
    ]
    expect(previewed.rejected).toEqual(expected)
    const [before] = await t.db
      .select({ n: count() })
      .from(patientImportRows)
      .where(eq(patientImportRows.file_id, fileId))
    expect(before?.n).toBe(0)

    const answer = await importChunk(fileId, chunk)
    expect(answer).toEqual({
      created: 4,
      points_posted: 0,
      skipped: 8,
      rejected: expected,
      already_imported: [],
    })
    const [row] = await t.db
      .select()
      .from(patients)
      .where(eq(patients.email, 'avery.mixed.2@import.example'))
    expect(row).toMatchObject({
      first_name: 'Avery',
      birth_date: '1985-03-15',
      email_subscription: true,
      sms_subscription: false,
      practice_id: t.demo.practiceId,
    })
  })

  it('creates nothing when a chunk is sent again or the same file is imported again', async () => {
    const fileId = newFileId()
    const file = rows('replay', 450)
    const chunks = [file.slice(0, 200), file.slice(200, 400), file.slice(400)]
    const first = await importChunk(fileId, chunks[0] ?? [])
    expect(first.created).toBe(200)
    // The answer of the first chunk was lost: the browser sends it again.
    const replay = await importChunk(fileId, chunks[0] ?? [])
    expect(replay).toMatchObject({ created: 0, skipped: 200, rejected: [] })
    expect(replay.already_imported).toHaveLength(200)
    for (const chunk of chunks.slice(1)) await importChunk(fileId, chunk)
    const emails = file.map((r) => r.email ?? '')
    expect(await patientsWithEmails(emails)).toBe(450)

    // The same file again: nothing new, every row reported as imported before.
    let created = 0
    let already = 0
    for (const chunk of chunks) {
      const again = await importChunk(fileId, chunk)
      created += again.created
      already += again.already_imported.length
      expect(again.rejected).toEqual([])
    }
    expect({ created, already }).toEqual({ created: 0, already: 450 })
    expect(await patientsWithEmails(emails)).toBe(450)

    const preview = await post('/api/patients/import/preview', {
      file_id: fileId,
      rows: chunks[2],
    })
    expect(await preview.json()).toMatchObject({ ready: 0, rejected: [] })
  })

  it('creates once when two identical chunks arrive at the same time', async () => {
    const fileId = newFileId()
    const chunk = rows('concurrent', 50)
    const answers = await Promise.all([
      importChunk(fileId, chunk),
      importChunk(fileId, chunk),
      importChunk(fileId, chunk),
    ])
    expect(answers.map((a) => a.created).sort()).toEqual([0, 0, 50])
    expect(await patientsWithEmails(chunk.map((r) => r.email ?? ''))).toBe(50)
  })

  it('audits each chunk with its counts, never a name or a contact', async () => {
    const fileId = newFileId()
    await importChunk(fileId, rows('audited', 3))
    const all = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(eq(auditEvents.action, 'patients.imported'))
      .orderBy(auditEvents.id)
    expect(all.at(-1)?.details).toEqual({
      rows: 3,
      created: 3,
      rejected: 0,
      already_imported: 0,
      points_posted: 0,
    })
    expect(JSON.stringify(all)).not.toContain('@import.example')
    // The event was written by the transaction that created the rows (PostgreSQL's `xmin`).
    const writers = async (query: SQL) =>
      new Set(rowsOf<{ tx: string }>(await t.db.execute(query)).map((r) => r.tx))
    const event = await writers(
      sql`select xmin::text as tx from audit_events where action = 'patients.imported' order by id desc limit 1`,
    )
    expect(event).toEqual(
      await writers(
        sql`select xmin::text as tx from patient_import_rows where file_id = ${fileId}`,
      ),
    )
  })

  it('refuses Staff, more rows than a chunk holds, a bad file id and repeated row numbers', async () => {
    const fileId = newFileId()
    const staff = await post(
      '/api/patients/import',
      { file_id: fileId, rows: rows('staff', 1) },
      t.demo.staffToken,
    )
    expect(staff.status).toBe(403)
    expect(((await staff.json()) as { error: { message: string } }).error.message).toBe(
      PERMISSION_REFUSALS['patients.import'],
    )
    const tooMany = await post('/api/patients/import/preview', {
      file_id: fileId,
      rows: rows('many', 201),
    })
    // The server enforces the chunk's limit, with a sentence.
    expect(tooMany.status).toBe(413)
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toBe(
      IMPORT_MESSAGES.tooManyRowsInChunk,
    )
    const badId = await post('/api/patients/import', { file_id: 'abc', rows: rows('id', 1) })
    expect(badId.status).toBe(400)
    const twice = await post('/api/patients/import', {
      file_id: fileId,
      rows: [...rows('twice', 1), ...rows('twice-b', 1)],
    })
    expect(twice.status).toBe(400)
  })

  describe('opening balances, limits and formula names', () => {
    const ledgerOf = async (emails: string[]) =>
      t.db
        .select({
          email: patients.email,
          points: patients.points,
          entry: ledgerEntries.id,
          kind: ledgerEntries.kind,
          entryPoints: ledgerEntries.points,
          source: ledgerEntries.source_type,
          reason: ledgerEntries.reason,
        })
        .from(patients)
        .leftJoin(ledgerEntries, eq(ledgerEntries.patient_id, patients.id))
        .where(inArray(patients.email, emails))
        .orderBy(patients.email, ledgerEntries.id)

    it("posts each created row's opening balance once through the ledger, logged, and never again for the same file", async () => {
      const fileId = newFileId()
      const file = rows('opening', 4).map((r, i) => ({
        ...r,
        opening_balance: ['600', '', '1,200', '-50'][i] ?? null,
      }))
      const emails = file.map((r) => r.email ?? '')
      const preview = await post('/api/patients/import/preview', { file_id: fileId, rows: file })
      expect(await preview.json()).toMatchObject({ ready: 3, points: 1800 })
      expect(await ledgerOf(emails)).toEqual([])

      const answer = await importChunk(fileId, file)
      expect(answer).toMatchObject({
        created: 3,
        points_posted: 1800,
        rejected: [{ row: 5, reason: IMPORT_MESSAGES.openingBalance('-50'), patient_id: null }],
      })
      const posted = await ledgerOf(emails)
      expect(posted.map(({ entry: _e, ...r }) => r)).toEqual([
        {
          email: emails[0],
          points: 600,
          kind: 'bonus',
          entryPoints: 600,
          source: 'import',
          reason: OPENING_BALANCE_REASON,
        },
        {
          email: emails[1],
          points: 0,
          kind: null,
          entryPoints: null,
          source: null,
          reason: null,
        },
        {
          email: emails[2],
          points: 1200,
          kind: 'bonus',
          entryPoints: 1200,
          source: 'import',
          reason: OPENING_BALANCE_REASON,
        },
      ])
      // Each posting is in the activity log like every ledger move.
      const entryIds = posted.flatMap((r) => (r.entry ? [r.entry] : []))
      const logged = await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(eq(auditEvents.action, 'ledger.posted'))
      const loggedIds = logged.map((e) => (e.details as { entry_id?: number }).entry_id)
      expect(entryIds.every((id) => loggedIds.filter((l) => l === id).length === 1)).toBe(true)
      const [importEvent] = await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(eq(auditEvents.action, 'patients.imported'))
        .orderBy(desc(auditEvents.id))
        .limit(1)
      expect(importEvent?.details).toMatchObject({ created: 3, points_posted: 1800 })

      // The chunk again, and the same file again: nothing is posted.
      for (let i = 0; i < 2; i++) {
        const again = await importChunk(fileId, file)
        expect(again).toMatchObject({ created: 0, points_posted: 0 })
        expect(again.already_imported).toEqual([2, 3, 4])
      }
      expect(await ledgerOf(emails)).toEqual(posted)
      const afterLog = await t.db
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(eq(auditEvents.action, 'ledger.posted'))
      expect(afterLog).toHaveLength(logged.length)
    })

    it('refuses a chunk over the limit and rows beyond a file of 10,000 with 413 and a sentence', async () => {
      const fileId = newFileId()
      for (const path of ['/api/patients/import', '/api/patients/import/preview']) {
        const tooMany = await post(path, { file_id: fileId, rows: rows('limit', 201) })
        expect(tooMany.status).toBe(413)
        expect(((await tooMany.json()) as { error: { message: string } }).error.message).toBe(
          IMPORT_MESSAGES.tooManyRowsInChunk,
        )
        const beyond = await post(path, { file_id: fileId, rows: rows('beyond', 2, 10_001) })
        expect(beyond.status).toBe(413)
        expect(((await beyond.json()) as { error: { message: string } }).error.message).toBe(
          IMPORT_MESSAGES.rowBeyondFile,
        )
      }
      const last = await post('/api/patients/import/preview', {
        file_id: fileId,
        rows: rows('last-row', 1, 10_001),
      })
      expect(last.status).toBe(200)
      expect(await patientsWithEmails(['avery.beyond.10001@import.example'])).toBe(0)
    })

    it('refuses names that start like a formula in POST and PUT /patients and in the import', async () => {
      for (const name of [
        '=HYPERLINK("http://evil.example","click")',
        '+SUM(A1:A9)',
        '@cmd',
        '-2+3',
      ]) {
        const created = await post('/api/patients', { first_name: name, last_name: 'Hacker' })
        expect(created.status).toBe(400)
        expect(((await created.json()) as { error: { message: string } }).error.message).toBe(
          `first_name: ${FORMULA_NAME_MESSAGE}`,
        )
      }
      const ok = await post('/api/patients', { first_name: 'Anne-Marie', last_name: "O'Neil" })
      expect(ok.status).toBe(201)
      const { id } = (await ok.json()) as { id: number }
      const renamed = await t.request(`/api/patients/${id}`, {
        method: 'PUT',
        token: manager.token,
        json: { last_name: '=1+1' },
      })
      expect(renamed.status).toBe(400)
      expect(((await renamed.json()) as { error: { message: string } }).error.message).toBe(
        `last_name: ${FORMULA_NAME_MESSAGE}`,
      )
      const answer = await importChunk(newFileId(), [
        { row: 2, first_name: '=HYPERLINK("http://evil.example","click")', last_name: 'Hacker' },
      ])
      expect(answer.rejected).toEqual([
        { row: 2, reason: `First name: ${FORMULA_NAME_MESSAGE}`, patient_id: null },
      ])
    })
  })

  describe('consent and the day patients joined', () => {
    /** Rows of a file without consent columns. */
    const plain = (tag: string, n: number): ImportRow[] =>
      rows(tag, n).map(({ email_subscription: _e, sms_subscription: _s, ...row }) => ({
        ...row,
        email_subscription: null,
        sms_subscription: null,
      }))
    const stored = async (emails: string[]) =>
      t.db
        .select({
          email: patients.email,
          email_subscription: patients.email_subscription,
          sms_subscription: patients.sms_subscription,
          joined_on: patients.joined_on,
          imported: patients.imported,
        })
        .from(patients)
        .where(inArray(patients.email, emails))
        .orderBy(patients.email)

    it('opts nobody in for a file without a consent column, and a consent column decides row by row', async () => {
      const file = plain('noconsent', 2)
      expect((await importChunk(newFileId(), file)).created).toBe(2)
      // Before migration 0022 these patients were subscribed by the column's default (true).
      expect(await stored(file.map((r) => r.email ?? ''))).toEqual(
        file.map((r) => ({
          email: r.email,
          email_subscription: false,
          sms_subscription: false,
          joined_on: null,
          imported: true,
        })),
      )
      const column = rows('column', 3).map((r, i) => ({
        ...r,
        email_subscription: ['yes', 'no', ''][i] ?? null,
      }))
      await importChunk(newFileId(), column)
      expect(
        (await stored(column.map((r) => r.email ?? ''))).map((r) => r.email_subscription),
      ).toEqual([true, false, false])
    })

    it("subscribes a file without the column only on the importer's statement, logged with who and when", async () => {
      const file = plain('stated', 2)
      const fileId = newFileId()
      const response = await post('/api/patients/import', {
        file_id: fileId,
        rows: file,
        email_consent_for_all: true,
      })
      expect(response.status).toBe(201)
      expect(
        (await stored(file.map((r) => r.email ?? ''))).map((r) => r.email_subscription),
      ).toEqual([true, true])
      const log = await t.request('/api/audit?action=patients.imported', {
        token: t.demo.adminToken,
      })
      const { data } = (await log.json()) as {
        data: { summary: string; actor: { first_name: string } | null; created_at: string }[]
      }
      const [latest] = data
      expect(latest?.summary).toMatch(
        /imported 2 patients from a CSV file, stating that every patient in the file agreed to receive marketing e-mail\.$/,
      )
      expect(latest?.actor).not.toBeNull()
      expect(Number.isNaN(Date.parse(latest?.created_at ?? ''))).toBe(false)

      // With a consent column, the statement is refused: each row's answer is the consent.
      const refused = await post('/api/patients/import', {
        file_id: newFileId(),
        rows: rows('stated-column', 1),
        email_consent_for_all: true,
      })
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        IMPORT_MESSAGES.consentColumn,
      )
    })

    it('keeps the day each patient joined from a "joined on" column, refusing a day that is not one', async () => {
      const file = rows('joined', 3).map((r, i) => ({
        ...r,
        joined_on: ['2019-06-01', '', '2999-01-01'][i] ?? null,
      }))
      const answer = await importChunk(newFileId(), file)
      expect(answer.created).toBe(2)
      expect(answer.rejected).toEqual([
        { row: 4, reason: IMPORT_MESSAGES.joinedOn, patient_id: null },
      ])
      expect(
        (await stored(file.slice(0, 2).map((r) => r.email ?? ''))).map((r) => r.joined_on),
      ).toEqual(['2019-06-01', null])
    })
  })
})

import { eq, sql } from 'drizzle-orm'
import Papa from 'papaparse'
import { beforeAll, describe, expect, it } from 'vitest'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { toE164 } from '#domain/phone.ts'
import { auditEvents, ledgerEntries, patients } from '#server/db/schema.ts'
import { messageOf, useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { EXPORT_PAGE_SIZE } from './csv-export-routes.ts'
import { LEDGER_COLUMNS, PATIENT_COLUMNS } from './routes.ts'

const parse = (text: string) =>
  Papa.parse<Record<string, string>>(text.trimEnd(), { header: true, skipEmptyLines: false })

describe.each(testBackends())('the CSV exports on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')
  let trickyId: number

  beforeAll(async () => {
    // More patients than one page, so the keyset paging is walked.
    await t.db.insert(patients).values(
      Array.from({ length: EXPORT_PAGE_SIZE + 20 }, (_, i) => ({
        practice_id: t.demo.practiceId,
        first_name: `Bulk${i}`,
        last_name: 'Export',
        unsubscribe_id: `export-${Date.now()}-${i}-abcdefgh`,
      })),
    )
    const [tricky] = await t.db
      .insert(patients)
      .values({
        practice_id: t.demo.practiceId,
        first_name: '=HYPERLINK("http://evil.example","click")',
        last_name: 'Lopez, "Jr"',
        email: '@risky@example.com',
        phone: '+15550100199',
        unsubscribe_id: `export-tricky-${Date.now()}-abcdefgh`,
      })
      .returning({ id: patients.id })
    if (!tricky) throw new Error('no patient')
    trickyId = tricky.id
    const adjust = await t.request(`/api/patients/${trickyId}/adjustments`, {
      method: 'POST',
      token: t.demo.adminToken,
      json: { points: 250, reason: '-5 fix, "quoted"', idempotencyKey: `export-${Date.now()}` },
    })
    expect(adjust.status).toBe(201)
  })

  it('streams every patient of the practice, quoted and guarded against formulas, and audits the export', async () => {
    const response = await t.request('/api/reports/patients.csv', { token: manager.token })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="patients-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    const text = await response.text()
    const { data, meta } = parse(text)
    expect(meta.fields).toEqual([...PATIENT_COLUMNS])
    expect(data).toHaveLength(
      await t.db.$count(patients, eq(patients.practice_id, t.demo.practiceId)),
    )
    expect(new Set(data.map((r) => r.id)).size).toBe(data.length)
    expect(data.some((r) => r.first_name === 'Peter')).toBe(false)
    const tricky = data.find((r) => r.id === String(trickyId))
    expect(tricky).toMatchObject({
      first_name: '\'=HYPERLINK("http://evil.example","click")',
      last_name: 'Lopez, "Jr"',
      email: "'@risky@example.com",
      // Stored in E.164, exported as people write it: a sheet shows it as text, without the
      // formula guard's apostrophe, and the import reads it back as the same number.
      phone: '(555) 010-0199',
      points: '250',
      archived: 'false',
    })
    expect(toE164(tricky?.phone ?? '')).toBe('+15550100199')
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'report.exported'))
      .orderBy(sql`${auditEvents.id} desc`)
      .limit(1)
    expect(event?.details).toEqual({ report: 'patients' })
  })

  it("streams the practice's ledger entries with the patient and the staff member", async () => {
    const response = await t.request('/api/reports/ledger.csv', { token: t.demo.adminToken })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Disposition')).toMatch(/filename="ledger-/)
    const { data, meta } = parse(await response.text())
    expect(meta.fields).toEqual([...LEDGER_COLUMNS])
    expect(data).toHaveLength(
      await t.db.$count(ledgerEntries, eq(ledgerEntries.practice_id, t.demo.practiceId)),
    )
    const row = data.find((r) => r.patient_id === String(trickyId))
    expect(row).toMatchObject({
      kind: 'adjust',
      points: '250',
      balance_after: '250',
      source_type: 'manual',
      reason: '\'-5 fix, "quoted"',
      created_by_id: String(t.demo.admin.id),
    })
    expect(row?.patient_last_name).toBe('Lopez, "Jr"')
    expect(data.every((r) => Number(r.id) > 0)).toBe(true)
  })

  it('refuses Staff with the sentence, and shows another practice only its own rows', async () => {
    for (const path of ['/api/reports/patients.csv', '/api/reports/ledger.csv']) {
      const refused = await t.request(path, { token: t.demo.staffToken })
      expect(refused.status).toBe(403)
      expect(await messageOf(refused)).toBe(PERMISSION_REFUSALS['reports.money'])
    }
    const theirs = await t.request('/api/reports/patients.csv', { token: other.token })
    const { data } = parse(await theirs.text())
    expect(data.map((r) => r.id)).toEqual([String(other.patientId)])
  })
})

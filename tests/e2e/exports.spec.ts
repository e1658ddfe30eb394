import { readFile } from 'node:fs/promises'
import Papa from 'papaparse'
import { axeViolations, expect, MANAGER, openSignedIn, STAFF, test } from './support/fixtures.ts'

const rowsOf = async (path: string) =>
  Papa.parse<Record<string, string>>((await readFile(path, 'utf8')).trimEnd(), { header: true })

test.describe('the CSV exports', () => {
  test('a manager exports the patient list and the ledger, and the files hold the right rows', async ({
    page,
    request,
  }) => {
    await openSignedIn(page, request, '/patients', MANAGER)
    const count = page.getByRole('status').filter({ hasText: /\d+ patients?/ })
    await expect(count).toBeVisible()
    const total = Number(((await count.textContent()) ?? '').replace(/\D/g, ''))
    expect(await axeViolations(page), 'axe on Patients with Export CSV').toEqual([])

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^patients-\d{4}-\d{2}-\d{2}\.csv$/)
    const patients = await rowsOf(await download.path())
    expect(patients.meta.fields?.slice(0, 3)).toEqual(['id', 'first_name', 'last_name'])
    // The list shows the patients that are not archived; the file holds them all.
    const archived = patients.data.filter((row) => row.archived === 'true').length
    expect(patients.data.length - archived).toBe(total)
    const firstName = await page
      .getByRole('table')
      .getByRole('row')
      .nth(1)
      .getByRole('link')
      .first()
      .textContent()
    expect(patients.data.map((row) => `${row.first_name} ${row.last_name}`)).toContain(
      firstName?.trim(),
    )

    await page.goto('/dashboard')
    // The charts arrive after the page (their own chunk) and the worklist's tabs after their counts:
    // a click while they push the Exports section down can land beside the button.
    await expect(page.getByRole('button', { name: 'Show as table' }).first()).toBeVisible()
    await expect(page.getByRole('tab').first()).toBeVisible()
    await page.getByRole('button', { name: 'Export ledger CSV' }).scrollIntoViewIfNeeded()
    const [ledger] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export ledger CSV' }).click(),
    ])
    expect(ledger.suggestedFilename()).toMatch(/^ledger-\d{4}-\d{2}-\d{2}\.csv$/)
    const entries = await rowsOf(await ledger.path())
    expect(entries.meta.fields).toContain('balance_after')
    expect(entries.data.length).toBeGreaterThan(0)
    // Each patient's last entry leaves the balance the patient file shows.
    const last = new Map<string, string>()
    for (const row of entries.data) last.set(row.patient_id ?? '', row.balance_after ?? '')
    for (const row of patients.data.slice(0, 20)) {
      expect(last.get(row.id ?? '') ?? '0', `patient ${row.id}`).toBe(row.points)
    }
    expect(await axeViolations(page), 'axe on Dashboard with the export').toEqual([])
  })

  test('staff see no export, and the server refuses them too', async ({ page, request }) => {
    const staff = await openSignedIn(page, request, '/patients', STAFF)
    await expect(page.getByRole('button', { name: 'Add patient' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Export CSV' })).toHaveCount(0)
    await page.goto('/dashboard')
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Export ledger CSV' })).toHaveCount(0)
    const refused = await request.get('/api/reports/ledger.csv', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
    })
    expect(refused.status()).toBe(403)
  })
})

/** Patient files and counts for the import journeys and the 10,000-row import benchmark. */
import type { APIRequestContext, Page } from '@playwright/test'
import Papa from 'papaparse'
import { type ApiSession, expect } from './fixtures.ts'

export const HEADER = 'First Name,Last Name,E-mail,Mobile,Date of birth,Email consent,SMS consent'

/** How many patients of the practice match `search` (the server's own count). */
export async function countMatching(
  request: APIRequestContext,
  session: ApiSession,
  search: string,
) {
  const response = await request.get(
    `/api/patients?search=${encodeURIComponent(search)}&pageSize=1`,
    { headers: { Authorization: `Bearer ${session.jwt}` } },
  )
  expect(response.ok()).toBeTruthy()
  return ((await response.json()) as { total: number }).total
}

/** Two patients already in the practice, with an e-mail each. */
export async function existingEmails(request: APIRequestContext, session: ApiSession) {
  const response = await request.get('/api/patients?pageSize=50', {
    headers: { Authorization: `Bearer ${session.jwt}` },
  })
  const { data } = (await response.json()) as { data: { email: string | null }[] }
  const emails = data.flatMap((p) => (p.email ? [p.email] : []))
  expect(emails.length).toBeGreaterThanOrEqual(2)
  return emails.slice(0, 2) as [string, string]
}

/**
 * A file of `rows` patients tagged `tag` (spreadsheet rows 2 to rows + 1). Row 50's last name has
 * a comma and quotes, which only a CSV parser reads right. `bad` and `twins` replace rows.
 */
export function patientsCsv(
  tag: string,
  rows: number,
  {
    bad = {},
    twins = {},
    phoneDigit = '7',
  }: { bad?: Record<number, string[]>; twins?: Record<number, string>; phoneDigit?: string } = {},
): string {
  const lines = [HEADER]
  for (let row = 2; row <= rows + 1; row++) {
    const twin = twins[row]
    const cells = bad[row] ?? [
      'Avery',
      row === 50 ? 'O"Neil, Jr.' : `Imported${row}`,
      twin ?? `${tag}.${row}@import.example`,
      row % 10 === 0 ? `(555) ${phoneDigit}${String(row).padStart(6, '0')}` : '',
      '1985-03-15',
      row % 2 === 0 ? 'yes' : 'no',
      'no',
    ]
    lines.push(Papa.unparse([cells]))
  }
  return `${lines.join('\r\n')}\r\n`
}

export async function chooseFile(page: Page, name: string, content: string) {
  await page.getByLabel('CSV file').setInputFiles({
    name,
    mimeType: 'text/csv',
    buffer: Buffer.from(content, 'utf8'),
  })
}

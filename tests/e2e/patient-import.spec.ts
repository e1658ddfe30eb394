import { readFile } from 'node:fs/promises'
import type { APIRequestContext, Locator, Page } from '@playwright/test'
import Papa from 'papaparse'
import {
  type ApiSession,
  apiSignIn,
  axeViolations,
  expect,
  storeSession,
  test,
} from './support/fixtures.ts'
import { screens, scrollsSideways } from './support/screens.ts'

// Issue 17: the patient import through the real server, in Chromium.
const MANAGER = { email: 'manager@example.com', password: 'ManagerPass123' }
const STAFF = { email: 'staff@example.com', password: 'StaffPass123' }

const HEADER = 'First Name,Last Name,E-mail,Mobile,Date of birth,Email consent,SMS consent'

const shoot = screens('issue-17')

/** How many patients of the practice match `search` (the server's own count). */
async function countMatching(request: APIRequestContext, session: ApiSession, search: string) {
  const response = await request.get(
    `/api/patients?search=${encodeURIComponent(search)}&pageSize=1`,
    { headers: { Authorization: `Bearer ${session.jwt}` } },
  )
  expect(response.ok()).toBeTruthy()
  return ((await response.json()) as { total: number }).total
}

/** Two patients already in the practice, with an e-mail each. */
async function existingEmails(request: APIRequestContext, session: ApiSession) {
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
function patientsCsv(
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

async function chooseFile(page: Page, name: string, content: string) {
  await page.getByLabel('CSV file').setInputFiles({
    name,
    mimeType: 'text/csv',
    buffer: Buffer.from(content, 'utf8'),
  })
}

test.describe('the patient import', () => {
  test('a manager imports 1,000 rows: 995 created, 3 bad rows and 2 duplicates reported with their reasons; the same file again creates nothing', async ({
    page,
    request,
  }) => {
    test.setTimeout(180_000)
    const session = await apiSignIn(request, MANAGER.email, MANAGER.password)
    await storeSession(page, session)
    const [first, second] = await existingEmails(request, session)
    const tag = `run${Date.now()}`
    const csv = patientsCsv(tag, 1000, {
      bad: {
        101: ['Nola', '', `${tag}.nola@import.example`, '', '', 'yes', 'no'],
        501: ['Ezra', 'Bad', 'not-an-email', '', '', 'yes', 'no'],
        901: ['Ole', 'Born', `${tag}.ole@import.example`, '', '31/12/1980', 'yes', 'no'],
      },
      twins: { 301: first.toUpperCase(), 701: second },
    })
    const reasons = [
      { row: '101', reason: 'The last name is missing.' },
      { row: '301', reason: 'A patient with this e-mail already exists.' },
      { row: '501', reason: 'The e-mail address is not valid.' },
      { row: '701', reason: 'A patient with this e-mail already exists.' },
      { row: '901', reason: 'Birth date: Please enter the birth date as YYYY-MM-DD.' },
    ]

    await page.goto('/patients')
    const entry = page.getByRole('link', { name: 'Import CSV' })
    await expect(page.getByRole('button', { name: 'Export CSV' })).toBeVisible()
    await shoot(page, 'patient-import-entry', entry)
    await entry.click()
    await expect(page).toHaveURL(/\/patients\/import$/)
    await expect(page).toHaveTitle('Import patients – Glow Rewards')
    await expect(page.getByRole('heading', { name: 'Choose a CSV file' })).toBeVisible()
    await shoot(
      page,
      'patient-import-choose',
      page.getByRole('heading', { name: 'Import patients' }),
    )

    await chooseFile(page, 'clinic-patients.csv', csv)
    await expect(page.getByRole('heading', { name: 'Match the columns' })).toBeVisible()
    await expect(page.getByText('clinic-patients.csv: 1,000 rows of patients.')).toBeVisible()
    // Guessed from the header.
    await expect(page.getByRole('combobox', { name: /^First name/ })).toHaveValue('0')
    await expect(page.getByRole('combobox', { name: /^Last name/ })).toHaveValue('1')
    await expect(page.getByRole('combobox', { name: 'E-mail', exact: true })).toHaveValue('2')
    await expect(page.getByRole('combobox', { name: 'Phone' })).toHaveValue('3')
    await expect(page.getByRole('combobox', { name: 'Birth date' })).toHaveValue('4')
    await expect(page.getByRole('combobox', { name: 'E-mail consent' })).toHaveValue('5')
    await expect(page.getByRole('combobox', { name: 'SMS consent' })).toHaveValue('6')
    await shoot(
      page,
      'patient-import-columns',
      page.getByRole('heading', { name: 'Match the columns' }),
    )

    await page.getByRole('button', { name: 'Check the rows' }).click()
    await expect(page.getByRole('heading', { name: 'Check the rows' })).toBeVisible({
      timeout: 30_000,
    })
    await expect(page.getByText('995 patients will be created.')).toBeVisible()
    await expect(
      page.getByText('5 rows will be skipped; the reason for each is below.'),
    ).toBeVisible()
    const skipped = page.getByRole('table', { name: 'Rows that will be skipped' })
    for (const { row, reason } of reasons) {
      await expect(skipped.getByRole('row', { name: `${row} ${reason}` })).toBeVisible()
    }
    await expect(skipped.getByRole('link', { name: 'See the existing patient' })).toHaveCount(2)
    // Nothing was written by the check.
    expect(await countMatching(request, session, `${tag}.`)).toBe(0)
    await shoot(page, 'patient-import-preview', skipped)

    await page.getByRole('button', { name: 'Import 995 patients' }).click()
    await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({
      timeout: 60_000,
    })
    await expect(page.getByText('995 patients created.')).toBeVisible()
    await expect(page.getByText('5 rows rejected; the reason for each is below.')).toBeVisible()
    expect(await countMatching(request, session, `${tag}.`)).toBe(995)
    // The last name with a comma and quotes arrived whole.
    expect(await countMatching(request, session, 'O"Neil, Jr.')).toBeGreaterThanOrEqual(1)
    await shoot(
      page,
      'patient-import-summary',
      page.getByRole('heading', { name: 'Import finished' }),
    )

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download rejected rows' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('clinic-patients-rejected-rows.csv')
    const rejected = Papa.parse<Record<string, string>>(
      (await readFile(await download.path(), 'utf8')).trimEnd(),
      { header: true },
    )
    expect(rejected.meta.fields).toEqual([...HEADER.split(','), 'Reason'])
    expect(rejected.data.map((r) => [r['First Name'], r.Reason])).toEqual([
      ['Nola', reasons[0]?.reason],
      ['Avery', reasons[1]?.reason],
      ['Ezra', reasons[2]?.reason],
      ['Avery', reasons[3]?.reason],
      ['Ole', reasons[4]?.reason],
    ])

    // The same file again: nothing to create, and the import creates nothing.
    await page.getByRole('button', { name: 'Import another file' }).click()
    await chooseFile(page, 'clinic-patients.csv', csv)
    await page.getByRole('button', { name: 'Check the rows' }).click()
    await expect(page.getByText('0 patients will be created.')).toBeVisible({ timeout: 30_000 })
    await expect(
      page.getByText('995 rows of this file were imported before and will not be created again.'),
    ).toBeVisible()
    // The 5 refused rows are still refused, with the same reasons.
    await expect(
      page.getByText('5 rows will be skipped; the reason for each is below.'),
    ).toBeVisible()
    await page.getByRole('button', { name: 'Import 0 patients' }).click()
    await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({
      timeout: 60_000,
    })
    await expect(page.getByText('0 patients created.')).toBeVisible()
    await expect(page.getByText('995 rows skipped: imported from this file before.')).toBeVisible()
    expect(await countMatching(request, session, `${tag}.`)).toBe(995)

    await page.getByRole('link', { name: 'Go to the patient list' }).click()
    await expect(page).toHaveURL(/\/patients$/)
  })

  test('on a phone, with the keyboard only: paste, fix the columns, check, import; every bad input says why', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await storeSession(page, await apiSignIn(request, MANAGER.email, MANAGER.password))
    await page.goto('/patients/import')
    await expect(page.getByRole('heading', { name: 'Choose a CSV file' })).toBeVisible()

    /** Presses Tab until `target` has the focus (at most 40 times). */
    const tabTo = async (target: Locator) => {
      for (let i = 0; i < 40; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return
        await page.keyboard.press('Tab')
      }
      throw new Error('the keyboard never reached the element')
    }

    // A file that is not CSV, then pasted text with only a header: each says what to do.
    await chooseFile(page, 'patients.xlsx', 'PK…')
    await expect(page.getByRole('alert')).toContainText(
      'Please choose a CSV file (its name ends in .csv).',
    )
    const pasted = page.getByRole('textbox', { name: 'Or paste the CSV text' })
    await tabTo(pasted)
    await page.keyboard.insertText('Given name,Family,Email\n')
    await tabTo(page.getByRole('button', { name: 'Read pasted text' }))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('alert')).toContainText(
      'This file has no patient rows. The first row must name the columns.',
    )
    await shoot(page, 'patient-import-error', page.getByRole('alert'))

    const tag = `phone${Date.now()}`
    await pasted.fill('')
    await tabTo(pasted)
    await page.keyboard.insertText(
      `Given name,Family,Email,Notes\nKai,Lund,${tag}.1@import.example,VIP\nMia,,${tag}.2@import.example,\n`,
    )
    await tabTo(page.getByRole('button', { name: 'Read pasted text' }))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { name: 'Match the columns' })).toBeVisible()
    // "Family" is not a header the guess knows: the page says which column is missing.
    const last = page.getByRole('combobox', { name: /^Last name/ })
    await expect(last).toHaveValue('')
    await expect(page.getByText('Please choose the column that holds the last name.')).toBeVisible()
    await tabTo(page.getByRole('button', { name: 'Check the rows' }))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { name: 'Match the columns' })).toBeVisible()
    await shoot(page, 'patient-import-columns-error', last)
    await tabTo(last)
    await last.selectOption({ label: 'Family' })
    await expect(page.getByText('Please choose the column that holds the last name.')).toHaveCount(
      0,
    )
    await tabTo(page.getByRole('button', { name: 'Check the rows' }))
    await page.keyboard.press('Enter')
    await expect(page.getByText('1 patient will be created.')).toBeVisible()
    await expect(
      page.getByRole('table', { name: 'Rows that will be skipped' }).getByRole('row', {
        name: '3 The last name is missing.',
      }),
    ).toBeVisible()
    expect(await scrollsSideways(page)).toBe(false)
    await tabTo(page.getByRole('button', { name: 'Import 1 patient' }))
    await page.keyboard.press('Enter')
    await expect(page.getByText('1 patient created.')).toBeVisible()
    expect(await scrollsSideways(page)).toBe(false)
    expect(await axeViolations(page), 'axe on the summary at 390 px').toEqual([])
    await tabTo(page.getByRole('button', { name: 'Download rejected rows' }))
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.keyboard.press('Enter'),
    ])
    expect(download.suggestedFilename()).toBe('Pasted-text-rejected-rows.csv')
  })

  test('staff see no Import CSV, and the page and the server say only a manager or an admin can', async ({
    page,
    request,
  }) => {
    const staff = await apiSignIn(request, STAFF.email, STAFF.password)
    await storeSession(page, staff)
    await page.goto('/patients')
    await expect(page.getByRole('button', { name: 'Add patient' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Import CSV' })).toHaveCount(0)
    await page.goto('/patients/import')
    await expect(
      page.getByText('Only a manager or an admin can import patients from a file.'),
    ).toBeVisible()
    const refused = await request.post('/api/patients/import', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
      data: { file_id: 'a'.repeat(64), rows: [{ row: 2, first_name: 'A', last_name: 'B' }] },
    })
    expect(refused.status()).toBe(403)
  })

  test('10,000 rows import in chunks with the progress shown (time measured, not asserted)', async ({
    page,
    request,
  }) => {
    test.setTimeout(600_000)
    const session = await apiSignIn(request, MANAGER.email, MANAGER.password)
    await storeSession(page, session)
    const tag = `big${Date.now()}`
    const csv = patientsCsv(tag, 10_000, { phoneDigit: '8' })
    await page.goto('/patients/import')
    // Long tasks (over 50 ms on the main thread) while the file is read, checked and imported.
    await page.evaluate(() => {
      const w = window as unknown as { longTasks: [number, number][] }
      w.longTasks = []
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.longTasks.push([entry.startTime, entry.duration])
      }).observe({ type: 'longtask', buffered: false })
    })
    const pageClock = () => page.evaluate(() => performance.now())
    const marks = [await pageClock()]
    const started = Date.now()
    await chooseFile(page, 'ten-thousand.csv', csv)
    await expect(page.getByText('ten-thousand.csv: 10,000 rows of patients.')).toBeVisible()
    const read = Date.now()
    marks.push(await pageClock())
    await page.getByRole('button', { name: 'Check the rows' }).click()
    await expect(page.getByRole('progressbar', { name: 'Rows checked' })).toBeVisible()
    await expect(page.getByText('10,000 patients will be created.')).toBeVisible({
      timeout: 300_000,
    })
    const checked = Date.now()
    marks.push(await pageClock())
    await page.getByRole('button', { name: 'Import 10,000 patients' }).click()
    const progress = page.getByRole('status').filter({ hasText: /^Rows imported: / })
    await expect(progress).toBeVisible()
    // The page answers while it imports: the progress moves and the Stop button takes focus.
    await expect(progress).not.toHaveText('Rows imported: 0 of 10,000 rows', { timeout: 30_000 })
    await page.getByRole('button', { name: 'Stop the import' }).focus()
    await expect(page.getByRole('button', { name: 'Stop the import' })).toBeFocused()
    await expect(page.getByText('10,000 patients created.')).toBeVisible({ timeout: 300_000 })
    const imported = Date.now()
    marks.push(await pageClock())
    expect(await countMatching(request, session, `${tag}.`)).toBe(10_000)
    const longTasks = await page.evaluate(
      () => (window as unknown as { longTasks: [number, number][] }).longTasks,
    )
    // The longest main-thread task of each phase (reading the file, checking, importing).
    const longest = (from = 0, to = Number.POSITIVE_INFINITY) =>
      Math.round(
        Math.max(0, ...longTasks.filter(([at]) => at >= from && at < to).map(([, d]) => d)),
      )
    const figures = {
      readMs: read - started,
      checkMs: checked - read,
      importMs: imported - checked,
      totalMs: imported - started,
      longTasks: longTasks.length,
      longestTaskMs: {
        read: longest(marks[0], marks[1]),
        check: longest(marks[1], marks[2]),
        import: longest(marks[2], marks[3]),
      },
    }
    console.log(`10,000-row import: ${JSON.stringify(figures)}`)
    test.info().annotations.push({ type: '10k import', description: JSON.stringify(figures) })
  })
})

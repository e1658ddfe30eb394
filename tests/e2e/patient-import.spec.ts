import { readFile } from 'node:fs/promises'
import type { Locator } from '@playwright/test'
import Papa from 'papaparse'
import {
  apiSignIn,
  axeViolations,
  expect,
  MANAGER,
  openSignedIn,
  STAFF,
  storeSession,
  test,
} from './support/fixtures.ts'
import {
  chooseFile,
  countMatching,
  existingEmails,
  HEADER,
  patientsCsv,
} from './support/import-files.ts'
import { screens, scrollsSideways } from './support/screens.ts'

// The patient import through the real server, in Chromium.

const shoot = screens('issue-17')

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
        // Day-first and month-first dates are read; February 30 is no day in either.
        901: ['Ole', 'Born', `${tag}.ole@import.example`, '', '02/30/1980', 'yes', 'no'],
      },
      twins: { 301: first.toUpperCase(), 701: second },
    })
    const reasons = [
      { row: '101', reason: 'The last name is missing.' },
      { row: '301', reason: 'A patient with this e-mail already exists.' },
      { row: '501', reason: 'The e-mail address is not valid.' },
      { row: '701', reason: 'A patient with this e-mail already exists.' },
      { row: '901', reason: 'The birth date "02/30/1980" is not a date of the calendar.' },
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
    await openSignedIn(page, request, '/patients/import', MANAGER)
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
    const staff = await openSignedIn(page, request, '/patients', STAFF)
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
})

import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { APIRequestContext } from '@playwright/test'
import Papa from 'papaparse'
import {
  type ApiSession,
  apiSignIn,
  expect,
  MANAGER,
  storeSession,
  test,
} from './support/fixtures.ts'
import { chooseFile, countMatching } from './support/import-files.ts'
import { screens } from './support/screens.ts'

// An import that meets real files. The fixture is an EMR-style export of 301 patients:
// MM/DD/YYYY birth dates, phones written five ways, a "Points Balance" column and 9 bad rows.
const EMR = readFileSync(new URL('./fixtures/emr-export.csv', import.meta.url), 'utf8')

const shoot = screens('issue-29')

/** The 9 rows the fixture's author made bad, by chart number, with the reason the page gives. */
const FORMULA =
  'First name: Please write the name without =, +, - or @ at its start: a spreadsheet would run it as a formula.'
const BAD_ROWS = [
  { row: 22, chart: 'P20001', reason: 'The last name is missing.' },
  { row: 52, chart: 'P20002', reason: 'The first name is missing.' },
  { row: 82, chart: 'P20003', reason: 'The e-mail address is not valid.' },
  {
    row: 112,
    chart: 'P20004',
    reason: 'The birth date "13/45/1990" is not a date of the calendar.',
  },
  {
    row: 142,
    chart: 'P20005',
    reason: 'The birth date "02/30/1985" is not a date of the calendar.',
  },
  { row: 172, chart: 'P20006', reason: FORMULA },
  { row: 202, chart: 'P20007', reason: 'Birth date: Please enter a birth date in the past.' },
  {
    row: 232,
    chart: 'P20008',
    reason: 'The opening balance "-50" is not a whole number of points from 0 to 10,000,000.',
  },
  // Row 12 again: found over the whole file by the preview; at import time row 12's patient
  // exists already (it came in the first chunk), so the server names it.
  { row: 262, chart: 'P20009', reason: 'Same e-mail as row 12 of this file.' },
]

type StoredPatient = { id: number; phone: string | null; points: number; birth_date: string | null }

async function patientByEmail(
  request: APIRequestContext,
  session: ApiSession,
  email: string,
): Promise<StoredPatient> {
  const response = await request.get(
    `/api/patients?search=${encodeURIComponent(email)}&pageSize=5`,
    { headers: { Authorization: `Bearer ${session.jwt}` } },
  )
  expect(response.ok()).toBeTruthy()
  const { data } = (await response.json()) as { data: StoredPatient[] }
  expect(data).toHaveLength(1)
  return data[0] as StoredPatient
}

async function ledgerOf(request: APIRequestContext, session: ApiSession, id: number) {
  const response = await request.get(`/api/patients/${id}/ledger`, {
    headers: { Authorization: `Bearer ${session.jwt}` },
  })
  expect(response.ok()).toBeTruthy()
  return ((await response.json()) as { data: { points: number; reason: string | null }[] }).data
}

test.describe('an import that meets real files', () => {
  test('the 301-row EMR export: 292 patients created with their E.164 phones and opening balances, 9 bad rows downloadable with their reasons; the same file again creates and posts nothing', async ({
    page,
    request,
  }) => {
    test.setTimeout(240_000)
    const session = await apiSignIn(request, MANAGER.email, MANAGER.password)
    await storeSession(page, session)
    const before = await countMatching(request, session, '')

    await page.goto('/patients/import')
    await chooseFile(page, 'emr-export.csv', EMR)
    await expect(page.getByText('emr-export.csv: 301 rows of patients.')).toBeVisible()
    await expect(page.getByRole('combobox', { name: 'Phone' })).toHaveValue('3')
    await expect(page.getByRole('combobox', { name: 'Birth date' })).toHaveValue('4')
    await expect(page.getByRole('combobox', { name: 'E-mail consent' })).toHaveValue('5')
    await expect(page.getByRole('combobox', { name: 'SMS consent' })).toHaveValue('6')
    await expect(page.getByRole('combobox', { name: 'Opening balance' })).toHaveValue('7')

    await page.getByRole('button', { name: 'Check the rows' }).click()
    await expect(page.getByRole('heading', { name: 'Check the rows' })).toBeVisible({
      timeout: 30_000,
    })
    await expect(page.getByText('292 patients will be created.')).toBeVisible()
    await expect(
      page.getByText('9 rows will be skipped; the reason for each is below.'),
    ).toBeVisible()
    await expect(page.getByText('Dates read as month/day/year (US).')).toBeVisible()
    await expect(page.getByText(/^Opening balances to post: 198,615 points/)).toBeVisible()
    const skipped = page.getByRole('table', { name: 'Rows that will be skipped' })
    for (const { row, reason } of BAD_ROWS) {
      await expect(skipped.getByRole('row', { name: `${row} ${reason}` })).toBeVisible()
    }
    expect(await countMatching(request, session, '')).toBe(before)
    await shoot(page, 'emr-import-preview', page.getByRole('heading', { name: 'Check the rows' }))

    await page.getByRole('button', { name: 'Import 292 patients' }).click()
    await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({
      timeout: 120_000,
    })
    await expect(page.getByText('292 patients created.')).toBeVisible()
    await expect(page.getByText('198,615 points posted as opening balances.')).toBeVisible()
    await expect(page.getByText('9 rows rejected; the reason for each is below.')).toBeVisible()
    expect(await countMatching(request, session, '')).toBe(before + 292)

    // Phones written four ways arrive in E.164; each balance is one ledger entry.
    const expected = [
      { email: 'ava.green5@hotmail.com', phone: '+18587745013', points: 600 },
      { email: 'molly.edwards82@aol.com', phone: '+14088266098', points: 1200 },
      { email: 'london.ward16@aol.com', phone: '+18586018582', points: 2300 },
      { email: 'remi.cruz39@outlook.com', phone: '+14088244261', points: 2300 },
      { email: 'anna.scott31@icloud.com', phone: '+16198836350', points: 75 },
    ]
    const ids: number[] = []
    for (const { email, phone, points } of expected) {
      const patient = await patientByEmail(request, session, email)
      expect({ email, phone: patient.phone, points: patient.points }).toEqual({
        email,
        phone,
        points,
      })
      expect(await ledgerOf(request, session, patient.id)).toEqual([
        expect.objectContaining({ points, reason: 'Opening balance from import' }),
      ])
      ids.push(patient.id)
    }
    expect((await patientByEmail(request, session, 'ava.green5@hotmail.com')).birth_date).toBe(
      '1992-07-06',
    )

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download rejected rows' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('emr-export-rejected-rows.csv')
    const text = await readFile(await download.path(), 'utf8')
    const rejected = Papa.parse<Record<string, string>>(text.trimEnd(), { header: true })
    expect(rejected.data.map((r) => [r['Chart #'], r.Reason])).toEqual(
      BAD_ROWS.map(({ chart, reason }) =>
        chart === 'P20009'
          ? [chart, 'A patient with this e-mail already exists.']
          : [chart, reason],
      ),
    )
    // Values as typed: the negative balance keeps its sign; the formula name stays text.
    const paul = rejected.data.find((r) => r['Chart #'] === 'P20008')
    expect(paul?.['Points Balance']).toBe('-50')
    const formula = rejected.data.find((r) => r['Chart #'] === 'P20006')
    expect(formula?.['First Name']).toBe('\'=HYPERLINK("http://evil.example","click")')

    // The same file again: nothing created, nothing posted.
    await page.getByRole('button', { name: 'Import another file' }).click()
    await chooseFile(page, 'emr-export.csv', EMR)
    await page.getByRole('button', { name: 'Check the rows' }).click()
    await expect(page.getByText('0 patients will be created.')).toBeVisible({ timeout: 30_000 })
    await expect(
      page.getByText('292 rows of this file were imported before and will not be created again.'),
    ).toBeVisible()
    await expect(page.getByText(/^Opening balances to post: 0 points/)).toBeVisible()
    await page.getByRole('button', { name: 'Import 0 patients' }).click()
    await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({
      timeout: 60_000,
    })
    await expect(page.getByText('0 patients created.')).toBeVisible()
    await expect(page.getByText('0 points posted as opening balances.')).toBeVisible()
    expect(await countMatching(request, session, '')).toBe(before + 292)
    for (const [i, id] of ids.entries()) {
      expect(await ledgerOf(request, session, id)).toHaveLength(1)
      expect((await patientByEmail(request, session, expected[i]?.email ?? '')).points).toBe(
        expected[i]?.points,
      )
    }
  })

  test('a file whose every date reads both ways: the preview asks, and the dates are stored as chosen', async ({
    page,
    request,
  }) => {
    const session = await apiSignIn(request, MANAGER.email, MANAGER.password)
    await storeSession(page, session)
    const tag = `dmy${Date.now()}`
    const csv = [
      'First Name,Last Name,Email,Date of Birth,Points Balance',
      `Chloé,Martin,${tag}.chloe@example.com,03/04/1990,250`,
      `Lukas,Weber,${tag}.lukas@example.com,11/12/1975,1000`,
      `Sofia,Rossi,${tag}.sofia@example.com,1/2/1988,`,
      '',
    ].join('\r\n')
    await page.goto('/patients/import')
    await chooseFile(page, 'clinique.csv', csv)
    await page.getByRole('button', { name: 'Check the rows' }).click()
    const question = page.getByRole('radiogroup', {
      name: 'How are the dates in this file written?',
    })
    await expect(question).toBeVisible({ timeout: 30_000 })
    await expect(
      page.getByText(
        'Every date in this file, such as 03/04/1990, can be read either way. Please choose before importing.',
      ),
    ).toBeVisible()
    await expect(page.getByText(/^Opening balances to post: 1,250 points/)).toBeVisible()
    await expect(page.getByRole('button', { name: 'Import 3 patients' })).toBeDisabled()
    await shoot(page, 'import-date-question', page.getByRole('heading', { name: 'Check the rows' }))

    await question.getByRole('radio', { name: 'Day/month/year' }).check()
    await expect(page.getByRole('button', { name: 'Import 3 patients' })).toBeEnabled({
      timeout: 30_000,
    })
    await page.getByRole('button', { name: 'Import 3 patients' }).click()
    await expect(page.getByText('3 patients created.')).toBeVisible({ timeout: 30_000 })
    await expect(page.getByText('1,250 points posted as opening balances.')).toBeVisible()
    const chloe = await patientByEmail(request, session, `${tag}.chloe@example.com`)
    expect(chloe).toMatchObject({ birth_date: '1990-04-03', points: 250 })
    const sofia = await patientByEmail(request, session, `${tag}.sofia@example.com`)
    expect(sofia).toMatchObject({ birth_date: '1988-02-01', points: 0 })
  })
})

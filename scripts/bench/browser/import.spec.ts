/**
 * The 10,000-row patient import in Chromium against the real server, for `npm run bench
 * -- --only=import`: the time to read, check and import the file and the longest main-thread task
 * of each phase, written as the test's `10k import` annotation (scripts/bench/import.ts reads it).
 * A measurement, not a test of the suite: the import's behaviour is proven on small files by
 * tests/e2e/patient-import.spec.ts and server/routes/patient-import.test.ts.
 */
import { apiSignIn, expect, storeSession, test } from '#tests/e2e/support/fixtures.ts'
import { chooseFile, countMatching, patientsCsv } from '#tests/e2e/support/import-files.ts'

const MANAGER = { email: 'manager@example.com', password: 'ManagerPass123' }

test.describe('the patient import at scale', () => {
  test('10,000 rows import in chunks with the progress shown', async ({ page, request }) => {
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

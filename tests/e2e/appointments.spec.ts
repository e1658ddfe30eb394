import { axeViolations, expect, openSignedIn, STAFF, test } from './support/fixtures.ts'
import { scrollsSideways } from './support/screens.ts'

/** A day `days` from today, as the address and the date input write it (UTC, as the server). */
function dayFromToday(days: number): string {
  const date = new Date()
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

test.describe('appointments at the front desk', () => {
  test('staff book a patient found by part of a name, see the day and the week, move, cancel and delete', async ({
    page,
    request,
  }) => {
    // A day far enough ahead to be empty, with the time in the page's own zone (UTC here).
    const day = dayFromToday(60)
    await openSignedIn(page, request, `/appointments?day=${day}`, STAFF)
    await expect(page.getByText('No appointments on this day.', { exact: false })).toBeVisible()

    await page.getByRole('button', { name: 'New appointment' }).click()
    const dialog = page.getByRole('dialog', { name: 'New appointment' })
    // Bad input says what is missing and keeps what was typed.
    await dialog.getByRole('textbox', { name: 'Notes' }).fill('First visit, allergic to latex')
    await dialog.getByRole('button', { name: 'Book appointment' }).click()
    await expect(dialog.getByText('Choose a patient of this practice.')).toBeVisible()
    await expect(dialog.getByRole('textbox', { name: 'Notes' })).toHaveValue(
      'First visit, allergic to latex',
    )
    // The picker finds by the starts of words, in any order.
    await dialog.getByRole('combobox', { name: 'Patient' }).fill('mart bla')
    await page.getByRole('option', { name: /Blake Martinez/ }).click()
    await dialog.getByRole('combobox', { name: 'Procedure' }).click()
    await page.getByRole('option', { name: 'HydraFacial' }).click()
    await dialog.getByLabel('Time').fill('10:30')
    expect(await axeViolations(page), 'axe on New appointment').toEqual([])
    await dialog.getByRole('button', { name: 'Book appointment' }).click()
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)

    const card = page.getByRole('article', { name: /Blake Martinez/ })
    await expect(card).toContainText('10:30 AM')
    await expect(card).toContainText('HydraFacial')
    await expect(card).toContainText('First visit, allergic to latex')
    expect(await axeViolations(page), 'axe on the day view').toEqual([])

    // The week view shows the same appointment under its day; the view is in the address.
    await page.getByText('Week', { exact: true }).click()
    await expect(page).toHaveURL(/view=week/)
    await expect(page.getByRole('article', { name: /Blake Martinez/ })).toBeVisible()
    expect(await axeViolations(page), 'axe on the week view').toEqual([])
    await page.getByText('Day', { exact: true }).click()

    // Rescheduled to the next day: gone from this day, there on the next.
    await card.getByRole('button', { name: 'Reschedule Blake Martinez' }).click()
    const move = page.getByRole('dialog', { name: 'Reschedule appointment' })
    await move.getByLabel('Date').fill(dayFromToday(61))
    await move.getByRole('button', { name: 'Reschedule' }).click()
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)
    await expect(page.getByRole('article', { name: /Blake Martinez/ })).toHaveCount(0)
    await page.getByRole('button', { name: 'Next day' }).click()
    await expect(page).toHaveURL(new RegExp(`day=${dayFromToday(61)}`))
    const moved = page.getByRole('article', { name: /Blake Martinez/ })
    await expect(moved).toContainText('10:30 AM')

    // Cancel asks first, and the appointment stays on the day, marked cancelled.
    await moved.getByRole('button', { name: 'Cancel Blake Martinez' }).click()
    const cancel = page.getByRole('dialog', { name: 'Cancel appointment' })
    await expect(cancel).toContainText('will be marked cancelled')
    // Its way out says what it does, and has the focus; keeping it changes nothing.
    await expect(cancel.getByRole('button', { name: 'Cancel', exact: true })).toHaveCount(0)
    await expect(cancel.getByRole('button', { name: 'Keep appointment' })).toBeFocused()
    await cancel.getByRole('button', { name: 'Keep appointment' }).click()
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)
    await expect(moved).not.toContainText('cancelled')
    await moved.getByRole('button', { name: 'Cancel Blake Martinez' }).click()
    await cancel.getByRole('button', { name: 'Cancel appointment' }).click()
    await expect(moved).toContainText('cancelled')
    await expect(moved.getByRole('button', { name: /Reschedule/ })).toHaveCount(0)

    // Delete asks first and removes it for good.
    await moved.getByRole('button', { name: 'Delete Blake Martinez' }).click()
    await page
      .getByRole('dialog', { name: 'Delete appointment' })
      .getByRole('button', { name: 'Delete appointment' })
      .click()
    await expect(page.getByRole('article', { name: /Blake Martinez/ })).toHaveCount(0)
    await expect(page.getByText('No appointments on this day.', { exact: false })).toBeVisible()
  })

  test('on a phone the day and the week stack, nothing scrolls sideways, and a completed visit cannot be deleted', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await openSignedIn(page, request, '/appointments', STAFF)
    // The demo practice has appointments today.
    await expect(page.getByRole('article').first()).toBeVisible()
    expect(await scrollsSideways(page), 'the day view scrolls sideways').toBe(false)
    // The day's toolbar holds in two rows: previous, today, next and the date on the
    // first, the view and New appointment on the second, each inside the screen.
    const boxOf = async (name: string, field = false) => {
      const box = await (field
        ? page.getByLabel(name, { exact: true })
        : page.getByRole('button', { name, exact: true })
      ).boundingBox()
      if (!box) throw new Error(`${name} is not on the screen`)
      expect(box.x + box.width, `${name} fits in 390 px`).toBeLessThanOrEqual(390)
      return box
    }
    const rowOf = (box: { y: number; height: number }) => Math.round(box.y + box.height)
    const dayRow = await Promise.all([
      boxOf('Previous day'),
      boxOf('Today'),
      boxOf('Next day'),
      boxOf('Date', true),
    ])
    expect(new Set(dayRow.map(rowOf)).size, 'previous, today, next and the date in one row').toBe(1)
    const viewRow = [
      await page.getByText('Week', { exact: true }).boundingBox(),
      await boxOf('New appointment'),
    ]
    expect(
      viewRow.every((box) => box && box.y > (dayRow[0]?.y ?? 0) + 10),
      'the view and New appointment in the row below',
    ).toBe(true)
    expect(
      Math.abs(
        Math.round((viewRow[0]?.y ?? 0) + (viewRow[0]?.height ?? 0) / 2) -
          Math.round((viewRow[1]?.y ?? 0) + (viewRow[1]?.height ?? 0) / 2),
      ),
      'the view and New appointment side by side',
    ).toBeLessThanOrEqual(4)
    expect(await axeViolations(page), 'axe on the day view at 390 px').toEqual([])
    await page.goto(`/appointments?day=${dayFromToday(-1)}`)
    const completed = page.getByRole('article').filter({ hasText: 'completed' }).first()
    await expect(completed).toContainText(
      "Completed: reverse its visit from the patient's profile.",
    )
    await expect(completed.getByRole('button', { name: /Delete/ })).toHaveCount(0)
    await page.goto('/appointments?view=week')
    await expect(page.getByRole('heading', { name: /\(today\)$/ })).toBeVisible()
    expect(await scrollsSideways(page), 'the week view scrolls sideways').toBe(false)
    expect(await axeViolations(page), 'axe on the week view at 390 px').toEqual([])
  })
})

import { axeViolations, expect, MANAGER, openSignedIn, STAFF, test } from './support/fixtures.ts'

test.describe('the catalogue', () => {
  test('a manager adds a treatment with points from its price, changes it, archives and restores it', async ({
    page,
    request,
  }) => {
    const name = `Glow Peel ${Date.now().toString().slice(-6)}`
    await openSignedIn(page, request, '/procedures', MANAGER)
    await page.getByRole('button', { name: 'Add treatment' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add treatment' })
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name)
    await dialog.getByRole('button', { name: 'Add treatment' }).click()
    // Bad input says what is wrong and keeps what was typed.
    await expect(dialog.getByText('Please enter a price of $0.00 to $100,000.00.')).toBeVisible()
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(name)
    await dialog.getByRole('textbox', { name: 'Price' }).fill('125.50')
    expect(await axeViolations(page), 'axe on Add treatment').toEqual([])
    await dialog.getByRole('button', { name: 'Add treatment' }).click()
    // Gone from the page, not only hidden: axe would judge its title while it fades out.
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)

    const treatments = page.getByRole('table', { name: 'Treatments' })
    const row = treatments.getByRole('row').filter({ hasText: name })
    await expect(row).toContainText('$125.50')
    await expect(row).toContainText('125 (from price)')
    expect(await axeViolations(page), 'axe on Procedures').toEqual([])

    await row.getByRole('button', { name: `Edit ${name}` }).click()
    const edit = page.getByRole('dialog', { name: 'Edit treatment' })
    await edit.getByRole('textbox', { name: 'Points per unit' }).fill('300')
    await edit.getByRole('textbox', { name: 'Days between two awards' }).fill('28')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await expect(edit).toBeHidden()
    await expect(row).toContainText('300')
    await expect(row).toContainText('28 days')

    await row.getByRole('button', { name: `Archive ${name}` }).click()
    await expect(row).toHaveCount(0)
    await page.getByText('Archived', { exact: true }).click()
    await expect(page).toHaveURL(/show=archived/)
    await page
      .getByRole('table', { name: 'Treatments' })
      .getByRole('button', { name: `Restore ${name}` })
      .click()
    await page.getByText('Catalogue', { exact: true }).click()
    await expect(treatments.getByRole('row').filter({ hasText: name })).toBeVisible()
  })

  test('a staff member reads the catalogue on a phone and cannot change it', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    const staff = await openSignedIn(page, request, '/procedures', STAFF)
    await expect(page.getByText(/Only a manager or an admin can change them/)).toBeVisible()
    await expect(page.getByRole('listitem').first()).toBeVisible()
    await expect(page.getByRole('button', { name: /^(Add|Edit|Archive) / })).toHaveCount(0)
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(overflow).toBeLessThanOrEqual(0)
    expect(await axeViolations(page), 'axe on Procedures at 390 px').toEqual([])
    const refused = await request.post('/api/procedures', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
      data: { name: 'Staff Peel', price: 100 },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Only a manager or an admin can change the catalogue.',
    )
  })
})

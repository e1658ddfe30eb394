import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { apiSignIn, axeViolations, expect, openAs, openSignedIn, test } from './support/fixtures.ts'

test.describe('the programme rules', () => {
  test('an admin sets a joining bonus, and the next patient added gets it', async ({
    page,
    request,
  }) => {
    const admin = await openSignedIn(page, request, '/settings')
    try {
      const form = page.getByRole('form', { name: 'Programme rules' })
      const bonus = form.getByRole('textbox', { name: /Joining bonus/ })
      await bonus.fill('')
      await form.getByRole('button', { name: 'Save rules' }).click()
      // Bad input says which rule and keeps the form as typed.
      await expect(form.getByText('Joining bonus must be a number.')).toBeVisible()
      await bonus.fill('250')
      expect(await axeViolations(page), 'axe on Settings').toEqual([])
      await form.getByRole('button', { name: 'Save rules' }).click()
      await expect(form.getByRole('status')).toHaveText(
        'Programme rules saved. They apply from now on.',
      )
      await page.reload()
      await expect(
        page.getByRole('form', { name: 'Programme rules' }).getByRole('textbox', {
          name: /Joining bonus/,
        }),
      ).toHaveValue('250')

      const stamp = Date.now().toString().slice(-7)
      await page.goto('/patients')
      await page.getByRole('button', { name: 'Add patient' }).click()
      const dialog = page.getByRole('dialog', { name: 'Add patient' })
      await dialog.getByLabel('First name').fill('Bo')
      await dialog.getByLabel('Last name').fill(`Bonus${stamp}`)
      await dialog.getByRole('button', { name: 'Add patient' }).click()
      await expect(page.getByRole('heading', { level: 1, name: `Bo Bonus${stamp}` })).toBeVisible()
      await expect(page.getByText('points, worth $25.00')).toBeVisible()
      await expect(
        page
          .getByRole('table')
          .getByRole('row')
          .filter({ hasText: 'Bonus of 250 points for joining' }),
      ).toBeVisible()
    } finally {
      // The other journeys expect the demo practice's default rules.
      const reset = await request.put('/api/practice/rules', {
        headers: { Authorization: `Bearer ${admin.jwt}` },
        data: DEFAULT_PROGRAMME_RULES,
      })
      expect(reset.status()).toBe(200)
    }
  })

  test('a staff member reads the rules and is told who can change them', async ({
    page,
    request,
  }) => {
    const staff = await apiSignIn(request, 'staff@example.com', 'StaffPass123')
    await openAs(page, staff, '/settings')
    const section = page.getByRole('region', { name: 'Programme rules' })
    await expect(section.getByText('Only an admin can change the programme rules.')).toBeVisible()
    await expect(section.getByRole('form')).toHaveCount(0)
    const refused = await request.put('/api/practice/rules', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
      data: { ...DEFAULT_PROGRAMME_RULES, joining_bonus: 999 },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Only an admin can change the practice settings.',
    )
  })
})

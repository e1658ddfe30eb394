import {
  apiSignIn,
  axeViolations,
  createPatient,
  expect,
  MANAGER,
  storeSession,
  test,
} from './support/fixtures.ts'
import { screens } from './support/screens.ts'

// The offer's life and its funnel, through the real server.

const shoot = screens('issue-18')

test.describe('promotions', () => {
  test('a manager creates an offer, publishes it, claims it for a patient and sees the funnel', async ({
    page,
    request,
  }) => {
    test.setTimeout(180_000)
    const stamp = Date.now().toString().slice(-6)
    const title = `Glow Week ${stamp}`
    const manager = await apiSignIn(request, MANAGER.email, MANAGER.password)
    const patient = await createPatient(request, manager, {
      first_name: 'Paige',
      last_name: `Promo${stamp}`,
    })
    await storeSession(page, manager)

    await page.goto('/promotions')
    await expect(page.getByRole('tab', { name: 'Live', selected: true })).toBeVisible()
    await shoot(page, 'promotions-live')

    // The form says what is wrong next to each field and keeps what was typed.
    await page.getByRole('button', { name: 'New offer' }).click()
    const dialog = page.getByRole('dialog', { name: 'New offer' })
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Bonus points this week.')
    await dialog.getByRole('textbox', { name: 'Starts' }).fill('2030-05-10T09:00')
    await dialog.getByRole('textbox', { name: 'Ends' }).fill('2030-05-01T09:00')
    await dialog.getByRole('radio', { name: 'Only patients with a code' }).check()
    await dialog.getByRole('textbox', { name: 'Code' }).fill('no spaces!')
    await dialog.getByRole('button', { name: 'Save draft' }).click()
    await expect(dialog.getByText('Give the offer a title.')).toBeVisible()
    await expect(dialog.getByText('The end must be after the start.')).toBeVisible()
    await expect(dialog.getByText('A code is 3 to 20 letters, digits or dashes.')).toBeVisible()
    await expect(dialog.getByRole('textbox', { name: 'Description' })).toHaveValue(
      'Bonus points this week.',
    )
    expect(await axeViolations(page), 'axe on the New offer form').toEqual([])
    // An offer may take money off: the amount and the procedures it applies to.
    await dialog.getByText('Amount off', { exact: true }).click()
    await dialog.getByRole('textbox', { name: 'Amount off ($)' }).fill('50')
    await expect(dialog.getByRole('combobox', { name: 'Procedures' })).toBeVisible()
    await shoot(
      page,
      'promotions-new-offer-discount',
      dialog.getByText('Discount', { exact: true }),
    )
    await dialog.getByText('None', { exact: true }).click()
    await expect(dialog.getByRole('textbox', { name: 'Amount off ($)' })).toHaveCount(0)

    await dialog.getByRole('textbox', { name: 'Title' }).fill(title)
    await dialog.getByRole('textbox', { name: 'Starts' }).fill('')
    await dialog.getByRole('textbox', { name: 'Ends' }).fill('')
    await dialog.getByRole('radio', { name: 'Every patient' }).check()
    await dialog.getByRole('textbox', { name: 'Bonus points' }).fill('250')
    await dialog.getByRole('button', { name: 'Save draft' }).click()
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)

    // The draft's page: publish asks first, then the offer is live.
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible()
    await expect(page.getByText('Draft', { exact: true })).toBeVisible()
    await page.getByRole('button', { name: 'Publish' }).click()
    const ask = page.getByRole('dialog', { name: 'Publish this offer?' })
    await ask.getByRole('button', { name: 'Publish' }).click()
    await expect(page.locator('[role="dialog"]')).toHaveCount(0)
    await expect(page.getByText('Live', { exact: true })).toBeVisible()

    await page.goto('/promotions')
    await expect(page.getByRole('link', { name: title })).toBeVisible()

    // On the patient's profile, staff claim the live offer for the patient.
    await page.goto(`/patients/${patient.id}`)
    await expect(page.getByText('This patient has not claimed an offer yet.')).toBeVisible()
    await page.getByRole('combobox', { name: 'Live offer' }).click()
    await page.getByRole('option', { name: new RegExp(title) }).click()
    await page.getByRole('button', { name: 'Claim for patient' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'is claimed for this patient' }),
    ).toBeVisible()
    const offers = page.getByRole('region', { name: "The patient's offers" })
    await expect(offers.getByRole('row', { name: new RegExp(title) })).toContainText('Claimed')
    await expect(page.getByRole('link', { name: 'Redeem at checkout' })).toBeVisible()
    await shoot(page, 'patient-promotions')

    // The funnel counts the claim.
    await page.goto('/promotions')
    await page.getByRole('link', { name: title }).click()
    const funnel = page.getByRole('region', { name: 'Funnel' })
    const claimed = funnel.getByText('Claimed', { exact: true }).locator('..')
    await expect(claimed).toContainText('1')
    await expect(funnel.getByText('Redemption rate', { exact: true }).locator('..')).toContainText(
      '0%',
    )
    await shoot(page, 'promotion-offer')
  })
})

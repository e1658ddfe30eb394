import type { APIRequestContext } from '@playwright/test'
import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { NEXTECH_MESSAGES } from '#server/nextech/failures.ts'
import { type ApiSession, expect, openSignedIn, test } from './support/fixtures.ts'
import { putPractice, putRules } from './support/practice.ts'
import { screens } from './support/screens.ts'

// Settings → Integrations: an Admin connects the practice to Nextech (the server's built-in
// sandbox answers outside production), through the real server.

test.describe.configure({ timeout: 240_000 })

const shoot = screens('issue-32')

/** The demo practice back without Nextech (the journeys after these need no sync). */
function restorePractice(request: APIRequestContext, admin: ApiSession) {
  return putPractice(request, admin, { e_record: 'no_integration', nextech: null })
}

test('an Admin connects Nextech: a wrong password, then the right one, each answer in words', async ({
  page,
  request,
}) => {
  const admin = await openSignedIn(page, request, '/settings')
  try {
    const integrations = page.getByRole('region', { name: 'Integrations' })
    // The demo practice was connected to the sandbox at the first start (server/start.test.ts);
    // journeys before this one may have changed its fields since, so this one sets them itself.
    await expect(integrations.getByRole('heading', { name: 'Integrations' })).toBeVisible()

    // The four fields, with a password Nextech refuses.
    const form = page.getByRole('form', { name: 'Practice details' })
    await form.getByRole('radio', { name: 'Nextech' }).check()
    await form.getByRole('textbox', { name: /^Client ID/ }).fill(NEXTECH_SANDBOX_LOGIN.client_id)
    await form.getByRole('textbox', { name: /^Username/ }).fill(NEXTECH_SANDBOX_LOGIN.username)
    await form.getByLabel(/^Nextech password/).fill('not-the-password')
    await form
      .getByRole('textbox', { name: /^NX Practice ID/ })
      .fill(NEXTECH_SANDBOX_LOGIN.nx_practice_id)
    await form.getByRole('button', { name: 'Save practice details' }).click()
    await expect(form.getByRole('status')).toHaveText('Practice details saved.')

    await expect(integrations.getByText('Not tested yet')).toBeVisible()
    await integrations.getByRole('button', { name: 'Test connection' }).click()
    // The refusal, once: as the connection's last failure.
    const refusal = integrations
      .getByRole('alert')
      .filter({ hasText: NEXTECH_MESSAGES.credentials })
    await expect(integrations.getByText('Not connected')).toBeVisible()
    await expect(refusal).toHaveCount(1)
    await expect(refusal).toContainText('Last failure')
    await shoot(page, 'settings-nextech-refused', integrations)

    // The right password: connected, and the failure is gone.
    await form.getByLabel(/^Nextech password/).fill(NEXTECH_SANDBOX_LOGIN.password)
    await form.getByRole('button', { name: 'Save practice details' }).click()
    await expect(form.getByRole('status')).toHaveText('Practice details saved.')
    await integrations.getByRole('button', { name: 'Test connection' }).click()
    await expect(integrations.getByRole('status')).toHaveText(NEXTECH_MESSAGES.connected)
    await expect(integrations.getByText('Connected', { exact: true })).toBeVisible()
    await expect(integrations.getByText(/^Working since /)).toBeVisible()
    await expect(integrations.getByRole('alert')).toHaveCount(0)
    await shoot(page, 'settings-nextech-connected', integrations)
  } finally {
    await restorePractice(request, admin)
  }
})

test('an Admin syncs with Nextech: the counts, a review item resolved, a code mapped, the points on the profile', async ({
  page,
  request,
}) => {
  const admin = await openSignedIn(page, request, '/settings')
  const stamp = `${Date.now()}`.slice(-6)
  try {
    await putPractice(request, admin, { e_record: 'nextech', nextech: NEXTECH_SANDBOX_LOGIN })
    // A referral bonus in the programme rules, as the Admin sets it in Settings.
    const rules = page.getByRole('form', { name: 'Programme rules' })
    await rules.getByRole('textbox', { name: /Referral bonus/ }).fill('150')
    await rules.getByRole('button', { name: 'Save rules' }).click()
    await expect(rules.getByRole('status')).toHaveText(
      'Programme rules saved. They apply from now on.',
    )
    await shoot(page, 'settings-referral-bonus', rules)
    // In the sandbox (as a tester would with scripts/nextech-sandbox.ts): a new patient, referred
    // by Avery Johnson, with a bill of today, and a patient with Dana O'Connor's e-mail under
    // another name.
    const added = await request.post('/nextech-sandbox/_sandbox/patients', {
      data: {
        given: 'Robin',
        family: `Sync${stamp}`,
        email: `robin.sync${stamp}@example.com`,
        referringPatientId: '20001',
      },
    })
    expect(added.status(), await added.text()).toBe(201)
    const robin = (await added.json()) as { id: string }
    const code = `PEEL${stamp}`
    const billed = await request.post('/nextech-sandbox/_sandbox/bills', {
      data: { patientId: robin.id, items: [{ code, text: 'Signature peel', unitPrice: 180 }] },
    })
    expect(billed.status(), await billed.text()).toBe(201)
    const bill = (await billed.json()) as { id: string }
    const twin = await request.post('/nextech-sandbox/_sandbox/patients', {
      data: { given: 'Dana', family: `Quill${stamp}`, email: 'dana.oconnor@example.com' },
    })
    expect(twin.status(), await twin.text()).toBe(201)

    await page.reload()
    const integrations = page.getByRole('region', { name: 'Integrations' })
    await integrations.getByRole('button', { name: 'Test connection' }).click()
    await expect(integrations.getByRole('status')).toHaveText(NEXTECH_MESSAGES.connected)
    await integrations.getByRole('button', { name: 'Sync now' }).click()
    const finished = integrations.getByRole('status').filter({ hasText: 'Sync finished' })
    await expect(finished).toBeVisible()
    // The bill's 180 points and Avery's 150 for the referral.
    await expect(finished).toContainText('330 points awarded')
    await shoot(page, 'settings-nextech-synced', integrations)

    // The patient Nextech has under Dana O'Connor's e-mail but another name: not guessed.
    const item = integrations.getByRole('article', { name: `Review Dana Quill${stamp}` })
    await expect(item).toContainText('but another name')
    await shoot(page, 'settings-nextech-review', item)
    await item.getByRole('button', { name: 'Ignore' }).click()
    await expect(item).toHaveCount(0)

    // The bill's code, mapped to a procedure of the catalogue.
    const row = integrations.getByRole('article', { name: `Service code ${code}` })
    await expect(row).toContainText('Unmapped')
    await row.getByRole('combobox', { name: `Catalogue item for ${code}` }).click()
    await page.getByRole('option').first().click()
    await row.getByRole('button', { name: `Save ${code}` }).click()
    await expect(row).toContainText('Mapped to')
    await shoot(page, 'settings-nextech-codes', row)

    // The points on the patient's profile, marked as from Nextech.
    await page.goto('/patients')
    await page.getByRole('searchbox', { name: 'Search patients' }).fill(`Sync${stamp}`)
    await expect(page.getByRole('status').filter({ hasText: 'match' })).toContainText(
      `match “Sync${stamp}”`,
    )
    await page.getByRole('link', { name: new RegExp(`Robin Sync${stamp}`) }).click()
    await expect(
      page.getByRole('cell', {
        name: `Earned 180 points: Nextech bill ${bill.id}, Signature peel`,
      }),
    ).toBeVisible()
    await shoot(page, 'patient-nextech-points')

    // Avery Johnson, who referred Robin, has the referral bonus.
    await page.goto('/patients')
    await page.getByRole('searchbox', { name: 'Search patients' }).fill('Avery Johnson')
    await expect(page.getByRole('status').filter({ hasText: 'match' })).toContainText(
      'match “Avery Johnson”',
    )
    await page
      .getByRole('link', { name: /Avery Johnson/ })
      .first()
      .click()
    await expect(
      page.getByRole('cell', {
        name: new RegExp(
          `Bonus of 150 points: Referred Robin Sync${stamp}, whose first bill from Nextech earned points`,
        ),
      }),
    ).toBeVisible()
    await shoot(page, 'patient-referral-bonus')
  } finally {
    await restorePractice(request, admin)
    await putRules(request, admin, DEFAULT_PROGRAMME_RULES)
  }
})

import type { APIRequestContext } from '@playwright/test'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { NEXTECH_MESSAGES } from '#server/nextech/failures.ts'
import { type ApiSession, expect, openSignedIn, test } from './support/fixtures.ts'
import { putPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'

// Settings → Integrations: an Admin connects the practice to Nextech (the server's built-in
// sandbox answers outside production), through the real server.

test.describe.configure({ timeout: 240_000 })

const shoot = screens('issue-32')

/** The demo practice back without Nextech, as the seed made it. */
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
    await expect(
      integrations.getByText('This practice does not use Nextech.', { exact: false }),
    ).toBeVisible()

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

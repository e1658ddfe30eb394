import type { Page } from '@playwright/test'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { type SubscriptionAnswer, subscriptionDate } from '#domain/subscription.ts'
import { apiSignIn, expect, openAs, test } from './support/fixtures.ts'
import { signUpPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'
import { choose, field } from './support/wizard.ts'

// The subscription in Settings, through the real server and the test payment gateway.

const shoot = screens('issue-19')

const section = (page: Page) => page.getByRole('region', { name: 'Subscription' })

test.describe('the subscription in Settings', () => {
  test('an Admin sees the plan, changes the card, sets it to end at the term end and keeps it', async ({
    page,
    request,
  }) => {
    test.setTimeout(180_000)
    const admin = await signUpPractice(request, 'Harbor Light Aesthetics')
    const api = await request.get('/api/practice/subscription', {
      headers: { Authorization: `Bearer ${admin.jwt}` },
    })
    expect(api.status()).toBe(200)
    const answer = (await api.json()) as SubscriptionAnswer
    const termEnd = subscriptionDate(answer.current_period_end ?? '')

    await openAs(page, admin, '/settings')
    const subscription = section(page)
    await expect(subscription.getByText('Glow Monthly Lite: $99.00 a month')).toBeVisible()
    await expect(subscription.getByText('Monthly', { exact: true })).toBeVisible()
    await expect(subscription.getByText('Visa •••• 4242 (expires 12/30)')).toBeVisible()
    // WELCOME10 took 10% off the first month only: the renewal is the full price.
    await expect(subscription.getByText(`Renews on ${termEnd} for $99.00`)).toBeVisible()
    await expect(
      subscription.getByText('Promo code WELCOME10 (10% off) applied to the first term only.'),
    ).toBeVisible()
    await shoot(page, 'subscription', subscription)

    // A declined card: the message of sign-up, and what was typed stays.
    await subscription.getByRole('button', { name: 'Change card' }).click()
    const dialog = page.getByRole('dialog', { name: 'Change card' })
    await dialog.getByLabel(/^Card number/).fill('4000000000000002')
    await choose(page, /^Expiration month/, '03')
    await choose(page, /^Expiration year/, '2031')
    await dialog.getByLabel(/^CVV/).fill('123')
    await field(page, /^Cardholder name/).fill('Jane Doe')
    await dialog.getByRole('button', { name: 'Save card' }).click()
    await expect(dialog.getByRole('alert')).toHaveText('Your card was declined.')
    await expect(dialog.getByLabel(/^Card number/)).toHaveValue('4000 0000 0000 0002')
    await expect(field(page, /^Cardholder name/)).toHaveValue('Jane Doe')
    await shoot(page, 'subscription-card-declined', dialog)

    await dialog.getByLabel(/^Card number/).fill('5555555555554444')
    await dialog.getByLabel(/^CVV/).fill('123')
    await dialog.getByRole('button', { name: 'Save card' }).click()
    await expect(dialog).toBeHidden()
    await expect(
      subscription.getByText('The card on file is now Mastercard •••• 4444.'),
    ).toBeVisible()
    await expect(subscription.getByText('Mastercard •••• 4444 (expires 03/31)')).toBeVisible()

    // Cancel at the end of the term: the confirmation says the date; then the date shows.
    await subscription.getByRole('button', { name: 'Cancel at end of term' }).click()
    const confirm = page.getByRole('dialog', { name: 'Cancel at end of term' })
    await expect(confirm).toContainText(`The subscription will end on ${termEnd}`)
    await shoot(page, 'subscription-cancel-confirm', confirm)
    await confirm.getByRole('button', { name: 'Cancel at end of term' }).click()
    await expect(confirm).toBeHidden()
    await expect(subscription.getByText(`Ends on ${termEnd}`, { exact: true })).toBeVisible()
    await expect(
      subscription.getByText(`The subscription is set to end on ${termEnd}.`),
    ).toBeVisible()
    await shoot(page, 'subscription-ending', subscription)

    // Undo before the term ends.
    await subscription.getByRole('button', { name: 'Keep subscription' }).click()
    await expect(subscription.getByText(`Renews on ${termEnd} for $99.00`)).toBeVisible()
    await expect(subscription.getByRole('button', { name: 'Cancel at end of term' })).toBeVisible()

    // The activity log says each of these in words.
    await page.goto('/settings/activity')
    await expect(
      page.getByText('Jane Doe changed the card on file to Mastercard •••• 4444.').first(),
    ).toBeVisible()
    await expect(
      page.getByText(`Jane Doe set the subscription to end on ${termEnd}.`).first(),
    ).toBeVisible()
    await expect(
      page.getByText(`Jane Doe kept the subscription: it renews on ${termEnd}.`).first(),
    ).toBeVisible()
  })

  test('a Staff member gets none of it: no section, and 403 from the API', async ({
    page,
    request,
  }) => {
    const staff = await apiSignIn(request, 'staff@example.com', 'StaffPass123')
    const refused = await request.get('/api/practice/subscription', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      PERMISSION_REFUSALS['subscription.manage'],
    )
    await openAs(page, staff, '/settings')
    await expect(page.getByRole('heading', { name: 'Programme rules' })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Subscription' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Change card' })).toHaveCount(0)
  })
})

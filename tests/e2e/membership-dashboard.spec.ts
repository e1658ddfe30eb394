import { readFileSync } from 'node:fs'
import type { APIRequestContext } from '@playwright/test'
import type { MembershipReport } from '#domain/membership-reports.ts'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import {
  type ApiSession,
  apiSignIn,
  createPatient,
  expect,
  openAs,
  test,
} from './support/fixtures.ts'
import { registerColleague, signUpPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'

// The memberships dashboard through the real server and its test gateway: three members join a
// $99 monthly plan that banks $50 a cycle; a month later two renewals are paid and the third
// (whose card on file is 4000 0000 0000 0341) is declined. The Admin reads the numbers at both
// widths, the movement as a table and the bank adding up; Staff read the counts, and no dollar.

test.describe.configure({ timeout: 240_000 })

const shoot = screens('membership-dashboard')

const auth = (session: { jwt: string }) => ({ Authorization: `Bearer ${session.jwt}` })

async function post(request: APIRequestContext, session: ApiSession, path: string, data: unknown) {
  const answer = await request.post(path, { headers: auth(session), data })
  expect(answer.status(), await answer.text()).toBeLessThan(300)
  return (await answer.json()) as Record<string, unknown>
}

async function cardToken(request: APIRequestContext, number: string) {
  const token = await request.post('/api/payments/test-tokens', {
    data: { number, exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  expect(token.status(), await token.text()).toBe(200)
  return ((await token.json()) as { id: string }).id
}

test('memberships dashboard: members, MRR, its movement and the bank for the Admin at both widths; counts and no money for Staff', async ({
  page,
  request,
}) => {
  const stamp = `${Date.now()}`.slice(-6)
  const admin = await signUpPractice(request, `Lumen Clinic ${stamp}`)
  const colleague = await registerColleague(request, admin.jwt, 3, 'Tess', 'Nguyen')
  const staff = await apiSignIn(request, colleague.email, colleague.password)

  await post(request, admin, '/api/practice/payments/connect', {})
  const plan = await post(request, admin, '/api/membership-plans', {
    name: `Lumen Monthly ${stamp}`,
    description: 'A facial a month and $50 banked.',
    price_cents: 9900,
    interval: 'month',
    setup_fee_cents: 0,
    min_cycles: 1,
    notice_days: 0,
    perks: {
      bank_cents: 5000,
      allowances: [],
      discount_percent: 10,
      discount_item_ids: [],
      points_multiplier: 1,
      join_bonus_points: 0,
    },
  })
  const members: number[] = []
  for (const [i, first] of ['Iris', 'Jon', 'Kai'].entries()) {
    const patient = await createPatient(request, admin, {
      first_name: first,
      last_name: `Member${stamp}`,
      email: `${first.toLowerCase()}.${stamp}@example.com`,
    })
    const enrolled = await post(request, admin, `/api/patients/${patient.id}/memberships`, {
      plan_id: plan.id,
      payment_method_token: await cardToken(request, '4242424242424242'),
      consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: first },
      idempotencyKey: `dashboard-${stamp}-${i}`,
    })
    members.push(enrolled.id as number)
  }
  // Kai's card on file becomes one that attaches but is declined when charged.
  const swapped = await request.put(`/api/memberships/${members[2]}/card`, {
    headers: auth(admin),
    data: { payment_method_token: await cardToken(request, '4000000000000341') },
  })
  expect(swapped.status(), await swapped.text()).toBe(200)

  // A month later: two renewals paid, one declined (past due, still counted in MRR).
  const moved = await request.post('/api/dev/clock', { data: { days: 31 } })
  expect(moved.status(), await moved.text()).toBe(200)
  const report = (await (
    await request.get('/api/reports/memberships', { headers: auth(admin) })
  ).json()) as MembershipReport
  expect(report).toMatchObject({ active: 2, past_due: 1, new: 3, mrr_cents: 29_700 })

  // The Memberships area leads to its dashboard.
  await openAs(page, admin, '/memberships')
  await page.getByRole('link', { name: 'Memberships dashboard' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Memberships dashboard' })).toBeVisible()
  await expect(page).toHaveTitle('Memberships dashboard – Glow Rewards')

  const members_ = page.getByRole('region', { name: 'Members' })
  const tile = (name: string) => members_.getByRole('group', { name, exact: true })
  await expect(tile('Active')).toContainText('2')
  await expect(tile('New')).toContainText('3')
  await expect(tile('Past due')).toContainText('1')
  await expect(tile('MRR')).toContainText('$297.00')
  await expect(tile('Cancelled')).toContainText(
    '0 by the patient, 0 by staff, 0 for failed payment.',
  )

  const chart = page.getByRole('region', { name: 'MRR movement by month', exact: true })
  await expect(chart.getByText(/MRR went from \$0\.00 to \$297\.00/)).toBeVisible()
  await expect(chart.getByText(/\$297\.00 new/)).toBeVisible()

  // The bank: 3 × $50 at enrolment and 2 × $50 with the paid renewals.
  const bank = page.getByRole('region', { name: 'Membership bank' })
  await expect(bank.getByRole('row', { name: /^Paid in with cycles/ })).toContainText('+$250.00')
  await expect(bank.getByRole('row', { name: /^Closing balance/ })).toContainText('$250.00')
  await expect(bank.getByText(/The members’ banks hold \$250\.00 today\./)).toBeVisible()
  await shoot(page, 'admin')

  // The movement as a table: the last month closes at $297.00.
  await chart.getByRole('button', { name: 'Show as table' }).click()
  const table = chart.getByRole('table', { name: 'MRR movement by month' })
  await expect(table.getByRole('row').last()).toContainText('$297.00')
  await expect(chart.getByRole('button', { name: 'Show as chart' })).toHaveAttribute(
    'aria-pressed',
    'true',
  )
  await shoot(page, 'admin-movement-table', chart)

  // The CSV of the same numbers.
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download CSV' }).click()
  const file = await download
  expect(file.suggestedFilename()).toMatch(/^memberships-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}\.csv$/)
  const csv = readFileSync((await file.path()) as string, 'utf8')
  expect(csv).toContain('active,,2')
  expect(csv).toContain('mrr_dollars,,297')

  // The main dashboard's worklist lists Kai as past due, with the plan, the amount and the next try.
  await openAs(page, admin, '/dashboard')
  const worklist = page.getByRole('region', { name: 'Worklist' })
  await worklist.getByRole('tab', { name: 'Memberships past due (1)' }).click()
  const owing = worklist.getByRole('tabpanel').getByRole('listitem')
  await expect(owing).toHaveCount(1)
  await expect(owing.getByRole('link', { name: `Kai Member${stamp}` })).toBeVisible()
  await expect(owing).toContainText(`Lumen Monthly ${stamp} · $99.00 due · next try`)
  await worklist.getByRole('tab', { name: 'Cards expiring this month (0)' }).click()
  await expect(
    worklist.getByText('No member’s card expires at the end of this month.'),
  ).toBeVisible()

  // Staff: the counts, and not one dollar amount.
  await openAs(page, staff, '/memberships/dashboard')
  await expect(page.getByRole('heading', { level: 1, name: 'Memberships dashboard' })).toBeVisible()
  await expect(tile('Active')).toContainText('2')
  await expect(tile('Past due')).toContainText('1')
  await expect(page.getByRole('region', { name: 'Membership bank' })).toHaveCount(0)
  await expect(
    page.getByRole('region', { name: 'MRR movement by month', exact: true }),
  ).toHaveCount(0)
  await expect(page.locator('main')).not.toContainText(/\$\d/)
  await shoot(page, 'staff')
})

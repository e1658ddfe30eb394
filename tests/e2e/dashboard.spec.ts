import type { APIRequestContext, Page } from '@playwright/test'
import Papa from 'papaparse'
import { axeViolations, expect, openSignedIn, STAFF, test } from './support/fixtures.ts'
import { shot } from './support/screens.ts'

/** A figure of a tile as a number ("12,340" → 12340). */
async function figure(page: Page, key: string): Promise<number> {
  const text = (await page.locator(`[data-figure="${key}"]`).first().textContent()) ?? ''
  return Number(text.replace(/[^\d.-]/g, ''))
}

/** The liability report's points on a line of the table. */
async function line(page: Page, name: string): Promise<number> {
  const row = page.getByRole('row', { name: new RegExp(`^${name}`) })
  const text = (await row.getByRole('cell').first().textContent()) ?? ''
  return Number(text.replace(/[−]/g, '-').replace(/[^\d-]/g, ''))
}

async function noSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }))
  expect(widths.scroll, 'the page scrolls sideways').toBeLessThanOrEqual(widths.client)
}

async function api<T>(request: APIRequestContext, jwt: string, path: string, data?: unknown) {
  const response = data
    ? await request.post(`/api/${path}`, { data, headers: { Authorization: `Bearer ${jwt}` } })
    : await request.get(`/api/${path}`, { headers: { Authorization: `Bearer ${jwt}` } })
  expect(response.ok(), `${path}: ${response.status()} ${await response.text()}`).toBe(true)
  return (await response.json()) as T
}

test.describe('the dashboard', () => {
  test('shows the seeded year, moves by exactly a visit, a redemption and an adjustment, and the liability adds up', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000)
    await page.setViewportSize({ width: 1440, height: 1000 })
    const session = await openSignedIn(page, request, '/dashboard')
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()

    // Tiles: the demo's patients, its points and their dollars, this month's movements.
    const patients = await figure(page, 'patients')
    expect(patients).toBeGreaterThan(50)
    const outstanding = await figure(page, 'points-outstanding')
    expect(outstanding).toBeGreaterThan(0)
    await expect(page.locator('[data-figure="liability"]')).toHaveText(
      `$${(outstanding / 10).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    )
    const today = (await page.locator('[data-figure="appointments"]').textContent()) ?? ''
    const [completed, booked] = (today.match(/\d+/g) ?? []).map(Number)
    expect(booked).toBeGreaterThan(0)
    const open = (booked ?? 0) - (completed ?? 0)

    // Worklist: the seeded lists, each row a link to the patient.
    const worklist = page.getByRole('region', { name: 'Worklist' })
    await expect(worklist.getByRole('tab', { name: /Points expiring \(\d+\)/ })).toBeVisible()
    await worklist.getByRole('tab', { name: `Today's appointments (${open})` }).click()
    await expect(page).toHaveURL(/list=appointments/)
    const rows = worklist.getByRole('tabpanel').getByRole('listitem')
    await expect(rows).toHaveCount(Math.min(open, 10))
    await expect(
      rows.first().getByRole('link', { name: /^Open the appointment of / }),
    ).toHaveAttribute('href', /\/appointments\?day=\d{4}-\d{2}-\d{2}/)
    await worklist.getByRole('tab', { name: /Not seen in 90 days/ }).click()
    const lapsing = worklist.getByRole('tabpanel').getByRole('listitem')
    await expect(lapsing.first().getByRole('link').first()).toHaveAttribute(
      'href',
      /\/patients\/\d+$/,
    )

    // Charts, with their text alternatives: the 12 months as a table.
    const points = page.getByRole('region', { name: 'Points per month' })
    await expect(points).toContainText(/points earned/)
    await expect(points.locator('.recharts-surface')).toBeVisible()
    await page
      .getByRole('region', { name: 'Live offers: sent, claimed and redeemed' })
      .scrollIntoViewIfNeeded()
    await expect(
      page.getByRole('region', { name: 'Live offers: sent, claimed and redeemed' }),
    ).toContainText('Autumn Refresh')
    await shot(page, 'issue-20', 'dashboard-1440.png')
    await points.getByRole('button', { name: 'Show as table' }).click()
    const table = points.getByRole('table', { name: 'Points per month' })
    await expect(table.getByRole('row')).toHaveCount(13)
    expect(await axeViolations(page), 'axe on the dashboard').toEqual([])
    await points.getByRole('button', { name: 'Show as chart' }).click()

    // A visit, a redemption and an adjustment on one patient, through the API.
    const before = {
      earned: await figure(page, 'points-earned'),
      redeemed: await figure(page, 'points-redeemed'),
      outstanding,
    }
    await page.goto('/dashboard/liability')
    await expect(page.getByRole('heading', { level: 1, name: 'Points liability' })).toBeVisible()
    const reportBefore = {
      earned: await line(page, 'Earned'),
      redeemed: await line(page, 'Redeemed'),
      adjusted: await line(page, 'Adjusted'),
      closing: await line(page, 'Closing balance'),
    }
    const jwt = session.jwt
    const { data: list } = await api<{ data: { id: number }[] }>(
      request,
      jwt,
      'patients?pageSize=1',
    )
    const patientId = list[0]?.id ?? 0
    const products = await api<{ id: number; archived_at?: string | null }[]>(
      request,
      jwt,
      `products?practice=${session.practice.id}`,
    )
    const stamp = Date.now()
    const visit = await api<{ entries: { kind: string; points: number }[] }>(
      request,
      jwt,
      'visits',
      {
        patient_id: patientId,
        items: [{ product_id: products[0]?.id, quantity: 2 }],
        idempotencyKey: `e2e-dashboard-visit-${stamp}`,
      },
    )
    const earned = visit.entries.filter((e) => e.kind === 'earn').reduce((s, e) => s + e.points, 0)
    expect(earned).toBeGreaterThan(0)
    await api(request, jwt, `patients/${patientId}/redemptions`, {
      points: 7,
      override: { reason: 'Dashboard check' },
      idempotencyKey: `e2e-dashboard-redeem-${stamp}`,
    })
    await api(request, jwt, `patients/${patientId}/adjustments`, {
      points: 13,
      reason: 'Dashboard check',
      idempotencyKey: `e2e-dashboard-adjust-${stamp}`,
    })

    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Points liability' })).toBeVisible()
    expect(await line(page, 'Earned')).toBe(reportBefore.earned + earned)
    expect(await line(page, 'Redeemed')).toBe(reportBefore.redeemed - 7)
    expect(await line(page, 'Adjusted')).toBe(reportBefore.adjusted + 13)
    const closing = await line(page, 'Closing balance')
    expect(closing).toBe(reportBefore.closing + earned - 7 + 13)
    // The lines add up, and the closing balance is every patient's balance summed.
    let sum = await line(page, 'Opening balance')
    for (const name of ['Earned', 'Bonus', 'Adjusted', 'Redeemed', 'Expired', 'Reversed']) {
      sum += await line(page, name)
    }
    expect(sum).toBe(closing)
    const csv = await request.get('/api/reports/patients.csv', {
      headers: { Authorization: `Bearer ${jwt}` },
    })
    const everyone = Papa.parse<{ points: string }>((await csv.text()).trimEnd(), { header: true })
    expect(everyone.data.reduce((s, row) => s + Number(row.points), 0)).toBe(closing)
    await expect(page.getByText(/= closing balance\.$/)).toBeVisible()
    expect(await axeViolations(page), 'axe on the liability report').toEqual([])
    await shot(page, 'issue-20', 'liability-1440.png')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export liability CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(
      /^liability-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/,
    )

    await page.goto('/dashboard')
    await expect(page.locator('[data-figure="points-earned"]')).toHaveText(
      (before.earned + earned).toLocaleString('en-US'),
    )
    expect(await figure(page, 'points-redeemed')).toBe(before.redeemed + 7)
    expect(await figure(page, 'points-outstanding')).toBe(before.outstanding + earned - 7 + 13)
  })

  test('at 390 px the tiles, charts and lists stack and nothing scrolls sideways; Staff see no money', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await openSignedIn(page, request, '/dashboard')
    await expect(page.getByRole('region', { name: 'Points per month' })).toBeVisible()
    const tiles = page.getByRole('region', { name: /^(Patients|Points outstanding)$/ })
    const [first, second] = [await tiles.nth(0).boundingBox(), await tiles.nth(1).boundingBox()]
    expect(second?.y ?? 0).toBeGreaterThan((first?.y ?? 0) + (first?.height ?? 0) - 1)
    await noSidewaysScroll(page)
    expect(await axeViolations(page), 'axe on the dashboard at 390 px').toEqual([])
    await shot(page, 'issue-20', 'dashboard-390.png')
    await page.goto('/dashboard/liability')
    await expect(page.getByRole('row', { name: /^Closing balance/ })).toBeVisible()
    await noSidewaysScroll(page)
    await shot(page, 'issue-20', 'liability-390.png')

    await page.setViewportSize({ width: 1440, height: 1000 })
    await openSignedIn(page, request, '/dashboard', STAFF)
    await expect(page.locator('[data-figure="points-outstanding"]')).toBeVisible()
    await expect(page.locator('[data-figure="liability"]')).toHaveCount(0)
    await expect(page.getByRole('link', { name: 'Liability report' })).toHaveCount(0)
    await expect(page.getByRole('tab', { name: /Points expiring/ })).toBeVisible()
    await shot(page, 'issue-20', 'dashboard-staff-1440.png')
    await page.goto('/dashboard/liability')
    await expect(
      page.getByText('Only a manager or an admin can see money figures, reports and exports.'),
    ).toBeVisible()
  })
})

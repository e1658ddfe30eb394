/** What the memberships report's tests check of every answer. */
import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { bankClosing, type MembershipReport, mrrClosing } from '#domain/membership-reports.ts'
import type { Database } from '#server/db/client.ts'

/** Every key of a JSON value that names money, and every path to a value under one. */
export function moneyKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => moneyKeys(item, `${path}[${i}]`))
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [
      ...(/cents|mrr|bank|dollars|value/i.test(key) ? [`${path}.${key}`] : []),
      ...moneyKeys(inner, `${path}.${key}`),
    ])
  }
  return []
}

/** The movement's and the bank's sums, each to the cent, and each closing the next opening. */
export function expectBalanced(report: MembershipReport) {
  const months = report.mrr_movement ?? []
  months.forEach((month, i) => {
    expect(mrrClosing(month), `${month.month} adds up`).toBe(month.closing_mrr_cents)
    const next = months[i + 1]
    if (next) expect(next.opening_mrr_cents, `${next.month} opens`).toBe(month.closing_mrr_cents)
  })
  expect(report.mrr_cents).toBe(months.at(-1)?.closing_mrr_cents)
  if (report.bank) expect(bankClosing(report.bank)).toBe(report.bank.closing_cents)
}

/**
 * The changes the triggers kept for a practice (`membership_changes`, migration 0047) are the ones
 * worked out again from their sources in one pass (`membership_changes_rebuild`): every change,
 * and each one's state before and after.
 */
export async function expectChangesAsRebuilt(db: Database, practiceId: number) {
  const changes = async () =>
    (
      (await db.execute(sql`
        select membership_id, at::text as at, source, source_id, sets_status, sets_plan_version_id,
          status_before, plan_version_before, status_after, plan_version_after
        from membership_changes where practice_id = ${practiceId}
        order by membership_id, at, source, source_id`)) as unknown as {
        rows: Record<string, unknown>[]
      }
    ).rows
  const kept = await changes()
  await db.execute(sql`select membership_changes_rebuild(${practiceId}::int)`)
  expect(kept, 'the changes kept at write time').toEqual(await changes())
  return kept.length
}

import { and, asc, eq, gte, lt, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { promotionStatus } from '#domain/promotions.ts'
import { DAY_MS } from '#domain/time.ts'
import type { DatabaseHandle } from '#server/db/client.ts'
import {
  appointments,
  ledgerEntries,
  patientPromotions,
  patients,
  practices,
  promotions,
} from '#server/db/schema.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { HISTORY_PATIENTS } from './demo-history.ts'
import { DEMO_PRACTICE_NAME, seedIfEmpty } from './seed.ts'

const NOW = new Date('2026-11-24T15:00:00.000Z')

describe.each(testBackends())('the demo practice’s year of history on $name', (backend) => {
  let handle: DatabaseHandle
  let practiceId: number
  let seedMs = 0
  beforeAll(async () => {
    handle = await backend.open()
    const started = performance.now()
    await seedIfEmpty(handle.db, { publicUrl: 'http://localhost:3000', now: NOW })
    seedMs = performance.now() - started
    const [practice] = await handle.db
      .select({ id: practices.id })
      .from(practices)
      .where(eq(practices.practice_name, DEMO_PRACTICE_NAME))
    practiceId = practice?.id ?? 0
  })
  afterAll(() => handle?.close())

  it('has about 60 patients who joined over the past year', async () => {
    const rows = await handle.db
      .select({ created_at: patients.created_at })
      .from(patients)
      .where(eq(patients.practice_id, practiceId))
    expect(rows).toHaveLength(6 + HISTORY_PATIENTS)
    const oldest = Math.min(...rows.map((r) => r.created_at.getTime()))
    expect(NOW.getTime() - oldest).toBeGreaterThan(360 * DAY_MS)
    // Written inside the start's seed transaction: it must stay quick (printed, not asserted).
    console.info(`demo seed with history on ${backend.name}: ${Math.round(seedMs)} ms`)
  })

  it('keeps every cached balance equal to the sum of its ledger, never below 0', async () => {
    const drift: unknown = await handle.db.execute(sql`
      select p.id from ${patients} p
      left join ${ledgerEntries} e on e.patient_id = p.id
      where p.practice_id = ${practiceId}
      group by p.id, p.points
      having p.points <> coalesce(sum(e.points), 0) or p.points < 0`)
    const rows = (drift as { rows?: unknown[] }).rows ?? drift
    expect(rows).toEqual([])
  })

  it('has visits over the year, redemptions, adjustments with reasons and a lapsed lot', async () => {
    const entries = await handle.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.practice_id, practiceId))
    const of = (kind: string) => entries.filter((e) => e.kind === kind)
    const earned = of('earn').filter((e) => e.source_type === 'appointment')
    expect(earned.length).toBeGreaterThan(60)
    const months = new Set(earned.map((e) => e.created_at.toISOString().slice(0, 7)))
    expect(months.size).toBeGreaterThanOrEqual(10)
    expect(of('redeem').length).toBeGreaterThan(5)
    expect(of('adjust').length).toBeGreaterThanOrEqual(3)
    expect(of('adjust').every((e) => (e.reason ?? '').length > 0)).toBe(true)
    expect(new Set(of('adjust').map((e) => e.created_by)).size).toBe(2)
    expect(of('expire').length).toBeGreaterThanOrEqual(1)
    expect(entries.every((e) => e.created_at.getTime() <= NOW.getTime())).toBe(true)
  })

  it('has appointments today and on each day of the coming week', async () => {
    const today = new Date(NOW)
    today.setUTCHours(0, 0, 0, 0)
    const coming = await handle.db
      .select({ starts_at: appointments.starts_at, status: appointments.status })
      .from(appointments)
      .where(
        and(
          eq(appointments.practice_id, practiceId),
          gte(appointments.starts_at, today),
          lt(appointments.starts_at, new Date(today.getTime() + 7 * DAY_MS)),
        ),
      )
      .orderBy(asc(appointments.starts_at))
    const days = new Set(coming.map((a) => a.starts_at.toISOString().slice(0, 10)))
    expect(days.size).toBe(7)
    expect(coming.filter((a) => a.starts_at.toISOString().startsWith('2026-11-24')).length).toBe(
      4 + 3,
    )
  })

  it('has promotions that ended, are live and are coming, with claims and redemptions', async () => {
    const rows = await handle.db
      .select()
      .from(promotions)
      .where(eq(promotions.practice_id, practiceId))
    expect(new Set(rows.map((p) => promotionStatus(p, NOW)))).toEqual(
      new Set(['draft', 'scheduled', 'ended', 'live']),
    )
    const claims = await handle.db.select().from(patientPromotions)
    expect(claims.filter((c) => c.status === 'redeemed').length).toBeGreaterThan(5)
    expect(claims.filter((c) => c.status === 'claimed').length).toBeGreaterThan(3)
    expect(claims.filter((c) => c.status === 'expired').length).toBeGreaterThan(0)
    // Each claim of the history keeps the terms it was claimed with.
    const expired = claims.filter((c) => c.status === 'expired')
    expect(expired.every((c) => c.title !== null && c.ends_at !== null)).toBe(true)
  })

  it('fills the dashboard worklist: points lapsing within 30 days, claims ending within 7', async () => {
    const day = 24 * 60 * 60 * 1000
    const within = (at: Date | null, days: number) =>
      at !== null && at.getTime() > NOW.getTime() && at.getTime() <= NOW.getTime() + days * day
    const entries = await handle.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.practice_id, practiceId))
    expect(entries.some((e) => e.kind === 'earn' && within(e.expires_at, 30))).toBe(true)
    const claims = await handle.db.select().from(patientPromotions)
    expect(claims.some((c) => c.status === 'claimed' && within(c.ends_at, 7))).toBe(true)
  })

  it('is the same history on every start (a seeded sequence)', async () => {
    const again = await backend.open()
    try {
      await seedIfEmpty(again.db, { publicUrl: 'http://localhost:3000', now: NOW })
      const sums = async (db: DatabaseHandle['db']) =>
        (
          await db
            .select({ points: patients.points, name: patients.last_name })
            .from(patients)
            .orderBy(asc(patients.id))
        ).map((r) => `${r.name}:${r.points}`)
      expect(await sums(again.db)).toEqual(await sums(handle.db))
    } finally {
      await again.close()
    }
  })
})

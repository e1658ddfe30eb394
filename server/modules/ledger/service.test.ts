/**
 * The ledger's invariants, tried to be broken on the real database (in-memory PGlite, and
 * PostgreSQL when TEST_DATABASE_URL is set): random sequences of earn, adjust, redeem, expire,
 * reverse and replays never make a balance negative, never let the cached balance drift from the
 * entries or the lots, and never write twice for one key; concurrent redemptions that together
 * exceed the balance succeed only as far as it goes.
 */
import { eq, sql } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LEDGER_MESSAGES } from '#domain/ledger.ts'
import type { Database, DatabaseHandle } from '#server/db/client.ts'
import { ledgerAllocations, ledgerEntries, patients, practices } from '#server/db/schema.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { createLedger, type Ledger, LedgerError } from './service.ts'

const DAY = 24 * 60 * 60 * 1000

async function newPractice(db: Database, expiryMonths = 12) {
  const [practice] = await db
    .insert(practices)
    .values({ practice_name: 'Ledger Test Practice', expiry_months: expiryMonths })
    .returning({ id: practices.id })
  if (!practice) throw new Error('no practice')
  return practice.id
}

async function newPatient(db: Database, practiceId: number) {
  const [patient] = await db
    .insert(patients)
    .values({
      practice_id: practiceId,
      first_name: 'Pat',
      last_name: 'Ledger',
      unsubscribe_id: `ledger-${Math.random().toString(36).slice(2)}-${Date.now()}`,
    })
    .returning({ id: patients.id })
  if (!patient) throw new Error('no patient')
  return patient.id
}

/** Balance cache, sum of entries and sum of open lots, which must always agree. */
async function books(db: Database, ledger: Ledger, patientId: number) {
  const [cache] = await db
    .select({ points: patients.points })
    .from(patients)
    .where(eq(patients.id, patientId))
  const [sum] = await db
    .select({ total: sql<number>`coalesce(sum(${ledgerEntries.points}), 0)::int` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.patient_id, patientId))
  const lots = await ledger.lots(patientId)
  return {
    cache: cache?.points ?? Number.NaN,
    entries: Number(sum?.total ?? Number.NaN),
    lots: lots.reduce((total, lot) => total + lot.remaining, 0),
  }
}

type Op =
  | { op: 'earn'; points: number }
  | { op: 'adjust'; points: number }
  | { op: 'redeem'; points: number }
  | { op: 'reverse'; pick: number }
  | { op: 'replay'; pick: number }
  | { op: 'advance'; days: number }
  | { op: 'expireJob' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('earn' as const), points: fc.integer({ min: 1, max: 500 }) }),
  fc.record({
    op: fc.constant('adjust' as const),
    points: fc.integer({ min: -400, max: 400 }).filter((n) => n !== 0),
  }),
  fc.record({ op: fc.constant('redeem' as const), points: fc.integer({ min: 1, max: 600 }) }),
  fc.record({ op: fc.constant('reverse' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('replay' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ op: fc.constant('expireJob' as const) }),
)

describe.each(testBackends())('the points ledger on $name', (backend) => {
  let handle: DatabaseHandle
  let db: Database
  let clock = new Date('2026-01-15T12:00:00Z')
  const now = () => clock
  let ledger: Ledger

  beforeAll(async () => {
    handle = await backend.open()
    db = handle.db
    ledger = createLedger({ db, now })
  })
  afterAll(() => handle.close())

  it('keeps every balance non-negative, the cache equal to the entries and the lots, and each key written once, over random sequences', async () => {
    const practiceId = await newPractice(db, 6)
    let sequences = 0
    let refusals = 0
    let replays = 0
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
        sequences++
        clock = new Date('2026-01-15T12:00:00Z')
        const patientId = await newPatient(db, practiceId)
        const written: { key: string; op: Op; entryId: number }[] = []
        let n = 0
        for (const op of ops) {
          const key = `seq-${sequences}-${n++}`
          const before = (await books(db, ledger, patientId)).cache
          try {
            let result: Awaited<ReturnType<Ledger['credit']>> | undefined
            if (op.op === 'earn') {
              result = await ledger.credit({
                practiceId,
                patientId,
                userId: null,
                kind: 'earn',
                points: op.points,
                sourceType: 'visit',
                idempotencyKey: key,
              })
            } else if (op.op === 'adjust') {
              result = await ledger.adjust({
                practiceId,
                patientId,
                userId: null,
                points: op.points,
                reason: 'property test',
                idempotencyKey: key,
              })
            } else if (op.op === 'redeem') {
              result = await ledger.redeem({
                practiceId,
                patientId,
                userId: null,
                points: op.points,
                sourceType: 'manual',
                idempotencyKey: key,
              })
            } else if (op.op === 'reverse' && written.length > 0) {
              const target = written[op.pick % written.length]
              if (target) {
                result = await ledger.reverse({
                  practiceId,
                  userId: null,
                  entryId: target.entryId,
                  reason: 'property test',
                  idempotencyKey: key,
                })
              }
            } else if (op.op === 'replay' && written.length > 0) {
              const target = written[op.pick % written.length]
              if (target?.op.op === 'earn') {
                const again = await ledger.credit({
                  practiceId,
                  patientId,
                  userId: null,
                  kind: 'earn',
                  points: target.op.points,
                  sourceType: 'visit',
                  idempotencyKey: target.key,
                })
                expect(again.replayed).toBe(true)
                expect(again.entry.id).toBe(target.entryId)
                replays++
              }
            } else if (op.op === 'advance') {
              clock = new Date(clock.getTime() + op.days * DAY)
            } else if (op.op === 'expireJob') {
              await ledger.expireDue(practiceId)
              // The job run twice on one day posts nothing new.
              expect(await ledger.expireDue(practiceId)).toEqual([])
            }
            if (result && !result.replayed) {
              // The new balance is the old one, less what lapsed on the way, plus the entry.
              const lapsed = result.expired.reduce((sum, e) => sum + e.points, 0)
              expect(result.balance).toBe(before + lapsed + result.entry.points)
              expect(result.balance).toBeGreaterThanOrEqual(0)
              written.push({ key, op, entryId: result.entry.id })
            }
          } catch (error) {
            // A refusal is always the ledger's own, in its words; never a database error.
            expect(error).toBeInstanceOf(LedgerError)
            const spend = op.op === 'redeem' ? op.points : op.op === 'adjust' ? -op.points : 0
            const short = /^Not enough points: the balance is (\d+)\.$/.exec(
              (error as Error).message,
            )
            // "Not enough points" only for a spend larger than what was there.
            if (short) expect(spend).toBeGreaterThan(Number(short[1]))
            if (short) expect(Number(short[1])).toBeLessThanOrEqual(before)
            refusals++
          }
          const b = await books(db, ledger, patientId)
          expect(b.cache).toBeGreaterThanOrEqual(0)
          expect(b.entries).toBe(b.cache)
          expect(b.lots).toBe(b.cache)
        }
        const keys = await db
          .select({ key: ledgerEntries.idempotency_key, count: sql<number>`count(*)::int` })
          .from(ledgerEntries)
          .where(eq(ledgerEntries.patient_id, patientId))
          .groupBy(ledgerEntries.idempotency_key)
          .having(sql`count(*) > 1 and ${ledgerEntries.idempotency_key} is not null`)
        expect(keys).toEqual([])
      }),
      { numRuns: 40, seed: 20261123 },
    )
    const [entries] = await db
      .select({ count: sql<number>`count(*)::int` })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.practice_id, practiceId))
    console.info(
      `[ledger ${backend.name}] ${sequences} sequences, ${entries?.count} entries, ${refusals} refusals, ${replays} replays`,
    )
    expect(sequences).toBe(40)
  })

  it('lets 20 concurrent redemptions that exceed the balance succeed only as far as it goes', async () => {
    clock = new Date('2026-03-01T12:00:00Z')
    const practiceId = await newPractice(db)
    const patientId = await newPatient(db, practiceId)
    await ledger.credit({
      practiceId,
      patientId,
      userId: null,
      kind: 'earn',
      points: 200,
      sourceType: 'visit',
    })
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        ledger.redeem({
          practiceId,
          patientId,
          userId: null,
          points: 30,
          sourceType: 'manual',
          idempotencyKey: `concurrent-${i}`,
        }),
      ),
    )
    const won = attempts.filter((a) => a.status === 'fulfilled')
    const lost = attempts.filter((a) => a.status === 'rejected')
    expect(won).toHaveLength(6)
    for (const refusal of lost) {
      expect(refusal.reason).toBeInstanceOf(LedgerError)
      expect((refusal.reason as LedgerError).message).toBe(LEDGER_MESSAGES.notEnoughPoints(20))
    }
    const b = await books(db, ledger, patientId)
    expect(b).toEqual({ cache: 20, entries: 20, lots: 20 })
  })

  it('writes one entry for 20 concurrent requests with the same key', async () => {
    const practiceId = await newPractice(db)
    const patientId = await newPatient(db, practiceId)
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        ledger.credit({
          practiceId,
          patientId,
          userId: null,
          kind: 'earn',
          points: 75,
          sourceType: 'visit',
          idempotencyKey: 'double-click',
        }),
      ),
    )
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1)
    expect(results.filter((r) => !r.replayed)).toHaveLength(1)
    expect((await books(db, ledger, patientId)).cache).toBe(75)
  })

  it("posts new patients' opening balances in one go: a lot each with the programme's expiry, the cache equal to the entries", async () => {
    clock = new Date('2026-01-15T12:00:00Z')
    const practiceId = await newPractice(db, 12)
    const [a, b] = [await newPatient(db, practiceId), await newPatient(db, practiceId)]
    const posted = await db.transaction((tx) =>
      ledger.openingBalances(tx, {
        practiceId,
        userId: null,
        reason: 'Opening balance from import',
        entries: [
          { patientId: a, points: 600, idempotencyKey: `opening-a-${a}` },
          { patientId: b, points: 1200, idempotencyKey: `opening-b-${b}` },
        ],
      }),
    )
    expect(posted.map((e) => [e.kind, e.source_type, e.points, e.balance_after])).toEqual([
      ['bonus', 'import', 600, 600],
      ['bonus', 'import', 1200, 1200],
    ])
    expect(posted[0]?.expires_at?.toISOString().slice(0, 10)).toBe('2027-01-15')
    expect(await books(db, ledger, a)).toEqual({ cache: 600, entries: 600, lots: 600 })
    expect(await books(db, ledger, b)).toEqual({ cache: 1200, entries: 1200, lots: 1200 })
    // A balance of 0 or less is no posting: refused, and nothing of the batch is written.
    const c = await newPatient(db, practiceId)
    await expect(
      db.transaction((tx) =>
        ledger.openingBalances(tx, {
          practiceId,
          userId: null,
          reason: 'Opening balance from import',
          entries: [
            { patientId: c, points: 5, idempotencyKey: `opening-c-${c}` },
            { patientId: c, points: -5, idempotencyKey: `opening-c2-${c}` },
          ],
        }),
      ),
    ).rejects.toBeInstanceOf(LedgerError)
    expect(await books(db, ledger, c)).toEqual({ cache: 0, entries: 0, lots: 0 })
  })

  it('refuses a key reused for a different change', async () => {
    const practiceId = await newPractice(db)
    const patientId = await newPatient(db, practiceId)
    const base = { practiceId, patientId, userId: null, idempotencyKey: 'once' }
    await ledger.credit({ ...base, kind: 'earn', points: 10, sourceType: 'visit' })
    await expect(
      ledger.credit({ ...base, kind: 'earn', points: 11, sourceType: 'visit' }),
    ).rejects.toThrow(LEDGER_MESSAGES.keyReused)
  })

  it('spends the oldest points first, so expiry only takes what was not spent', async () => {
    clock = new Date('2026-01-01T09:00:00Z')
    const practiceId = await newPractice(db, 1)
    const patientId = await newPatient(db, practiceId)
    const actor = { practiceId, patientId, userId: null }
    const first = await ledger.credit({ ...actor, kind: 'earn', points: 100, sourceType: 'visit' })
    clock = new Date('2026-01-20T09:00:00Z')
    await ledger.credit({ ...actor, kind: 'earn', points: 100, sourceType: 'visit' })
    await ledger.redeem({ ...actor, points: 150, sourceType: 'manual' })
    const [spent] = await db
      .select({ points: sql<number>`sum(${ledgerAllocations.points})::int` })
      .from(ledgerAllocations)
      .where(eq(ledgerAllocations.lot_entry_id, first.entry.id))
    expect(Number(spent?.points)).toBe(100)
    // The first lot lapses on 1 February with nothing left; the second on 20 February with 50.
    clock = new Date('2026-02-10T09:00:00Z')
    expect(await ledger.expireDue(practiceId)).toEqual([])
    clock = new Date('2026-02-21T09:00:00Z')
    const expired = await ledger.expireDue(practiceId)
    expect(expired.map((e) => e.points)).toEqual([-50])
    expect(await ledger.expireDue(practiceId)).toEqual([])
    expect((await books(db, ledger, patientId)).cache).toBe(0)
  })

  it('reverses an entry once, and refuses to reverse points already redeemed', async () => {
    clock = new Date('2026-04-01T09:00:00Z')
    const practiceId = await newPractice(db)
    const patientId = await newPatient(db, practiceId)
    const actor = { practiceId, patientId, userId: null }
    const award = await ledger.credit({ ...actor, kind: 'earn', points: 300, sourceType: 'visit' })
    const redemption = await ledger.redeem({ ...actor, points: 250, sourceType: 'manual' })
    await expect(
      ledger.reverse({ practiceId, userId: null, entryId: award.entry.id, reason: 'mistake' }),
    ).rejects.toThrow(LEDGER_MESSAGES.alreadySpent)
    const undo = await ledger.reverse({
      practiceId,
      userId: null,
      entryId: redemption.entry.id,
      reason: 'patient changed their mind',
    })
    expect(undo.balance).toBe(300)
    await expect(
      ledger.reverse({ practiceId, userId: null, entryId: redemption.entry.id, reason: 'again' }),
    ).rejects.toThrow(LEDGER_MESSAGES.alreadyReversed)
    const gone = await ledger.reverse({
      practiceId,
      userId: null,
      entryId: award.entry.id,
      reason: 'wrong patient',
    })
    expect(gone.balance).toBe(0)
    expect(await books(db, ledger, patientId)).toEqual({ cache: 0, entries: 0, lots: 0 })
  })

  it('answers another practice’s patient and entry as not found', async () => {
    const mine = await newPractice(db)
    const theirs = await newPractice(db)
    const patientId = await newPatient(db, theirs)
    const award = await ledger.credit({
      practiceId: theirs,
      patientId,
      userId: null,
      kind: 'earn',
      points: 10,
      sourceType: 'visit',
    })
    await expect(
      ledger.redeem({ practiceId: mine, patientId, userId: null, points: 1, sourceType: 'manual' }),
    ).rejects.toThrow(LEDGER_MESSAGES.patientNotFound)
    await expect(
      ledger.reverse({ practiceId: mine, userId: null, entryId: award.entry.id, reason: 'x' }),
    ).rejects.toThrow(LEDGER_MESSAGES.entryNotFound)
  })

  it('refuses to update or delete an entry or an allocation (append-only)', async () => {
    const practiceId = await newPractice(db)
    const patientId = await newPatient(db, practiceId)
    const award = await ledger.credit({
      practiceId,
      patientId,
      userId: null,
      kind: 'earn',
      points: 40,
      sourceType: 'visit',
    })
    await ledger.redeem({ practiceId, patientId, userId: null, points: 10, sourceType: 'manual' })
    await expect(
      db.update(ledgerEntries).set({ points: 4000 }).where(eq(ledgerEntries.id, award.entry.id)),
    ).rejects.toThrow()
    await expect(
      db.delete(ledgerEntries).where(eq(ledgerEntries.id, award.entry.id)),
    ).rejects.toThrow()
    await expect(
      db.delete(ledgerAllocations).where(eq(ledgerAllocations.patient_id, patientId)),
    ).rejects.toThrow()
    await expect(
      db.update(patients).set({ points: -1 }).where(eq(patients.id, patientId)),
    ).rejects.toThrow()
  })
})

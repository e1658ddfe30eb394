/**
 * The patients' daily counts (patient_daily, migration 0033) against counting the patients
 * themselves: whatever happens to a practice's patients (added one by one or in bulk, with or
 * without a "joined on" day, archived, restored, merged, moved to another day, deleted), every
 * figure the dashboard and the list read from the counts equals the count of the rows.
 */
import { eq, inArray, sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { patients, practices } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const DAYS = ['2027-01-30', '2027-01-31', '2027-02-01', '2027-02-15', '2027-03-01', '2027-03-15']
const day = fc.constantFrom(...DAYS)
/** An instant on one of the days, or late in the evening UTC. */
const instant = fc
  .tuple(day, fc.constantFrom('T00:00:00.000Z', 'T12:00:00.000Z', 'T23:59:59.999Z'))
  .map(([d, time]) => new Date(`${d}${time}`))

type NewPatient = {
  joined_on: string | null
  created_at: Date
  imported: boolean
  archived_at: Date | null
}

const newPatient: fc.Arbitrary<NewPatient> = fc.record({
  joined_on: fc.option(day, { nil: null }),
  created_at: instant,
  imported: fc.boolean(),
  archived_at: fc.option(instant, { nil: null, freq: 4 }),
})

type Step =
  | { kind: 'add'; rows: NewPatient[] }
  | { kind: 'archive'; pick: number; at: Date }
  | { kind: 'restore'; pick: number }
  | { kind: 'merge'; pick: number; into: number; at: Date }
  | { kind: 'rejoin'; pick: number; on: string | null }
  | { kind: 'delete'; pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    rows: fc.array(newPatient, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('archive' as const), pick: fc.nat(), at: instant }),
  fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('merge' as const), pick: fc.nat(), into: fc.nat(), at: instant }),
  fc.record({
    kind: fc.constant('rejoin' as const),
    pick: fc.nat(),
    on: fc.option(day, { nil: null }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
)

type Figures = Record<string, number>

describe.each(testBackends())('the daily patient counts on $name', (backend) => {
  const t = useTestApp(backend)

  async function newPractice(): Promise<number> {
    const [row] = await t.db
      .insert(practices)
      .values({ practice_name: 'Counted Practice' })
      .returning({ id: practices.id })
    if (!row) throw new Error('no practice')
    return row.id
  }

  async function one(query: ReturnType<typeof sql>): Promise<Figures> {
    const result = (await t.db.execute(query)) as unknown as { rows: Figures[] }
    const row = result.rows[0] ?? {}
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))
  }

  /** The figures counted from the patients, as the dashboard and the list counted them before. */
  function counted(practiceId: number, from: string, to: string) {
    const joined = sql.raw(`coalesce(joined_on, (created_at at time zone 'UTC')::date)`)
    const undated = sql.raw('(imported and joined_on is null)')
    const end = new Date(`${to}T00:00:00.000Z`)
    end.setUTCDate(end.getUTCDate() + 1)
    const start = new Date(`${from}T00:00:00.000Z`)
    return one(sql`select
      (count(*) filter (where ${joined} <= ${to}::date and (archived_at is null or archived_at >= ${end})))::int as patients,
      (count(*) filter (where ${joined} < ${from}::date and (archived_at is null or archived_at >= ${start})))::int as patients_before,
      (count(*) filter (where ${joined} >= ${from}::date and ${joined} <= ${to}::date and not ${undated}))::int as joined,
      (count(*) filter (where ${undated} and created_at >= ${start} and created_at < ${end}))::int as imported,
      (count(*) filter (where archived_at is null and merged_into_id is null))::int as listed,
      (count(*) filter (where archived_at is not null and merged_into_id is null))::int as archived
      from patients where practice_id = ${practiceId}`)
  }

  /** The same figures from the daily counts. */
  function fromCounts(practiceId: number, from: string, to: string) {
    return one(sql`select
      coalesce(sum(joined - left_count) filter (where day <= ${to}::date), 0)::int as patients,
      coalesce(sum(joined - left_count) filter (where day < ${from}::date), 0)::int as patients_before,
      coalesce(sum(joined_dated) filter (where day >= ${from}::date and day <= ${to}::date), 0)::int as joined,
      coalesce(sum(joined - joined_dated) filter (where day >= ${from}::date and day <= ${to}::date), 0)::int as imported,
      coalesce(sum(joined - left_count), 0)::int as listed,
      coalesce(sum(left_count - merged), 0)::int as archived
      from patient_daily where practice_id = ${practiceId}`)
  }

  async function apply(practiceId: number, ids: number[], s: Step): Promise<void> {
    const target = (n: number) => ids[n % ids.length] as number
    if (s.kind === 'add') {
      const rows = await t.db
        .insert(patients)
        .values(
          s.rows.map((row, i) => ({
            ...row,
            practice_id: practiceId,
            first_name: 'Pat',
            last_name: `Count${ids.length + i}`,
            unsubscribe_id: randomToken(),
          })),
        )
        .returning({ id: patients.id })
      ids.push(...rows.map((row) => row.id))
      return
    }
    if (ids.length === 0) return
    const id = target(s.pick)
    if (s.kind === 'archive') {
      await t.db.update(patients).set({ archived_at: s.at }).where(eq(patients.id, id))
    } else if (s.kind === 'restore') {
      await t.db
        .update(patients)
        .set({ archived_at: null, merged_into_id: null })
        .where(eq(patients.id, id))
    } else if (s.kind === 'merge') {
      const into = target(s.into)
      if (into === id) return
      await t.db
        .update(patients)
        .set({ merged_into_id: into, archived_at: s.at })
        .where(eq(patients.id, id))
    } else if (s.kind === 'rejoin') {
      await t.db.update(patients).set({ joined_on: s.on }).where(eq(patients.id, id))
    } else {
      await t.db
        .update(patients)
        .set({ merged_into_id: null })
        .where(eq(patients.merged_into_id, id))
      await t.db.delete(patients).where(eq(patients.id, id))
      ids.splice(ids.indexOf(id), 1)
    }
  }

  it('equal the patients counted, for any sequence of changes and any period', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.uniqueArray(day, { minLength: 2, maxLength: 2 }).map((pair) => pair.sort()),
        async (steps, [from, to]) => {
          const practiceId = await newPractice()
          const ids: number[] = []
          for (const s of steps) await apply(practiceId, ids, s)
          for (const [a, b] of [
            [from, to],
            [DAYS[0], DAYS.at(-1)],
          ] as [string, string][]) {
            expect(await fromCounts(practiceId, a, b)).toEqual(await counted(practiceId, a, b))
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('lets a practice with archived and merged patients be deleted, and its counts with it', async () => {
    const practiceId = await newPractice()
    const ids: number[] = []
    await apply(practiceId, ids, {
      kind: 'add',
      rows: [
        { joined_on: null, created_at: new Date(), imported: false, archived_at: null },
        { joined_on: '2027-01-31', created_at: new Date(), imported: true, archived_at: null },
      ],
    })
    await apply(practiceId, ids, { kind: 'merge', pick: 1, into: 0, at: new Date() })
    await apply(practiceId, ids, { kind: 'archive', pick: 0, at: new Date() })
    await t.db.delete(practices).where(eq(practices.id, practiceId))
    expect(await t.db.select().from(patients).where(inArray(patients.id, ids))).toEqual([])
    expect(await fromCounts(practiceId, DAYS[0] as string, DAYS.at(-1) as string)).toEqual({
      patients: 0,
      patients_before: 0,
      joined: 0,
      imported: 0,
      listed: 0,
      archived: 0,
    })
  })
})

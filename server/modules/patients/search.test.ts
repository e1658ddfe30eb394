import { and, eq, isNull, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { patients } from '#server/db/schema.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { SEARCH_SORT_ORDER, searchCondition } from './queries.ts'

/**
 * Search by the starts of words keeps the budget of one trigram index: at 10,000
 * patients, the planner reads the matches through `patients_search_trgm_idx` for every kind of
 * search, never the whole practice.
 */
describe.each(testBackends())('patient search at 10,000 patients on $name', (backend) => {
  const t = useTestApp(backend)
  beforeAll(async () => {
    await t.db.execute(sql`
      insert into patients (practice_id, first_name, last_name, email, phone, unsubscribe_id)
      select ${t.demo.practiceId}::int,
        (array['Julia','Liam','Emma','Noah','Ava','Mia','Lucas','Nora'])[1 + n % 8],
        (array['Anderson','Smith','Garcia','Lopez','Nguyen','King','Hill','Baker','Young','Scott'])[1 + (n * 7) % 10],
        'patient' || n || '@search.example',
        '+1' || (200 + n % 800)::text || '555' || lpad(n::text, 4, '0'),
        'search-' || n
      from generate_series(1, 10000) as n`)
    await t.db.execute(sql`analyze patients`)
  }, 120_000)

  const plan = async (term: string) => {
    const query = t.db
      .select({ id: patients.id, total: sql<number>`count(*) over ()` })
      .from(patients)
      .where(
        and(
          eq(patients.practice_id, t.demo.practiceId),
          isNull(patients.archived_at),
          searchCondition(term),
        ),
      )
      .orderBy(...SEARCH_SORT_ORDER.name)
      .limit(25)
    const result = (await t.db.execute(sql`explain ${query}`)) as unknown as {
      rows: { 'QUERY PLAN': string }[]
    }
    return result.rows.map((row) => row['QUERY PLAN']).join('\n')
  }

  it.each([
    'juli and',
    'and juli',
    'Anderson',
    'patient123',
    '408-555',
    '+1 (408) 555',
    'Julia 408',
  ])('"%s" reads the trigram index', async (term) => {
    expect(await plan(term)).toContain('patients_search_trgm_idx')
  })
})

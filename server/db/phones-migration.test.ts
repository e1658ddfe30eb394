/**
 * Migration 0025: existing patients' phones become E.164, on a copy of data written
 * the ways clinics write numbers, with patients whose phones (and e-mails) agree once normalised.
 * Each engine gets a fresh database migrated up to 0024, the rows, then the rest of the
 * migrations, as a server that starts on a new version does.
 */
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, databaseUrl, dropDatabase } from '#server/testing/db-templates.ts'
import { type DatabaseHandle, MIGRATIONS_FOLDER, openDatabase } from './client.ts'
import { patients } from './schema.ts'

type Journal = { entries: { idx: number; tag: string }[] }

/** A copy of the migrations whose journal ends with migration `last` (e.g. 24 for 0024). */
function migrationsUpTo(last: number): string {
  const folder = mkdtempSync(join(tmpdir(), 'glow-migrations-'))
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true })
  const journalPath = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as Journal
  journal.entries = journal.entries.filter((entry) => entry.idx <= last)
  writeFileSync(journalPath, JSON.stringify(journal))
  return folder
}

type Engine = {
  name: string
  /** A fresh database migrated with the migrations of `folder` only. */
  open(folder: string): Promise<DatabaseHandle>
  /** Applies the product's pending migrations to it. */
  migrateRest(handle: DatabaseHandle): Promise<void>
}

const engines: Engine[] = [
  {
    name: 'pglite',
    open: (folder) => openDatabase({ dataDir: 'memory', migrationsFolder: folder }),
    migrateRest: (handle) =>
      migratePglite(handle.db as unknown as PgliteDatabase, {
        migrationsFolder: MIGRATIONS_FOLDER,
      }),
  },
]
const baseUrl = process.env.TEST_DATABASE_URL?.trim()
if (baseUrl) {
  engines.push({
    name: 'postgres',
    async open(folder) {
      const name = `glow_test_${randomBytes(6).toString('hex')}`
      await createDatabase(baseUrl, name)
      const handle = await openDatabase({
        databaseUrl: databaseUrl(baseUrl, name),
        migrationsFolder: folder,
      })
      return {
        ...handle,
        async close() {
          await handle.close()
          await dropDatabase(baseUrl, name)
        },
      }
    },
    migrateRest: (handle) =>
      migrateNodePg(handle.db as unknown as NodePgDatabase, {
        migrationsFolder: MIGRATIONS_FOLDER,
      }),
  })
}

/** The patients of the copy: a name and the phone as the old app stored (or a clinic wrote) it. */
const CLINIC_A = [
  ['Marilyn', 'Anderson', 'marilyn@example.com', '4085554743'],
  ['Marilyn', 'Andersen', 'MARILYN@example.com', '+1 408 555 4743'],
  ['Julia', 'Brooks', null, '(408) 555-0101'],
  ['Omar', 'Castillo', null, '1-408-555-0102'],
  ['Nadia', 'Dunn', null, '408.555.0103'],
  ['Priya', 'Evans', null, '+44 20 7946 0958'],
  ['Sam', 'Fox', null, '555-0104'],
  ['Tess', 'Grant', null, 'ask at the desk'],
  ['Uma', 'Hill', null, null],
] as const
const CLINIC_B = [['Marilyn', 'Anderson', 'marilyn@example.com', '408 555 4743']] as const

describe.each(engines)('migration 0025 on $name', (engine) => {
  let handle: DatabaseHandle
  let upTo24: string
  const ids = new Map<string, number>()

  beforeAll(async () => {
    upTo24 = migrationsUpTo(24)
    handle = await engine.open(upTo24)
    // In SQL too: the schema module's practices have columns of later migrations (0037).
    const clinics = (await handle.db.execute(
      sql`insert into practices (practice_name) values ('Clinic A'), ('Clinic B') returning id`,
    )) as unknown as { rows: { id: number }[] }
    const [a, b] = clinics.rows
    for (const [practice, rows] of [
      [a, CLINIC_A],
      [b, CLINIC_B],
    ] as const) {
      // Written in SQL, at the table's shape of 0024: the schema module has columns later
      // migrations add (merged_into_id, 0026), which a database at 0024 does not have yet.
      const inserted: { id: number; last_name: string }[] = []
      for (const [first_name, last_name, email, phone] of rows) {
        // Both engines answer `execute` with the rows under `rows`.
        const result = (await handle.db.execute(
          sql`insert into patients (practice_id, first_name, last_name, email, phone, unsubscribe_id)
              values (${practice?.id ?? 0}, ${first_name}, ${last_name}, ${email}, ${phone},
                      ${randomBytes(12).toString('hex')})
              returning id, last_name`,
        )) as unknown as { rows: { id: number; last_name: string }[] }
        inserted.push(...result.rows)
      }
      for (const row of inserted) ids.set(`${practice === a ? 'A' : 'B'} ${row.last_name}`, row.id)
    }
    await engine.migrateRest(handle)
  })
  afterAll(async () => {
    await handle?.close()
    if (upTo24) rmSync(upTo24, { recursive: true, force: true })
  })

  const phoneOf = async (key: string) => {
    const [row] = await handle.db
      .select({ phone: patients.phone })
      .from(patients)
      .where(eq(patients.id, ids.get(key) ?? 0))
    return row?.phone
  }

  it('stores every readable phone in E.164 and leaves the rest as they were', async () => {
    expect(await phoneOf('A Anderson')).toBe('+14085554743')
    expect(await phoneOf('A Andersen')).toBe('+14085554743')
    expect(await phoneOf('A Brooks')).toBe('+14085550101')
    expect(await phoneOf('A Castillo')).toBe('+14085550102')
    expect(await phoneOf('A Dunn')).toBe('+14085550103')
    expect(await phoneOf('A Evans')).toBe('+442079460958')
    expect(await phoneOf('B Anderson')).toBe('+14085554743')
    // Seven digits have no area code, and words are not a number: shown as stored.
    expect(await phoneOf('A Fox')).toBe('555-0104')
    expect(await phoneOf('A Grant')).toBe('ask at the desk')
    expect(await phoneOf('A Hill')).toBeNull()
  })

  it('keeps both patients of a practice whose phone and e-mail now agree', async () => {
    const rows = await handle.db
      .select({ id: patients.id, practice_id: patients.practice_id })
      .from(patients)
      .where(eq(patients.phone, '+14085554743'))
      .orderBy(asc(patients.id))
    expect(rows.map((r) => r.id)).toEqual([
      ids.get('A Anderson'),
      ids.get('A Andersen'),
      ids.get('B Anderson'),
    ])
    expect(rows[0]?.practice_id).toBe(rows[1]?.practice_id)
    const [emails] = await handle.db
      .select({ n: sql<number>`count(*)::int` })
      .from(patients)
      .where(sql`lower(${patients.email}) = 'marilyn@example.com'`)
    expect(emails?.n).toBe(3)
  })

  it('keeps the search text in step with the stored phone', async () => {
    const [row] = await handle.db
      .select({ search: patients.search_text })
      .from(patients)
      .where(eq(patients.id, ids.get('A Brooks') ?? 0))
    // The words a search reads (migration 0027's shape): the E.164 digits, and the ten digits
    // without the country code, never the number as it was written before.
    expect(row?.search).toContain(' 14085550101 ')
    expect(row?.search).toContain(' 4085550101')
    expect(row?.search).not.toContain('(408)')
  })
})

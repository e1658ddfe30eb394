/**
 * Template databases for the test run: migrating a new database costs seconds (PGlite also runs
 * initdb first), and about fifty test files each open one or two. Vitest's global setup
 * (`tests/setup/vitest.global.ts`) migrates one database per backend, once migrated and once also
 * seeded, and every test file then copies the one it needs: PGlite loads a dump of the data
 * folder (`dumpDataDir`/`loadDataDir`), PostgreSQL runs `CREATE DATABASE … TEMPLATE`.
 *
 * The global setup hands the templates to the test workers in one environment variable; without
 * it (a test file run by other means, a bench script) the backends migrate as before.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { openDatabase } from '#server/db/client.ts'
import { seedIfEmpty } from '#server/demo/seed.ts'

/** Where each kind of template lives: dump files for PGlite, database names for PostgreSQL. */
export type DbTemplates = {
  pglite: { migrated: string; seeded: string }
  postgres?: { baseUrl: string; migrated: string; seeded: string }
}

/** The environment variable that carries {@link DbTemplates} to the test workers. */
export const DB_TEMPLATES_ENV = 'GLOW_TEST_DB_TEMPLATES'

/** What every test database is seeded with (the demo practice, without its year of history). */
export const TEST_SEED = { publicUrl: 'http://localhost:3000', history: false } as const

/** `baseUrl` with another database name. */
export function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return url.toString()
}

async function adminQuery(baseUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    await admin.query(statement)
  } finally {
    await admin.end()
  }
}

/** Creates database `name` on `baseUrl`'s server, as a copy of `template` when given. */
export async function createDatabase(baseUrl: string, name: string, template?: string) {
  const statement = template
    ? `create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(template)}`
    : `create database ${pg.escapeIdentifier(name)}`
  // Two workers copying one template at the same moment can meet "source database is being
  // accessed by other users" while the other copy holds it: try again shortly.
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(baseUrl, statement)
      return
    } catch (error) {
      const busy = error instanceof Error && /being accessed by other users/.test(error.message)
      if (!busy || attempt >= 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
    }
  }
}

/** Drops database `name` on `baseUrl`'s server, ending its connections. */
export function dropDatabase(baseUrl: string, name: string): Promise<void> {
  return adminQuery(baseUrl, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`)
}

/**
 * Migrates (and seeds) the templates: PGlite dumps under `dir`, and databases on `postgresUrl`'s
 * server when given. `dispose` removes all of them.
 */
export async function createDbTemplates(
  dir: string,
  postgresUrl?: string,
): Promise<{ templates: DbTemplates; dispose(): Promise<void> }> {
  mkdirSync(dir, { recursive: true })
  const handle = await openDatabase({ dataDir: 'memory' })
  const client = (handle.db as unknown as { $client: PGlite }).$client
  const migrated = join(dir, 'migrated.tar')
  const seeded = join(dir, 'seeded.tar')
  try {
    writeFileSync(migrated, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()))
    await seedIfEmpty(handle.db, TEST_SEED)
    writeFileSync(seeded, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()))
  } finally {
    await handle.close()
  }
  const templates: DbTemplates = { pglite: { migrated, seeded } }

  const created: string[] = []
  if (postgresUrl) {
    const run = randomBytes(4).toString('hex')
    const names = { migrated: `glow_tpl_${run}_migrated`, seeded: `glow_tpl_${run}_seeded` }
    for (const [kind, name] of Object.entries(names)) {
      await createDatabase(postgresUrl, name)
      created.push(name)
      const db = await openDatabase({ databaseUrl: databaseUrl(postgresUrl, name) })
      try {
        if (kind === 'seeded') await seedIfEmpty(db.db, TEST_SEED)
      } finally {
        await db.close()
      }
    }
    templates.postgres = { baseUrl: postgresUrl, ...names }
  }
  return {
    templates,
    async dispose() {
      rmSync(dir, { recursive: true, force: true })
      if (postgresUrl) for (const name of created) await dropDatabase(postgresUrl, name)
    },
  }
}

let cached: DbTemplates | null | undefined
const dumps = new Map<string, Blob>()

/** The templates the global setup made for this run, if any. */
export function readDbTemplates(): DbTemplates | undefined {
  if (cached === undefined) {
    const raw = process.env[DB_TEMPLATES_ENV]
    cached = raw ? (JSON.parse(raw) as DbTemplates) : null
  }
  return cached ?? undefined
}

/** A PGlite dump file, read once per process. */
export function pgliteDump(path: string): Blob {
  let dump = dumps.get(path)
  if (!dump) {
    dump = new Blob([readFileSync(path)])
    dumps.set(path, dump)
  }
  return dump
}

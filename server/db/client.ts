import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres'
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import * as schema from './schema.ts'

/** The drizzle database every server module uses, whichever driver is behind it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>

/** A transaction of {@link Database}; it has the same query API. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0]

/** An open database: the drizzle handle and how to release it. */
export type DatabaseHandle = {
  db: Database
  /** `pglite` (embedded, on disk or in memory) or `postgres` (a server through DATABASE_URL). */
  driver: 'pglite' | 'postgres'
  close(): Promise<void>
}

export type OpenDatabaseOptions = {
  /** A PostgreSQL connection string; when set, the server's Postgres is used instead of PGlite. */
  databaseUrl?: string | undefined
  /** PGlite's home: a folder (the database lives in `<dataDir>/pglite`) or `'memory'`. */
  dataDir?: string | undefined
  /** Apply pending migrations before answering (default true). */
  migrate?: boolean
}

/** Where drizzle-kit writes the migrations (`npm run db:generate`). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url))

// Any constant works; it only has to be the same for every instance sharing the database.
const MIGRATION_LOCK_KEY = 7_340_220

/**
 * Runs `work` while holding a session advisory lock on a dedicated connection, so that several
 * instances starting together against one PostgreSQL apply the migrations one after the other
 * (drizzle's migrator does not lock by itself; the second one then finds nothing to do).
 */
async function migrateLocked(pool: pg.Pool, work: () => Promise<void>): Promise<void> {
  const lock = await pool.connect()
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      await work()
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    }
  } finally {
    lock.release()
  }
}

/**
 * Opens the database and applies pending migrations with drizzle's migrator: node-postgres when
 * `databaseUrl` is given, else PGlite under `dataDir` (default `.data`) or in memory.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const { databaseUrl, dataDir = '.data', migrate = true } = options
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => {})
    const db = drizzleNodePg(pool, { schema })
    try {
      if (migrate)
        await migrateLocked(pool, () => migrateNodePg(db, { migrationsFolder: MIGRATIONS_FOLDER }))
    } catch (error) {
      await pool.end()
      throw error
    }
    return { db, driver: 'postgres', close: () => pool.end() }
  }

  let client: PGlite
  if (dataDir === 'memory') {
    client = await PGlite.create('memory://')
  } else {
    // PGlite creates only the last folder of its path.
    mkdirSync(dataDir, { recursive: true })
    client = await PGlite.create(join(dataDir, 'pglite'))
  }
  const db = drizzlePglite(client, { schema })
  try {
    if (migrate) await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER })
  } catch (error) {
    await client.close()
    throw error
  }
  return { db, driver: 'pglite', close: () => client.close() }
}

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import type { Logger } from 'drizzle-orm/logger'
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres'
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import { type RetryOptions, retryTransactions } from './retry.ts'
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
  /**
   * Whether the app's own connection owns `audit_events` (and so could alter or disable its
   * triggers): always on PGlite, on PostgreSQL unless a separate owner ran the migrations.
   */
  ownsAuditTable?: boolean
  close(): Promise<void>
}

export type OpenDatabaseOptions = {
  /** A PostgreSQL connection string; when set, the server's Postgres is used instead of PGlite. */
  databaseUrl?: string | undefined
  /**
   * The tables' owner on the same PostgreSQL database (DATABASE_OWNER_URL): migrations run with it,
   * and it grants `databaseUrl`'s role what the app needs: everything but UPDATE, DELETE and
   * TRUNCATE on `audit_events`. Not owning the table, the app's role cannot alter or disable the
   * audit trail's triggers. Unset: `databaseUrl` migrates (and owns) the tables itself.
   */
  ownerUrl?: string | undefined
  /** PGlite's home: a folder (the database lives in `<dataDir>/pglite`) or `'memory'`. */
  dataDir?: string | undefined
  /** Apply pending migrations before answering (default true). */
  migrate?: boolean
  /**
   * The migrations to apply (default {@link MIGRATIONS_FOLDER}): a test migrates a database up to
   * one migration with a copy whose journal stops there, then applies the rest.
   */
  migrationsFolder?: string | undefined
  /**
   * An in-memory PGlite starts from this dump of a data folder (PGlite's `dumpDataDir`) instead of
   * an empty cluster: the test suite migrates and seeds one database and copies it for every test
   * file. Pending migrations still apply on top.
   */
  pgliteDump?: Blob | undefined
  /** Told of every transaction that met a deadlock or serialization failure and runs again. */
  onRetry?: RetryOptions['onRetry']
  /**
   * Hands every statement the app sends, with its parameters, to this drizzle logger: the tenancy
   * check (server/db/tenancy.test.ts) reads the statements of an API journey this way.
   */
  logger?: Logger | undefined
}

/**
 * The extensions every embedded database loads: the migrations create `pg_trgm` (patient search),
 * so PGlite must be able to, also when a backup is opened or restored.
 */
export const PGLITE_EXTENSIONS = { pg_trgm }

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
 * Gives the app's role `role` what the app does with the tables, as their owner: reading and
 * writing every table and sequence, but only SELECT and INSERT on `audit_events`.
 */
export async function grantAppRole(
  query: (statement: string) => Promise<unknown>,
  role: string,
): Promise<void> {
  const who = pg.escapeIdentifier(role)
  await query(`GRANT USAGE ON SCHEMA public TO ${who}`)
  await query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${who}`)
  await query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${who}`)
  await query(`REVOKE UPDATE, DELETE, TRUNCATE ON "audit_events" FROM ${who}`)
}

/**
 * Opens the database and applies pending migrations with drizzle's migrator: node-postgres when
 * `databaseUrl` is given, else PGlite under `dataDir` (default `.data`) or in memory. Its
 * `transaction` runs again on a deadlock or a serialization failure (server/db/retry.ts).
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const {
    databaseUrl,
    ownerUrl,
    dataDir = '.data',
    migrate = true,
    pgliteDump,
    migrationsFolder = MIGRATIONS_FOLDER,
    onRetry,
    logger,
  } = options
  const drizzleOptions = logger ? { schema, logger } : { schema }
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => {})
    const db = drizzleNodePg(pool, drizzleOptions)
    let ownsAuditTable = true
    try {
      if (ownerUrl && ownerUrl !== databaseUrl) {
        const role = (await pool.query<{ role: string }>('select current_user as role')).rows[0]
          ?.role
        const owner = new pg.Pool({ connectionString: ownerUrl, max: 2 })
        owner.on('error', () => {})
        try {
          const ownerDb = drizzleNodePg(owner, { schema })
          await migrateLocked(owner, async () => {
            if (migrate) await migrateNodePg(ownerDb, { migrationsFolder })
            if (role) await grantAppRole((statement) => owner.query(statement), role)
          })
        } finally {
          await owner.end()
        }
      } else if (migrate) {
        await migrateLocked(pool, () => migrateNodePg(db, { migrationsFolder }))
      }
      const owned = await pool.query<{ owns: boolean }>(
        "select tableowner = current_user as owns from pg_tables where schemaname = 'public' and tablename = 'audit_events'",
      )
      ownsAuditTable = owned.rows[0]?.owns ?? true
    } catch (error) {
      await pool.end()
      throw error
    }
    return {
      db: retryTransactions(db, { onRetry }),
      driver: 'postgres',
      ownsAuditTable,
      close: () => pool.end(),
    }
  }

  let client: PGlite
  if (dataDir === 'memory') {
    client = await PGlite.create('memory://', {
      extensions: PGLITE_EXTENSIONS,
      ...(pgliteDump ? { loadDataDir: pgliteDump } : {}),
    })
  } else {
    // PGlite creates only the last folder of its path.
    mkdirSync(dataDir, { recursive: true })
    client = await PGlite.create(join(dataDir, 'pglite'), { extensions: PGLITE_EXTENSIONS })
  }
  const db = drizzlePglite(client, drizzleOptions)
  try {
    if (migrate) await migratePglite(db, { migrationsFolder })
  } catch (error) {
    await client.close()
    throw error
  }
  return {
    db: retryTransactions(db, { onRetry }),
    driver: 'pglite',
    ownsAuditTable: true,
    close: () => client.close(),
  }
}

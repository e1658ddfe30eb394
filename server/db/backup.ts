import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLITE_EXTENSIONS } from './client.ts'

/** A backup or restore that cannot go ahead; the message says why and what to do. */
export class BackupError extends Error {
  override name = 'BackupError'
}

/** Where the embedded database of `dataDir` lives (server/db/client.ts opens the same folder). */
export function pgliteDir(dataDir: string): string {
  return join(dataDir, 'pglite')
}

/**
 * Writes a consistent snapshot of the embedded database under `dataDir` to `file` (a gzipped tar
 * of its data folder, PGlite's `dumpDataDir`). The database is opened for the dump, so the server
 * must be stopped: an embedded database has one process at a time. Returns the bytes written.
 */
export async function backupPglite(dataDir: string, file: string): Promise<number> {
  const dir = pgliteDir(dataDir)
  if (!existsSync(dir)) throw new BackupError(`There is no database to back up in ${dir}.`)
  const db = await PGlite.create(dir, { extensions: PGLITE_EXTENSIONS })
  try {
    // A checkpoint first, so the dump holds every committed row in the data files themselves.
    await db.exec('CHECKPOINT')
    const dump = await db.dumpDataDir('gzip')
    const bytes = new Uint8Array(await dump.arrayBuffer())
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, bytes, { mode: 0o600 })
    return bytes.length
  } finally {
    await db.close()
  }
}

/**
 * Brings the database of a {@link backupPglite} file back under `dataDir`. Refuses when a
 * database is already there, unless `force`: then the current folder is kept beside it as
 * `pglite.before-restore-<time>` rather than deleted. Returns that folder, if any.
 */
export async function restorePglite(
  file: string,
  dataDir: string,
  { force = false, now = new Date() }: { force?: boolean; now?: Date } = {},
): Promise<string | undefined> {
  if (!existsSync(file)) throw new BackupError(`There is no backup file ${file}.`)
  const dir = pgliteDir(dataDir)
  let kept: string | undefined
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!force) {
      throw new BackupError(
        `${dir} already holds a database. Restoring replaces it: run again with --force (the current one is kept beside it).`,
      )
    }
    kept = `${dir}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`
    renameSync(dir, kept)
  }
  mkdirSync(dataDir, { recursive: true })
  const blob = new Blob([readFileSync(file)])
  const db = await PGlite.create(dir, { loadDataDir: blob, extensions: PGLITE_EXTENSIONS })
  try {
    // Proves the restored folder opens and answers before the restore counts as done.
    await db.query('select 1')
  } finally {
    await db.close()
  }
  return kept
}

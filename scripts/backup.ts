/**
 * `npm run backup [-- FILE]`: a consistent snapshot of the embedded database under DATA_DIR, by
 * default into `backups/glow-<time>.tar.gz`. Stop the server first. PostgreSQL (DATABASE_URL) is
 * backed up with pg_dump instead (README).
 */
import { resolve } from 'node:path'
import { backupPglite } from '#server/db/backup.ts'

const dataDir = resolve(process.env.DATA_DIR?.trim() || '.data')
const file = resolve(
  process.argv[2] ?? `backups/glow-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`,
)
if (process.env.DATABASE_URL?.trim()) {
  console.error('DATABASE_URL is set: back PostgreSQL up with pg_dump (see the README).')
  process.exit(2)
}
try {
  const bytes = await backupPglite(dataDir, file)
  console.log(`Backed up ${dataDir} to ${file} (${Math.round(bytes / 1024)} KB)`)
} catch (error) {
  console.error(`The backup failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

/**
 * `npm run restore -- FILE [--force]`: brings a `npm run backup` file back as the embedded
 * database under DATA_DIR. Refuses to replace an existing database without --force, and even then
 * keeps it beside the restored one. Stop the server first.
 */
import { resolve } from 'node:path'
import { restorePglite } from '#server/db/backup.ts'

const args = process.argv.slice(2)
const force = args.includes('--force')
const file = args.find((arg) => !arg.startsWith('--'))
if (!file) {
  console.error('Usage: npm run restore -- FILE [--force]')
  process.exit(2)
}
const dataDir = resolve(process.env.DATA_DIR?.trim() || '.data')
try {
  const kept = await restorePglite(resolve(file), dataDir, { force })
  console.log(`Restored ${resolve(file)} into ${dataDir}`)
  if (kept) console.log(`The database it replaced is kept in ${kept}`)
} catch (error) {
  console.error(`The restore failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

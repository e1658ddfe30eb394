/**
 * `npm run audit:verify [-- --head HASH]`: checks the audit trail's hash chain in the database the
 * server would use (DATABASE_URL, else the PGlite folder under DATA_DIR: stop the server first, an
 * embedded database has one user at a time). Prints the number of events and the head hash, or
 * every break it found, and exits 1 when the trail was changed.
 */

import { verifyAuditChain } from '#server/audit/audit-chain.ts'
import { loadConfig } from '#server/config.ts'
import { openDatabase } from '#server/db/client.ts'

const headArgument = process.argv.indexOf('--head')
const expectedHead = headArgument > 0 ? process.argv[headArgument + 1] : undefined

try {
  const config = loadConfig({ ...process.env, ALLOW_TEST_PAYMENTS: 'true' })
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    migrate: false,
  })
  try {
    const report = await verifyAuditChain(database.db, { expectedHead })
    if (report.problems.length === 0) {
      console.log(`Audit trail intact: ${report.events} events, head ${report.head ?? '(none)'}`)
    } else {
      console.log(
        `Audit trail BROKEN: ${report.problems.length} problem(s) in ${report.events} events`,
      )
      for (const problem of report.problems) console.log(`- ${problem}`)
      process.exitCode = 1
    }
  } finally {
    await database.close()
  }
} catch (error) {
  console.error(
    `The audit trail could not be checked: ${error instanceof Error ? error.message : String(error)}`,
  )
  process.exitCode = 2
}

/**
 * Starts the real server for the end-to-end tests: the built SPA plus the API on a fresh temporary
 * PGlite data folder, removed again when the server exits.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt } from '#scripts/lib/build.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'glow-e2e-'))
process.env.DATA_DIR = dataDir
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))

await ensureBuilt()
await import('#server/index.ts')

/**
 * Starts the real server for the QA path replay: the API on a fresh temporary PGlite data folder
 * (removed when the server exits) serving a bundle built with an hCaptcha site key, so that the
 * sign-in captcha shows on a host other than localhost (the browser reaches the same server as
 * `glow.test` too). The captcha secret stays unset: the server does not check tokens, and the
 * widget itself is a stand-in the replay serves in place of hCaptcha's script.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt } from '#scripts/lib/build.ts'
import { PATHS_DIST, PATHS_SITE_KEY } from './hosts.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'glow-paths-'))
process.env.DATA_DIR = dataDir
process.env.SERVE_DIST = PATHS_DIST
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))

await ensureBuilt(process.cwd(), {
  outDir: PATHS_DIST,
  env: { VITE_HCAPTCHA_SITEKEY: PATHS_SITE_KEY },
})
await import('#server/index.ts')

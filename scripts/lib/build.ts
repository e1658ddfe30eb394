import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** Everything the SPA bundle is made from: when any of it is newer than dist/, dist/ is stale. */
const SOURCES = [
  'src',
  'domain',
  'machines',
  'public',
  'index.html',
  'vite.config.ts',
  'postcss.config.cjs',
  'package.json',
  'package-lock.json',
  '.env',
  '.env.production',
]

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const entry of readdirSync(path)) {
    // Tests never reach the bundle, and the generated route tree is rewritten by the build itself.
    if (entry.includes('.test.') || entry === 'routeTree.gen.ts') continue
    newest = Math.max(newest, newestMtime(join(path, entry)))
  }
  return newest
}

/** True when `dist/index.html` is missing or older than any source of the bundle. */
export function isBuildStale(root = process.cwd()): boolean {
  const built = join(root, 'dist', 'index.html')
  if (!existsSync(built)) return true
  const builtAt = statSync(built).mtimeMs
  return SOURCES.some((source) => newestMtime(resolve(root, source)) > builtAt)
}

/** Builds the SPA with Vite when `dist/` is missing or stale; returns whether it built. */
export async function ensureBuilt(root = process.cwd(), { force = false } = {}): Promise<boolean> {
  if (!force && !isBuildStale(root)) return false
  console.log('Building the web app (dist/ is missing or older than the sources)…')
  const started = performance.now()
  const { build } = await import('vite')
  // The bundle is always a production bundle, whatever mode the server runs in (NODE_ENV=test would
  // ship React's development runtime). The server that boots next in this process must keep the
  // mode it was started with (outbox, HSTS, cookies), so NODE_ENV is put back afterwards.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({ root, configFile: resolve(root, 'vite.config.ts'), logLevel: 'warn' })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  console.log(`Built in ${((performance.now() - started) / 1000).toFixed(1)} s.`)
  return true
}

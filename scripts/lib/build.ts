import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { prerenderPages } from './prerender.ts'
import { prerenderWallet } from './prerender-wallet.ts'

/** Everything the SPA bundle is made from: when any of it is newer than dist/, dist/ is stale. */
const SOURCES = [
  'src',
  'domain',
  'machines',
  'public',
  'index.html',
  'wallet.html',
  'vite.config.ts',
  'vite.wallet.config.ts',
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

/** True when `<outDir>/index.html` (default `dist/`) or the wallet's page is missing or older than any source of the bundle. */
export function isBuildStale(root = process.cwd(), outDir = 'dist'): boolean {
  const built = join(root, outDir, 'index.html')
  if (!existsSync(built) || !existsSync(join(root, outDir, 'wallet.html'))) return true
  const builtAt = statSync(built).mtimeMs
  return SOURCES.some((source) => newestMtime(resolve(root, source)) > builtAt)
}

/** What {@link ensureBuilt} may change: another output folder, and build-time `VITE_*` values. */
export type BuildOptions = {
  force?: boolean
  /** Output folder relative to `root` (default `dist`). */
  outDir?: string
  /** `VITE_*` values for this build only (the QA path replay builds with a captcha site key). */
  env?: Record<string, string>
}

/** Builds the SPA with Vite when its output folder is missing or stale; returns whether it built. */
export async function ensureBuilt(
  root = process.cwd(),
  { force = false, outDir = 'dist', env = {} }: BuildOptions = {},
): Promise<boolean> {
  if (!force && !isBuildStale(root, outDir)) return false
  console.log(`Building the web app (${outDir}/ is missing or older than the sources)…`)
  const started = performance.now()
  const { build } = await import('vite')
  // The bundle is always a production bundle, whatever mode the server runs in (NODE_ENV=test would
  // ship React's development runtime). The server that boots next in this process must keep the
  // mode it was started with (outbox, HSTS, cookies), so NODE_ENV is put back afterwards.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]))
  Object.assign(process.env, env)
  try {
    await build({
      root,
      configFile: resolve(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
    // The patient's wallet: its own entry, built on its own into the same folder (vite.wallet.config.ts).
    await build({
      root,
      configFile: resolve(root, 'vite.wallet.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: false },
    })
    await prerenderWallet(root, outDir)
    await prerenderPages(root, outDir)
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
  console.log(`Built in ${((performance.now() - started) / 1000).toFixed(1)} s.`)
  return true
}

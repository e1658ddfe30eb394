import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PRERENDERED_FILE } from '#domain/prerender.ts'

const RENDER_SCRIPT = fileURLToPath(new URL('./prerender-render.ts', import.meta.url))

/**
 * Prerenders the public pages into `<outDir>/prerendered.json` (src/lib/prerender-contract.ts),
 * after the client build and with the same `VITE_*` values:
 * 1. bundles src/prerender.tsx for Node with the browser's export conditions, so that the router
 *    renders the tree the browser hydrates, not its server tree;
 * 2. renders each page in a child process that provides a DOM-like global environment with empty
 *    storage (the process that builds may go on to run the API server, which must not see one);
 * 3. writes the guard script next to the bundles, content-hashed.
 */
export async function prerenderPages(root: string, outDir: string): Promise<void> {
  const { build } = await import('vite')
  const work = mkdtempSync(join(tmpdir(), 'glow-prerender-'))
  try {
    await build({
      root,
      configFile: resolve(root, 'vite.config.ts'),
      logLevel: 'warn',
      ssr: {
        noExternal: true,
        target: 'node',
        resolve: { conditions: ['browser', 'module', 'import', 'default'] },
      },
      build: {
        ssr: 'src/prerender.tsx',
        outDir: work,
        emptyOutDir: true,
        copyPublicDir: false,
        rolldownOptions: { output: { codeSplitting: false } },
      },
    })
    const output = join(work, 'pages.json')
    execFileSync(
      process.execPath,
      ['--import', 'tsx', RENDER_SCRIPT, join(work, 'prerender.js'), output],
      { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
    )
    const { pages, guardScript } = JSON.parse(readFileSync(output, 'utf8')) as {
      pages: { path: string; html: string }[]
      guardScript: string
    }
    const hash = createHash('sha256').update(guardScript).digest('base64url').slice(0, 8)
    const guard = `/assets/prerender-guard-${hash.replace(/[^\w]/g, '_')}.js`
    const dist = resolve(root, outDir)
    mkdirSync(join(dist, 'assets'), { recursive: true })
    writeFileSync(join(dist, guard), guardScript)
    writeFileSync(join(dist, PRERENDERED_FILE), `${JSON.stringify({ guard, pages })}\n`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

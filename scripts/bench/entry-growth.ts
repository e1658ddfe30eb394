/**
 * What one more route costs every page (`npm run bench -- --only=entry-growth`): the committed
 * sources (HEAD) are built twice in a temporary copy, as they are and with one empty signed-in
 * route added (`/bench-probe` under the shell), and the entry chunk, which every page downloads
 * before anything else, is compared. The route tree and each route's address checks live in the
 * entry chunk, so today each route makes it a little larger.
 */
import { execFileSync, execSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

/** The entry chunk's gzip size (level 9) before and after one route was added. */
export type EntryGrowth = { commit: string; beforeGzip: number; afterGzip: number }

/** The probe: the smallest signed-in route a screen of ours would add. */
const PROBE_ROUTE = `import { createFileRoute } from '@tanstack/react-router'

export const Route = createFileRoute('/_shell/bench-probe')({
  component: () => null,
})
`

/** The gzip size of the entry chunk that `dist/index.html` names. */
function entryGzip(dist: string): number {
  const html = readFileSync(join(dist, 'index.html'), 'utf8')
  const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1]
  if (!entry) throw new Error(`no entry script in ${dist}/index.html`)
  return gzipSync(readFileSync(join(dist, entry)), { level: 9 }).length
}

function build(copy: string, outDir: string): number {
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error', '--outDir', outDir], {
    cwd: copy,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return entryGzip(join(copy, outDir))
}

/** Builds HEAD with and without one added route, in a temporary copy that is removed after. */
export function benchEntryGrowth(root: string): EntryGrowth {
  const copy = mkdtempSync(join(tmpdir(), 'glow-entry-growth-'))
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root })
      .toString()
      .trim()
    execSync(`git archive HEAD | tar -x -C "${copy}"`, { cwd: root, stdio: 'ignore' })
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
    const beforeGzip = build(copy, 'dist-before')
    writeFileSync(join(copy, 'src', 'routes', '_shell.bench-probe.tsx'), PROBE_ROUTE)
    const afterGzip = build(copy, 'dist-after')
    return { commit, beforeGzip, afterGzip }
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

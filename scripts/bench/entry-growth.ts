/**
 * What one more route costs every page (`npm run bench -- --only=entry-growth`): the committed
 * sources (HEAD) are built twice in a temporary copy, as they are and with one empty signed-in
 * route added (`/bench-probe` under the shell), and the entry chunk, which every page downloads
 * before anything else, is compared. The entry holds the public pages' route tree only
 * (src/app/router.tsx), so a signed-in route should not change its code; what may change is the
 * content hash in the name of a lazy chunk it imports (the whole route tree's), which is why the
 * budget is judged on the code with those hashes written alike.
 */
import { execFileSync, execSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

/**
 * The entry chunk's gzip size (level 9) before and after one route was added: as built, and with
 * the content hashes of the chunk names it holds written alike (`-HASH.js`), which is its code.
 */
export type EntryGrowth = {
  commit: string
  beforeGzip: number
  afterGzip: number
  beforeCodeGzip: number
  afterCodeGzip: number
}

/** A chunk's content hash in a file name it holds (`xstate-react.esm-C-MHxUSo.js`). */
const CHUNK_HASH = /-[\w-]{8}\.(m?js|css)\b/g

/** `code` with every chunk name's content hash written alike. */
export function withoutChunkHashes(code: string): string {
  return code.replace(CHUNK_HASH, '-HASH.$1')
}

/** The probe: the smallest signed-in route a screen of ours would add. */
const PROBE_ROUTE = `import { createFileRoute } from '@tanstack/react-router'

export const Route = createFileRoute('/_shell/bench-probe')({
  component: () => null,
})
`

/** The gzip sizes of the entry chunk that `dist/index.html` names: as built, and its code. */
function entryGzip(dist: string): { gzip: number; codeGzip: number } {
  const html = readFileSync(join(dist, 'index.html'), 'utf8')
  const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1]
  if (!entry) throw new Error(`no entry script in ${dist}/index.html`)
  const code = readFileSync(join(dist, entry), 'utf8')
  return {
    gzip: gzipSync(code, { level: 9 }).length,
    codeGzip: gzipSync(withoutChunkHashes(code), { level: 9 }).length,
  }
}

function build(copy: string, outDir: string): { gzip: number; codeGzip: number } {
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
    const before = build(copy, 'dist-before')
    writeFileSync(join(copy, 'src', 'routes', '_shell.bench-probe.tsx'), PROBE_ROUTE)
    const after = build(copy, 'dist-after')
    return {
      commit,
      beforeGzip: before.gzip,
      afterGzip: after.gzip,
      beforeCodeGzip: before.codeGzip,
      afterCodeGzip: after.codeGzip,
    }
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

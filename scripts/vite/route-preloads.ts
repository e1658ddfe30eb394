import type { Plugin, Rolldown } from 'vite'
import {
  ROUTE_PRELOADS_FILE,
  type RoutePreload,
  type RoutePreloads,
} from '#server/route-preloads.ts'

type OutputBundle = Rolldown.OutputBundle
type OutputChunk = Rolldown.OutputChunk

/** A route's address as a regular expression source, and the route files whose code it needs. */
export type RouteFile = { pattern: string; files: string[] }

const SPLIT = /[/\\]src[/\\]routes[/\\]([^/\\?]+)\.tsx\?tsr-split=/
/** A route file's own module: its address checks, in the route tree's chunk. */
const ROUTE_MODULE = /[/\\]src[/\\]routes[/\\]([^/\\?]+)\.tsx$/

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The address pattern of a TanStack file route (`src/routes/<name>.tsx`) and the route files on
 * its way from the root (pathless layouts included), or null for routes that never render on
 * arrival (the root, the catch-all, `/` which redirects).
 *
 * `signin` → `^/signin/?$`; `unsubscribe.$id` → `^/unsubscribe/[^/]+/?$`;
 * `_shell.personnel.index` → `^/personnel/?$` after `_shell`; `signup_.personnel.$id` →
 * `^/signup/personnel/[^/]+/?$` (a trailing `_` leaves the parent's layout).
 */
export function routeFile(name: string): RouteFile | null {
  if (name === '__root' || name === 'index' || name === '$') return null
  const segments = name.split('.')
  // A pathless layout (`_shell`) is never an address of its own.
  if (segments.at(-1)?.startsWith('_')) return null
  const parts: string[] = []
  const files: string[] = []
  let prefix = ''
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1
    prefix = prefix ? `${prefix}.${segment}` : segment
    if (segment === '$') return null
    if (segment.startsWith('_') && !last) {
      files.push(prefix)
      continue
    }
    const bare = segment.endsWith('_') ? segment.slice(0, -1) : segment
    if (last && bare === 'index') continue
    parts.push(bare.startsWith('$') ? '[^/]+' : escapeRegExp(bare))
  }
  files.push(name)
  return { pattern: `^/${parts.join('/')}/?$`, files }
}

/** Every file a chunk needs before it runs: its static imports, theirs, and their CSS. */
function closure(bundle: OutputBundle, start: string, skip: ReadonlySet<string>): string[] {
  const found = new Set<string>()
  const visit = (fileName: string) => {
    if (found.has(fileName) || skip.has(fileName)) return
    const chunk = bundle[fileName]
    if (chunk?.type !== 'chunk') return
    found.add(fileName)
    for (const css of chunk.viteMetadata?.importedCss ?? []) found.add(css)
    for (const imported of chunk.imports) visit(imported)
  }
  visit(start)
  return [...found]
}

/**
 * For each page of the app, the files it needs on arrival: the route's split chunks (and those
 * of the layouts above it), their static imports and their CSS, minus what the entry chunk
 * already brings. Root-relative names, in the order they were found.
 */
export function routePreloadTable(bundle: OutputBundle, base = '/'): RoutePreload[] {
  const chunks = Object.values(bundle).filter((item): item is OutputChunk => item.type === 'chunk')
  const entry = chunks.find((chunk) => chunk.isEntry)
  if (!entry) return []
  const initial = new Set(closure(bundle, entry.fileName, new Set()))
  const chunksOfRoute = new Map<string, string[]>()
  // The signed-in areas' address checks are not in the entry chunk but in the whole route
  // tree's chunk (src/app/router.tsx): their pages need it first.
  const treeChunkOfRoute = new Map<string, string>()
  for (const chunk of chunks) {
    for (const id of chunk.moduleIds) {
      const own = ROUTE_MODULE.exec(id)?.[1]
      if (own && !initial.has(chunk.fileName)) treeChunkOfRoute.set(own, chunk.fileName)
      const name = SPLIT.exec(id)?.[1]
      if (!name) continue
      const list = chunksOfRoute.get(name) ?? []
      if (!list.includes(chunk.fileName)) list.push(chunk.fileName)
      chunksOfRoute.set(name, list)
    }
  }
  const routes: RoutePreload[] = []
  for (const name of [...chunksOfRoute.keys()].sort()) {
    const route = routeFile(name)
    if (!route) continue
    const files = new Set<string>()
    for (const file of route.files) {
      const tree = treeChunkOfRoute.get(file)
      if (tree) for (const needed of closure(bundle, tree, initial)) files.add(base + needed)
      for (const start of chunksOfRoute.get(file) ?? []) {
        for (const needed of closure(bundle, start, initial)) files.add(base + needed)
      }
    }
    if (files.size) routes.push({ pattern: route.pattern, files: [...files] })
  }
  return routes
}

/**
 * Vite plugin: writes `route-preloads.json` next to index.html (see {@link routePreloadTable}).
 * The server reads it and links each page's files in the index.html it answers for that page
 * (server/route-preloads.ts), so they download together with the entry chunk instead of a round
 * trip after it has run.
 */
export function routePreloads(): Plugin {
  return {
    name: 'glow:route-preloads',
    // The client bundle only: the prerender's server bundle has neither style sheets nor pages.
    apply: (config, { command }) => command === 'build' && !config.build?.ssr,
    enforce: 'post',
    generateBundle(_options, bundle) {
      const manifest: RoutePreloads = { routes: routePreloadTable(bundle) }
      this.emitFile({
        type: 'asset',
        fileName: ROUTE_PRELOADS_FILE,
        source: `${JSON.stringify(manifest, null, 2)}\n`,
      })
    },
  }
}

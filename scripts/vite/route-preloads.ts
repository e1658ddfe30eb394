import type { Plugin, Rolldown } from 'vite'

type OutputBundle = Rolldown.OutputBundle
type OutputChunk = Rolldown.OutputChunk

/** A route's address as a regular expression source, and the route files whose code it needs. */
export type RouteFile = { pattern: string; files: string[] }

const SPLIT = /[/\\]src[/\\]routes[/\\]([^/\\?]+)\.tsx\?tsr-split=/

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
 * The tiny script that starts downloading the current route's chunks while the entry chunk is
 * still on its way: without it they are requested only after the entry has run and the router
 * has matched the address (a second round trip on every first load). `base` prefixes file names.
 */
export function preloadScript(routes: { pattern: string; files: string[] }[], base = '/'): string {
  const table = routes.map((route) => [route.pattern, route.files.map((file) => base + file)])
  return `(function () {
  var routes = ${JSON.stringify(table)};
  var path = location.pathname;
  for (var i = 0; i < routes.length; i++) {
    if (!new RegExp(routes[i][0]).test(path)) continue;
    var files = routes[i][1];
    for (var j = 0; j < files.length; j++) {
      var link = document.createElement('link');
      var css = /\\.css$/.test(files[j]);
      link.rel = css ? 'preload' : 'modulepreload';
      if (css) link.as = 'style';
      link.crossOrigin = '';
      link.href = files[j];
      document.head.appendChild(link);
    }
    return;
  }
})();
`
}

/**
 * Vite plugin: writes `assets/route-preloads-<hash>.js` (see {@link preloadScript}) and loads it
 * `async` from index.html. For each route it lists the route's split chunks and their static
 * imports and CSS, minus what the entry chunk already brings.
 */
export function routePreloads(): Plugin {
  return {
    name: 'glow:route-preloads',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter(
        (item): item is OutputChunk => item.type === 'chunk',
      )
      const entry = chunks.find((chunk) => chunk.isEntry)
      const html = bundle['index.html']
      if (!entry || !html || html.type !== 'asset') return
      const initial = new Set(closure(bundle, entry.fileName, new Set()))
      const chunksOfRoute = new Map<string, string[]>()
      for (const chunk of chunks) {
        for (const id of chunk.moduleIds) {
          const name = SPLIT.exec(id)?.[1]
          if (!name) continue
          const list = chunksOfRoute.get(name) ?? []
          if (!list.includes(chunk.fileName)) list.push(chunk.fileName)
          chunksOfRoute.set(name, list)
        }
      }
      const routes: RouteFile[] = []
      for (const name of [...chunksOfRoute.keys()].sort()) {
        const route = routeFile(name)
        if (!route) continue
        const files = new Set<string>()
        for (const file of route.files) {
          for (const start of chunksOfRoute.get(file) ?? []) {
            for (const needed of closure(bundle, start, initial)) files.add(needed)
          }
        }
        if (files.size) routes.push({ pattern: route.pattern, files: [...files] })
      }
      const source = preloadScript(routes)
      const reference = this.emitFile({
        type: 'asset',
        name: 'route-preloads.js',
        source,
      })
      const fileName = this.getFileName(reference)
      const tag = `<script async src="/${fileName}"></script>`
      html.source = String(html.source).replace(/(\s*)<\/head>/, `$1  ${tag}$1</head>`)
    },
  }
}

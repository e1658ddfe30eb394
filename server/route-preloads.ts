/**
 * Route preloads: which chunks and style sheets each page of the web app needs, written by the
 * build next to index.html (scripts/vite/route-preloads.ts) and read by the static server, which
 * names them in the HTML it answers for that page. The browser then fetches a page's own code
 * together with the entry chunk, instead of one round trip later, once the entry has run and the
 * router has matched the address (issue 8).
 */

/** The build's file in dist/ (never served itself). */
export const ROUTE_PRELOADS_FILE = 'route-preloads.json'

/** One page: its address as a regular expression source, and the files it needs, root-relative. */
export type RoutePreload = { pattern: string; files: string[] }

export type RoutePreloads = { routes: RoutePreload[] }

const SAFE_FILE = /^\/assets\/[\w.-]+\.(?:js|css)$/

/**
 * Reads the build's route preloads. Anything that is not a list of patterns and `/assets/` file
 * names is left out: the file comes from our own build, but it ends up inside HTML.
 */
export function parseRoutePreloads(text: string): RoutePreload[] {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return []
  }
  const routes = (data as Partial<RoutePreloads> | null)?.routes
  if (!Array.isArray(routes)) return []
  const parsed: RoutePreload[] = []
  for (const route of routes as unknown[]) {
    const { pattern, files } = (route ?? {}) as Partial<RoutePreload>
    if (typeof pattern !== 'string' || !Array.isArray(files)) continue
    try {
      new RegExp(pattern)
    } catch {
      continue
    }
    const safe = files.filter(
      (file): file is string => typeof file === 'string' && SAFE_FILE.test(file),
    )
    if (safe.length) parsed.push({ pattern, files: safe })
  }
  return parsed
}

/**
 * The `<link>` tags of a page's files: module preloads for its chunks, and its style sheets
 * linked as style sheets (they would be added anyway once the chunk runs; now they arrive with
 * the page, so nothing is drawn unstyled first).
 */
export function preloadLinks(files: readonly string[]): string {
  return files
    .map((file) =>
      file.endsWith('.css')
        ? `<link rel="stylesheet" crossorigin href="${file}">`
        : `<link rel="modulepreload" crossorigin href="${file}">`,
    )
    .join('\n    ')
}

/** index.html with a page's links added at the end of its head. */
export function withPreloads(indexHtml: string, files: readonly string[]): string {
  if (!files.length) return indexHtml
  return indexHtml.replace(/(\s*)<\/head>/, `$1  ${preloadLinks(files)}$1</head>`)
}

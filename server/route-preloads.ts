/**
 * Route preloads: which chunks and style sheets each page of the web app needs, written by the
 * build next to index.html (scripts/vite/route-preloads.ts) and read by the static server, which
 * names them in the HTML it answers for that page. The browser then fetches a page's own code
 * together with the entry chunk, instead of one round trip later, once the entry has run and the
 * router has matched the address. It also places the build's prerendered pages
 * (src/lib/prerender-contract.ts) in that HTML.
 */

import { pageTitle } from '#domain/page-titles.ts'
import { AFTER_PAINT_TEMPLATE_ID, PRERENDERED_ATTRIBUTE } from '#domain/prerender.ts'

export { PRERENDERED_FILE } from '#domain/prerender.ts'

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

const MODULE_SCRIPT = /<script type="module"[^>]*><\/script>\s*/g

/**
 * index.html with a page's links added at the end of its head. With `afterPaint` (a prerendered
 * page, which paints without any script) the entry script and the module preloads wait in a
 * `<template>` that the guard script empties into the head once the page has painted
 * (src/lib/prerender-contract.ts): on a slow connection they then never share it with the style
 * sheets and the logo the first paint needs, and the paint waits for none of them.
 */
export function withPreloads(
  indexHtml: string,
  files: readonly string[],
  { afterPaint = false } = {},
): string {
  if (!afterPaint) {
    if (!files.length) return indexHtml
    return indexHtml.replace(/(\s*)<\/head>/, `$1  ${preloadLinks(files)}$1</head>`)
  }
  const scripts = indexHtml.match(MODULE_SCRIPT)?.map((tag) => tag.trim()) ?? []
  const styles = files.filter((file) => file.endsWith('.css'))
  const chunks = files.filter((file) => !file.endsWith('.css'))
  const later = [...scripts, ...(chunks.length ? [preloadLinks(chunks)] : [])].join('\n      ')
  const head = [
    ...(styles.length ? [preloadLinks(styles)] : []),
    `<template id="${AFTER_PAINT_TEMPLATE_ID}">\n      ${later}\n    </template>`,
  ].join('\n    ')
  return indexHtml.replace(MODULE_SCRIPT, '').replace(/(\s*)<\/head>/, `$1  ${head}$1</head>`)
}

/** The build's prerendered pages (src/lib/prerender-contract.ts), as the server uses them. */
export type PrerenderedPage = { path: string; html: string }

const PRERENDERED_PATH = /^\/[\w/-]*$/

/**
 * Reads the build's prerendered pages: the guard script's `/assets/` name and, for each page, a
 * plain path and its markup. Anything else is left out; without a valid guard, no page is used
 * (a prerender must never be shown to a browser whose storage makes it wrong).
 */
export function parsePrerendered(text: string): { guard: string; pages: PrerenderedPage[] } | null {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return null
  }
  const { guard, pages } = (data ?? {}) as { guard?: unknown; pages?: unknown }
  if (typeof guard !== 'string' || !/^\/assets\/[\w.-]+\.js$/.test(guard)) return null
  if (!Array.isArray(pages)) return null
  const parsed: PrerenderedPage[] = []
  for (const page of pages as unknown[]) {
    const { path, html } = (page ?? {}) as Partial<PrerenderedPage>
    if (typeof path === 'string' && PRERENDERED_PATH.test(path) && typeof html === 'string') {
      parsed.push({ path, html })
    }
  }
  return { guard, pages: parsed }
}

/**
 * index.html for a prerendered page: the guard script first in the head (it runs before the
 * first paint and before the style sheets arrive), and the page's markup in `#root`, marked with
 * the address it was rendered for.
 */
export function withPrerendered(indexHtml: string, guard: string, page: PrerenderedPage): string {
  const marked = `<div id="root" ${PRERENDERED_ATTRIBUTE}="${page.path}">${page.html}</div>`
  return (
    indexHtml
      .replace(/(\s*)<\/head>/, `$1  <script src="${guard}"></script>$1</head>`)
      .replace('<div id="root"></div>', () => marked)
      // The page's own title, there before any script runs.
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeText(pageTitle(page.path))}</title>`)
  )
}

/** Text for an HTML element's content: `&`, `<` and `>` escaped. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

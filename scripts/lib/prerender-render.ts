/**
 * Child process of scripts/lib/prerender.ts: `node --import tsx prerender-render.ts <bundle> <out>`.
 * Renders every prerendered page of the bundle in a DOM-like global environment (jsdom, empty
 * storage, as a first-time visitor's browser) and writes the markup and the guard script as JSON.
 */
import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { JSDOM } from 'jsdom'

const [bundle, output] = process.argv.slice(2)
if (!bundle || !output) throw new Error('usage: prerender-render.ts <bundle> <output.json>')

const dom = new JSDOM('<!doctype html><html><head></head><body></body></html>', {
  url: 'http://localhost/',
  pretendToBeVisual: true,
})
// The names the app and its libraries reach for as globals while they load and render.
for (const name of [
  'window',
  'self',
  'document',
  'navigator',
  'location',
  'history',
  'sessionStorage',
  'localStorage',
  'getComputedStyle',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'HTMLElement',
  'Element',
  'Node',
  'DocumentFragment',
  'MutationObserver',
] as const) {
  const value = name === 'window' || name === 'self' ? dom.window : dom.window[name]
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
}

type PrerenderBundle = {
  PRERENDERED_PAGES: readonly string[]
  prerenderPage: (path: string) => Promise<string>
  prerenderGuardScript: () => string
}

const app = (await import(pathToFileURL(bundle).href)) as PrerenderBundle
const pages: { path: string; html: string }[] = []
for (const path of app.PRERENDERED_PAGES) {
  dom.window.sessionStorage.clear()
  dom.window.localStorage.clear()
  pages.push({ path, html: await app.prerenderPage(path) })
}
writeFileSync(output, JSON.stringify({ pages, guardScript: app.prerenderGuardScript() }))
// Timers the app's modules started (none keep anything worth waiting for) must not hold the build.
process.exit(0)

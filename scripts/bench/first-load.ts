import { gzipSync } from 'node:zlib'
import type { Browser, Request } from 'playwright-core'

/** What the first load of one page shipped. */
export type FirstLoad = {
  path: string
  /** Sum of the gzip sizes (level 9, as the server compresses) of the JS files loaded. */
  jsGzip: number
  cssGzip: number
  /** What actually crossed the wire (the server picks brotli for Chromium). */
  jsTransferred: number
  cssTransferred: number
  /** The files loaded, in the order they finished. */
  files: { url: string; gzip: number; transferred: number }[]
}

const gzipCache = new Map<string, number>()

/** The gzip size (level 9) of what the server answered for `request`, decoded, per address. */
async function gzipSize(request: Request, pathname: string): Promise<number> {
  let size = gzipCache.get(pathname)
  if (size === undefined) {
    const body = (await (await request.response())?.body()) ?? Buffer.alloc(0)
    size = gzipSync(body, { level: 9 }).length
    gzipCache.set(pathname, size)
  }
  return size
}

/**
 * Loads `baseUrl + path` in a fresh browser context (empty cache) and sums the scripts and style
 * sheets of our own origin that were fetched until the network went quiet: the entry chunk, its
 * modulepreloads, the route chunks and the CSS (or, on a page the server renders, its own script).
 * Each file's gzip size is computed from the bytes the server answered, decoded (the build's
 * files, or a script the server serves itself), so the figure matches the budget's "KB gzip"; the
 * transferred size is what Chromium received.
 */
export async function measureFirstLoad(
  browser: Browser,
  baseUrl: string,
  path: string,
): Promise<FirstLoad> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const origin = new URL(baseUrl).origin
  const pending: Promise<FirstLoad['files'][number] | undefined>[] = []
  page.on('requestfinished', (request) => {
    const url = new URL(request.url())
    if (url.origin !== origin || !/\.(m?js|css)$/.test(url.pathname)) return
    pending.push(
      Promise.all([request.sizes(), gzipSize(request, url.pathname)]).then(([sizes, gzip]) => ({
        url: url.pathname,
        gzip,
        transferred: sizes.responseBodySize,
      })),
    )
  })
  try {
    await page.goto(`${baseUrl}${path}`, { waitUntil: 'networkidle' })
    // The route's chunk renders a heading once it is in; then nothing more is on its way.
    await page.locator('h1, h2').first().waitFor({ timeout: 15_000 })
    await page.waitForLoadState('networkidle')
    const files = (await Promise.all(pending)).filter((file) => file !== undefined)
    const sum = (kind: 'js' | 'css', key: 'gzip' | 'transferred') =>
      files
        .filter((file) => (kind === 'css') === file.url.endsWith('.css'))
        .reduce((total, file) => total + file[key], 0)
    return {
      path,
      jsGzip: sum('js', 'gzip'),
      cssGzip: sum('css', 'gzip'),
      jsTransferred: sum('js', 'transferred'),
      cssTransferred: sum('css', 'transferred'),
      files,
    }
  } finally {
    await context.close()
  }
}

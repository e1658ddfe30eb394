import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, gzip, constants as zlibConstants } from 'node:zlib'
import type { MiddlewareHandler } from 'hono'
import type { Logger } from '#server/lib/log.ts'
import {
  PRERENDERED_FILE,
  parsePrerendered,
  parseRoutePreloads,
  ROUTE_PRELOADS_FILE,
  withPreloads,
  withPrerendered,
} from './route-preloads.ts'

const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
}

const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.map',
  '.webmanifest',
  '.txt',
  '.xml',
  '.svg',
  '.ico',
  '.ttf',
  '.wasm',
])

// Below this size the encoding headers cost about as much as compression saves.
const MIN_COMPRESS_BYTES = 1024

/** Hashed bundles never change under the same name; everything else is revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

type Encoding = 'br' | 'gzip'

type StaticFile = {
  body: Buffer
  contentType: string
  etag: string
  cacheControl: string
  /** Present for text assets: the compressed bodies, made once in the background. */
  encoded?: Promise<Partial<Record<Encoding, Buffer>>>
}

function listFiles(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...listFiles(path))
    else if (entry.isFile()) found.push(path)
  }
  return found
}

async function compressBoth(body: Buffer): Promise<Partial<Record<Encoding, Buffer>>> {
  const [gz, br] = await Promise.all([
    gzipAsync(body, { level: 9 }),
    brotliAsync(body, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  ])
  const encoded: Partial<Record<Encoding, Buffer>> = {}
  if (gz.length < body.length) encoded.gzip = gz
  if (br.length < body.length) encoded.br = br
  return encoded
}

/** The best encoding the client accepts among those we have: brotli, then gzip. */
function pickEncoding(
  acceptEncoding: string | undefined,
  available: Partial<Record<Encoding, Buffer>>,
): Encoding | undefined {
  if (!acceptEncoding) return undefined
  const accepted = new Map<string, number>()
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token, ...params] = part.trim().split(';')
    if (!token) continue
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean)
    accepted.set(token.trim(), q === undefined ? 1 : Number(q))
  }
  const wildcard = accepted.get('*')
  for (const encoding of ['br', 'gzip'] as const) {
    const q = accepted.get(encoding) ?? wildcard ?? 0
    if (q > 0 && available[encoding]) return encoding
  }
  return undefined
}

function decodePath(path: string): string | undefined {
  try {
    return decodeURIComponent(path)
  } catch {
    return undefined
  }
}

function staticFile(
  urlPath: string,
  body: Buffer,
  log: Logger | undefined,
  cacheControl = urlPath.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
): StaticFile {
  const extension = extname(urlPath).toLowerCase()
  const file: StaticFile = {
    body,
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    etag: `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`,
    cacheControl,
  }
  if (COMPRESSIBLE.has(extension) && body.length >= MIN_COMPRESS_BYTES) {
    file.encoded = compressBoth(body).catch((error: unknown) => {
      log?.warn(`Could not compress ${urlPath}: ${String(error)}; serving it uncompressed`)
      return {}
    })
  }
  return file
}

/**
 * The history fallback of each page the build listed in its route preloads: index.html with the
 * page's chunks and style sheets linked in its head (server/route-preloads.ts). The build's list
 * itself is not served.
 */
function pageVariants(
  files: Map<string, StaticFile>,
  html: string,
  log: Logger | undefined,
): {
  routes: { pattern: RegExp; file: StaticFile }[]
  prerendered: Map<string, StaticFile>
} {
  const manifest = files.get(`/${ROUTE_PRELOADS_FILE}`)
  files.delete(`/${ROUTE_PRELOADS_FILE}`)
  const prerenderedFile = files.get(`/${PRERENDERED_FILE}`)
  files.delete(`/${PRERENDERED_FILE}`)
  const routes = manifest
    ? parseRoutePreloads(manifest.body.toString('utf8')).map((route) => ({
        pattern: new RegExp(route.pattern),
        files: route.files,
      }))
    : []
  const filesOf = (path: string) => routes.find((route) => route.pattern.test(path))?.files ?? []
  const prerendered = new Map<string, StaticFile>()
  const built = prerenderedFile ? parsePrerendered(prerenderedFile.body.toString('utf8')) : null
  // A page is answered prerendered only when its guard script is there to be fetched.
  if (built && files.has(built.guard)) {
    for (const page of built.pages) {
      const body = withPreloads(withPrerendered(html, built.guard, page), filesOf(page.path), {
        afterPaint: true,
      })
      prerendered.set(page.path, staticFile('/index.html', Buffer.from(body), log))
    }
  }
  return {
    routes: routes.map((route) => ({
      pattern: route.pattern,
      file: staticFile('/index.html', Buffer.from(withPreloads(html, route.files)), log),
    })),
    prerendered,
  }
}

/**
 * Settings the server hands the SPA at run time, as `<meta name="glow:NAME" content="VALUE">` in
 * the head of every page it answers (src/lib/env.ts reads them): one build then serves any value.
 * Unset values are left out, and the build's own `VITE_*` value applies.
 */
export type RuntimeSettings = Record<string, string | undefined>

/** `html` with a meta tag per set value of `settings`, at the end of its head. */
export function withRuntimeSettings(html: string, settings: RuntimeSettings): string {
  const tags = Object.entries(settings)
    .filter((entry): entry is [string, string] => !!entry[1])
    .map(
      ([name, value]) =>
        `<meta name="glow:${escapeAttribute(name)}" content="${escapeAttribute(value)}">`,
    )
    .join('')
  return tags ? html.replace('</head>', `${tags}</head>`) : html
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/** What the patient wallet's page needs of a practice: its name, or null when there is none. */
export type WalletPracticeLookup = (practiceId: number) => Promise<{ name: string } | null>

/** `/wallet/{practiceId}` and anything below it (the wallet's own files aside). */
const WALLET_PAGE = /^\/wallet\/(\d{1,9})(?:\/.*)?$/
/**
 * A wallet address that names no practice (`/wallet`, `/wallet/`, `/wallet/abc`; a name with a
 * dot is a missing file): the wallet's page saying the link is not valid, not the staff app.
 */
const WALLET_WITHOUT_PRACTICE = /^\/wallet(?:\/[^./]*)?\/?$/
/** The short link a practice prints or texts: `/w/{practiceId}`. */
const WALLET_SHORT_LINK = /^\/w\/(\d{1,9})\/?$/
const WALLET_MANIFEST = /^\/wallet\/(\d{1,9})\/manifest\.webmanifest$/

/**
 * The wallet's web app manifest for one practice: its name, installed at its own wallet, with the
 * wallet's icons (public/wallet/).
 */
export function walletManifest(practiceId: number, practiceName: string): string {
  return JSON.stringify({
    id: `/wallet/${practiceId}`,
    name: `${practiceName} wallet`,
    short_name: practiceName.length <= 12 ? practiceName : 'Wallet',
    description: `Your points, offers and membership with ${practiceName}.`,
    start_url: `/wallet/${practiceId}`,
    scope: '/wallet/',
    display: 'standalone',
    orientation: 'portrait',
    background_color: '#f8f9fa',
    theme_color: '#0b5a5a',
    icons: [
      { src: '/wallet/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/wallet/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      {
        src: '/wallet/icon-maskable-512.png',
        sizes: '512x512',
        type: 'image/png',
        purpose: 'maskable',
      },
    ],
  })
}

/**
 * wallet.html for one practice: its name in the title and in `glow:practice-name` (the sign-in
 * shows it before any call) and its manifest linked; for a practice that does not exist,
 * `glow:practice` says so and the page shows that the link is not valid.
 */
export function walletPageHtml(
  html: string,
  practiceId: number,
  practice: { name: string } | null | undefined,
): string {
  // The prerendered sign-in names the practice (scripts/lib/prerender-wallet.ts).
  const named = html.replaceAll(
    WALLET_PRACTICE_NAME_SLOT,
    escapeText(practice?.name ?? 'your practice'),
  )
  if (practice === null) {
    return named.replace('</head>', '<meta name="glow:practice" content="missing"></head>')
  }
  const head = [
    `<link rel="manifest" href="/wallet/${practiceId}/manifest.webmanifest">`,
    practice
      ? `<meta name="glow:practice-name" content="${escapeAttribute(practice.name)}"><meta name="apple-mobile-web-app-title" content="${escapeAttribute(practice.name)}">`
      : '',
  ].join('')
  const titled = practice
    ? named.replace(
        /<title>([^<]*)<\/title>/,
        (_all, title: string) => `<title>${escapeText(practice.name)} · ${title}</title>`,
      )
    : named
  return titled.replace('</head>', `${head}</head>`)
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Where the prerendered sign-in names the practice (src/wallet/prerender.tsx). */
const WALLET_PRACTICE_NAME_SLOT = '%GLOW_PRACTICE_NAME%'

/** At most this many practices' wallet pages are kept built in memory. */
const WALLET_PAGES_KEPT = 500

/**
 * Serves the built SPA from `distDir` (Hono middleware, mounted after the API):
 * - files are indexed once at start, so a request can only ever reach a file that is in dist/;
 * - `/assets/*` (content-hashed by Vite) is cached for a year as immutable, everything else
 *   (index.html above all) is `no-cache` and revalidated with its ETag;
 * - history fallback: a GET or HEAD outside `/api` that names no file answers `index.html` (200),
 *   except under `/assets/`, where a missing file stays a 404; for a page the build listed in
 *   `route-preloads.json`, that index.html links the page's own chunks and style sheets, and a
 *   page the build prerendered (`prerendered.json`) is answered with its markup in `#root` when
 *   the address has no query string (the prerender is what a first-time visitor sees);
 * - text assets are served brotli- or gzip-compressed per `Accept-Encoding`, with
 *   `Vary: Accept-Encoding`; they are compressed once, in the background, right after start;
 * - the patient's wallet (its own entry, wallet.html, without the staff app's bundle) answers
 *   `/wallet/{practiceId}` and every path below it, with the practice's name and manifest
 *   (`/wallet/{practiceId}/manifest.webmanifest`) from `walletPractice`; a practice that does not
 *   exist, or an address that names none (`/wallet`), answers 404 with the page saying so;
 *   `/w/{practiceId}`, the short link, redirects there.
 */
export function serveSpa(
  distDir: string,
  {
    log,
    settings = {},
    walletPractice,
  }: { log?: Logger; settings?: RuntimeSettings; walletPractice?: WalletPracticeLookup } = {},
): MiddlewareHandler {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`${distDir} has no index.html: build the web app first (npm run build)`)
  }
  const files = new Map<string, StaticFile>()
  for (const path of listFiles(distDir)) {
    const urlPath = `/${relative(distDir, path).split(sep).join('/')}`
    files.set(urlPath, staticFile(urlPath, readFileSync(path), log))
  }
  const built = files.get('/index.html')
  if (!built) throw new Error(`${distDir} has no index.html`)
  const html = withRuntimeSettings(built.body.toString('utf8'), settings)
  const index = staticFile('/index.html', Buffer.from(html), log)
  files.set('/index.html', index)
  const { routes, prerendered } = pageVariants(files, html, log)
  const walletBuilt = files.get('/wallet.html')
  files.delete('/wallet.html')
  const walletHtml = walletBuilt
    ? withRuntimeSettings(walletBuilt.body.toString('utf8'), settings)
    : undefined
  /** Each practice's wallet page (and manifest), built once, by practice and name. */
  const walletPages = new Map<string, StaticFile>()
  const walletFile = (key: string, urlPath: string, make: () => string): StaticFile => {
    let built = walletPages.get(key)
    if (!built) {
      if (walletPages.size >= WALLET_PAGES_KEPT) walletPages.clear()
      built = staticFile(urlPath, Buffer.from(make()), log)
      walletPages.set(key, built)
    }
    return built
  }

  return async (c, next) => {
    const method = c.req.method
    const path = c.req.path
    if ((method !== 'GET' && method !== 'HEAD') || path === '/api' || path.startsWith('/api/')) {
      return next()
    }
    const shortLink = WALLET_SHORT_LINK.exec(path)?.[1]
    if (shortLink && walletHtml) {
      return new Response(null, {
        status: 302,
        headers: { Location: `/wallet/${Number(shortLink)}`, 'Cache-Control': REVALIDATE },
      })
    }
    const decoded = decodePath(path)
    let file =
      decoded === undefined ? undefined : files.get(decoded === '/' ? '/index.html' : decoded)
    let status: 200 | 404 = 200
    const walletId = !file && walletHtml ? WALLET_PAGE.exec(path)?.[1] : undefined
    if (!file && !walletId && walletHtml && WALLET_WITHOUT_PRACTICE.test(path)) {
      status = 404
      file = walletFile('page:none', '/wallet.html', () => walletPageHtml(walletHtml, 0, null))
    }
    if (walletId && walletHtml) {
      const practiceId = Number(walletId)
      const practice = walletPractice ? await walletPractice(practiceId) : undefined
      const manifest = WALLET_MANIFEST.test(path)
      if (practice === null) {
        if (manifest) return next()
        status = 404
      }
      file = manifest
        ? walletFile(`manifest:${practiceId}:${practice?.name}`, '/manifest.webmanifest', () =>
            walletManifest(practiceId, practice?.name ?? 'Your'),
          )
        : walletFile(
            `page:${practiceId}:${practice === null ? '' : practice?.name}`,
            '/wallet.html',
            () => walletPageHtml(walletHtml, practiceId, practice),
          )
    }
    if (!file) {
      if (path.startsWith('/assets/')) return next()
      const plain = decoded !== undefined && !c.req.url.includes('?')
      file =
        (plain && prerendered.get(decoded)) ||
        (decoded !== undefined && routes.find((route) => route.pattern.test(decoded))?.file) ||
        index
    }

    const headers = new Headers({
      'Content-Type': file.contentType,
      'Cache-Control': file.cacheControl,
      ETag: file.etag,
    })
    let body = file.body
    if (file.encoded) {
      headers.set('Vary', 'Accept-Encoding')
      const encoded = await file.encoded
      const encoding = pickEncoding(c.req.header('Accept-Encoding'), encoded)
      const chosen = encoding && encoded[encoding]
      if (encoding && chosen) {
        headers.set('Content-Encoding', encoding)
        body = chosen
      }
    }
    const ifNoneMatch = c.req.header('If-None-Match')
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === file.etag || tag.trim() === '*')) {
      headers.delete('Content-Type')
      headers.delete('Content-Encoding')
      return new Response(null, { status: 304, headers })
    }
    headers.set('Content-Length', String(body.length))
    return new Response(method === 'HEAD' ? null : new Uint8Array(body), { status, headers })
  }
}

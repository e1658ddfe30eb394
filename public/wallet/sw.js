/**
 * The patient wallet's service worker, scoped to /wallet/ (registered by
 * src/wallet/register-worker.ts). It keeps, for offline reading:
 * - the shell: each wallet page (/wallet/{practiceId}) as last answered, and the hashed scripts,
 *   style sheets and icons it names (network first for the page, cache first for the files, which
 *   never change under their name);
 * - the LAST `GET /api/wallet/me` answer, and only that one: stored under a hash of the patient's
 *   session token, so another session (another patient on this device) never matches it; replaced
 *   by each new answer; dropped on a 401. The page deletes it on logout. Offline, the kept answer
 *   is served with `X-Wallet-Cached-At` so the page can say so.
 * No other API call, and nothing but GET, is ever cached.
 */
const SHELL_CACHE = 'glow-wallet-shell-v1'
const DATA_CACHE = 'glow-wallet-data-v1'
const ME_PATH = '/api/wallet/me'
const CACHED_AT_HEADER = 'X-Wallet-Cached-At'
const WALLET_PAGE = /^\/wallet\/(\d{1,9})(?:\/.*)?$/
const SHELL_FILE = /^\/(assets\/wallet-[\w.-]+|wallet\/[\w.-]+\.(png|svg)|favicon\.svg)$/

self.addEventListener('install', () => {
  self.skipWaiting()
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('glow-wallet-') && name !== SHELL_CACHE && name !== DATA_CACHE) {
          await caches.delete(name)
        }
      }
      await self.clients.claim()
      // The page that installed this worker was loaded without it: keep it now.
      const windows = await self.clients.matchAll({ type: 'window' })
      await Promise.all(windows.map((client) => keepPage(client.url).catch(() => undefined)))
    })(),
  )
})

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin !== self.location.origin) return
  if (url.pathname === ME_PATH) {
    event.respondWith(walletData(request))
    return
  }
  if (url.pathname.startsWith('/api/')) return
  if (request.mode === 'navigate' && WALLET_PAGE.test(url.pathname)) {
    event.respondWith(walletPage(event, request, url))
    return
  }
  if (SHELL_FILE.test(url.pathname)) event.respondWith(shellFile(request))
})

/** The cache key of a wallet page: the practice's page, whatever the path below it. */
function pageKey(url) {
  const id = WALLET_PAGE.exec(new URL(url).pathname)?.[1]
  return id ? `/wallet/${id}` : null
}

/** Fetches a wallet page and keeps it with every shell file it names. */
async function keepPage(url) {
  const key = pageKey(url)
  if (!key) return
  const response = await fetch(key, { credentials: 'same-origin', cache: 'no-cache' })
  if (response.ok) await keepPageResponse(key, response)
}

async function keepPageResponse(key, response) {
  const cache = await caches.open(SHELL_CACHE)
  await cache.put(key, response.clone())
  const html = await response.text()
  const files = [...html.matchAll(/(?:src|href)="(\/[^"?#]+)"/g)]
    .map((match) => match[1])
    .filter((path) => SHELL_FILE.test(path))
  await Promise.all(
    files.map(async (path) => {
      if (!(await cache.match(path))) await cache.add(path).catch(() => undefined)
    }),
  )
}

async function walletPage(event, request, url) {
  const key = pageKey(url.href)
  try {
    const response = await fetch(request)
    if (response.ok && key) event.waitUntil(keepPageResponse(key, response.clone()))
    return response
  } catch (error) {
    const kept = key && (await caches.match(key, { cacheName: SHELL_CACHE }))
    if (kept) return kept
    throw error
  }
}

async function shellFile(request) {
  const cache = await caches.open(SHELL_CACHE)
  const kept = await cache.match(request)
  if (kept) return kept
  const response = await fetch(request)
  if (response.ok) await cache.put(request, response.clone())
  return response
}

/** The key of a session's kept answer: a SHA-256 of its Authorization header, never the token. */
async function dataKey(authorization) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(authorization))
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0'))
  return `/wallet/kept-data/${hex.join('')}`
}

async function walletData(request) {
  const authorization = request.headers.get('Authorization')
  if (!authorization) return fetch(request)
  const key = await dataKey(authorization)
  let response
  try {
    response = await fetch(request)
  } catch (error) {
    const kept = await (await caches.open(DATA_CACHE)).match(key)
    if (kept) return kept
    throw error
  }
  if (response.ok) {
    const cache = await caches.open(DATA_CACHE)
    // Only the last answer is kept: whoever was signed in before is forgotten.
    for (const old of await cache.keys()) await cache.delete(old)
    const headers = new Headers(response.headers)
    headers.set(CACHED_AT_HEADER, new Date().toISOString())
    await cache.put(
      key,
      new Response(await response.clone().arrayBuffer(), { status: 200, headers }),
    )
  } else if (response.status === 401) {
    await caches.delete(DATA_CACHE)
  }
  return response
}

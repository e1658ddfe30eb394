import { vi } from 'vitest'

/** One recorded call to the fake API. */
export type FakeCall = { method: string; path: string; search: string; body: unknown }

/** What a handler answers: a JSON body (status 200) or a full Response. */
type Answer = unknown | Response

/** Handlers keyed `'METHOD /path'` (path relative to `/api`, without the query string). */
export type FakeRoutes = Record<string, Answer | ((call: FakeCall) => Answer | Promise<Answer>)>

/** A JSON error in the API's shape (domain/api-error.ts). */
export function apiError(status: number, message: string, name = 'Error'): Response {
  return new Response(JSON.stringify({ error: { status, name, message } }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

/**
 * Replaces `fetch` with a fake of our API for the rest of the test: each `'METHOD /path'` answers
 * what its handler gives, any other call a 404 JSON error. Returns the calls made, in order.
 * `vi.unstubAllGlobals()` (or the next stub) restores it.
 */
export function stubApi(routes: FakeRoutes): FakeCall[] {
  const calls: FakeCall[] = []
  vi.stubGlobal('fetch', async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const url = new URL(request.url)
    const path = url.pathname.replace(/^\/api/, '')
    const text = await request.text()
    let body: unknown = text
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // Not JSON: keep the text.
    }
    const call: FakeCall = { method: request.method, path, search: url.search, body }
    calls.push(call)
    const handler = routes[`${request.method} ${path}`]
    if (handler === undefined) return apiError(404, `No fake for ${request.method} ${path}`)
    const answer = typeof handler === 'function' ? await handler(call) : handler
    if (answer instanceof Response) return answer
    return new Response(JSON.stringify(answer), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  })
  return calls
}

import { afterEach, beforeEach, vi } from 'vitest'

/**
 * Replaces the global `fetch` with a mock for every test of the calling file (reset before each
 * test, removed after it) and returns the mock, for the tests to program and inspect.
 */
export function stubFetch() {
  const fetchMock = vi.fn<(request: Request) => Promise<Response>>()
  beforeEach(() => {
    fetchMock.mockReset()
    vi.stubGlobal('fetch', fetchMock)
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })
  return fetchMock
}

/** A JSON answer with the given status. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

/** The error a call rejects with (the test fails if the call succeeds). */
export async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('the call succeeded')
}

import { HTTPError, TimeoutError } from 'ky'
import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { failureOf, json, stubFetch } from '#src/lib/testing/fetch-stub.ts'
import { demoSession as session } from '#tests/support/demo-session.ts'
import {
  apiBaseUrl,
  apiErrorMessage,
  FALLBACK_ERROR_MESSAGE,
  http,
  NETWORK_ERROR_MESSAGE,
  TIMEOUT_ERROR_MESSAGE,
  UNEXPECTED_ANSWER_MESSAGE,
} from './http.ts'
import { clearSession, writeSession } from './session.ts'

const fetchMock = stubFetch()

afterEach(() => {
  vi.useRealTimers()
  clearSession()
  // biome-ignore lint/suspicious/noDocumentCookie: the test sets and removes the XSRF cookie itself.
  document.cookie = 'XSRF-TOKEN=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/'
})

describe('http client', () => {
  it('resolves the API base against the page origin', () => {
    expect(apiBaseUrl('/api')).toBe(`${location.origin}/api/`)
    expect(apiBaseUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1/')
  })

  it('calls paths under the API base', async () => {
    fetchMock.mockResolvedValue(json([]))
    await http.get('patients/by-practice/3').json()
    expect(fetchMock.mock.calls[0]?.[0].url).toBe(`${location.origin}/api/patients/by-practice/3`)
  })

  it('sends the stored session as a bearer token', async () => {
    writeSession(session, false)
    fetchMock.mockResolvedValue(json({ ok: true }))
    await http.get('users').json()
    expect(fetchMock.mock.calls[0]?.[0].headers.get('Authorization')).toBe('Bearer test.jwt.token')
  })

  it('sends no Authorization header when signed out', async () => {
    fetchMock.mockResolvedValue(json({ ok: true }))
    await http.get('practice/plans').json()
    expect(fetchMock.mock.calls[0]?.[0].headers.has('Authorization')).toBe(false)
  })

  it('echoes the XSRF cookie on unsafe calls only', async () => {
    // biome-ignore lint/suspicious/noDocumentCookie: the server sets this cookie in real life.
    document.cookie = 'XSRF-TOKEN=abc%3D123; path=/'
    fetchMock.mockImplementation(async () => json({ ok: true }))
    await http.post('patients', { json: {} })
    await http.put('patients/1', { json: {} })
    await http.delete('appointments/1')
    await http.get('patients/1')
    await http.head('patients/1')
    const headers = fetchMock.mock.calls.map(([request]) => request.headers.get('X-XSRF-TOKEN'))
    expect(headers).toEqual(['abc=123', 'abc=123', 'abc=123', null, null])
  })

  it('never sends the XSRF cookie to another origin', async () => {
    // biome-ignore lint/suspicious/noDocumentCookie: the server sets this cookie in real life.
    document.cookie = 'XSRF-TOKEN=abc; path=/'
    fetchMock.mockResolvedValue(json({ ok: true }))
    await http.post('https://elsewhere.example.com/collect', { prefixUrl: '', json: {} })
    expect(fetchMock.mock.calls[0]?.[0].headers.has('X-XSRF-TOKEN')).toBe(false)
  })

  it('retries a failing GET twice but never a POST, PUT or DELETE', async () => {
    fetchMock.mockImplementation(async () => json({}, 503))
    await failureOf(http.get('users', { retry: { delay: () => 0 } }))
    expect(fetchMock).toHaveBeenCalledTimes(3)
    fetchMock.mockClear()
    await failureOf(http.post('patients', { json: {} }))
    await failureOf(http.put('patients/1', { json: {}, retry: { delay: () => 0 } }))
    await failureOf(http.delete('appointments/1', { retry: { delay: () => 0 } }))
    expect(fetchMock).toHaveBeenCalledTimes(3)
  })

  it('gives up after 15 seconds', async () => {
    vi.useFakeTimers()
    fetchMock.mockImplementation(() => new Promise<Response>(() => {}))
    const failure = failureOf(http.post('auth/local', { json: {} }))
    await vi.advanceTimersByTimeAsync(14_999)
    await vi.advanceTimersByTimeAsync(2)
    const error = await failure
    expect(error).toBeInstanceOf(TimeoutError)
    expect(await apiErrorMessage(error)).toBe(TIMEOUT_ERROR_MESSAGE)
  })
})

describe('apiErrorMessage', () => {
  it("reads the server's JSON error.message", async () => {
    fetchMock.mockResolvedValue(
      json(
        { error: { status: 400, name: 'ValidationError', message: 'Invalid Email or Password' } },
        400,
      ),
    )
    const error = await failureOf(http.post('auth/local', { json: {} }).json())
    expect(error).toBeInstanceOf(HTTPError)
    expect(await apiErrorMessage(error)).toBe('Invalid Email or Password')
  })

  it('reads a text/plain answer (check-email)', async () => {
    fetchMock.mockResolvedValue(
      new Response('Email is already taken.', {
        status: 409,
        headers: { 'content-type': 'text/plain; charset=UTF-8' },
      }),
    )
    const error = await failureOf(http.post('auth/check-email', { json: {} }).text())
    expect(await apiErrorMessage(error)).toBe('Email is already taken.')
  })

  it('never shows an HTML error page; falls back to a sentence for the status', async () => {
    fetchMock.mockResolvedValue(
      new Response('<html>Bad gateway</html>', {
        status: 502,
        headers: { 'content-type': 'text/html' },
      }),
    )
    const error = await failureOf(http.post('patients', { json: {} }))
    expect(await apiErrorMessage(error)).toBe('Something went wrong on our side. Please try again.')
  })

  it('explains a rate limit without a body', async () => {
    fetchMock.mockResolvedValue(new Response(null, { status: 429 }))
    const error = await failureOf(http.post('auth/local', { json: {} }))
    expect(await apiErrorMessage(error)).toBe(
      'Too many attempts. Please wait a few minutes and try again.',
    )
  })

  it('explains a network failure', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'))
    const error = await failureOf(http.post('auth/local', { json: {} }))
    expect(await apiErrorMessage(error)).toBe(NETWORK_ERROR_MESSAGE)
  })

  it('explains an answer of the wrong shape', async () => {
    const error = await failureOf(
      (async () => v.parse(v.object({ id: v.number() }), { id: 'x' }))(),
    )
    expect(await apiErrorMessage(error)).toBe(UNEXPECTED_ANSWER_MESSAGE)
  })

  it('has a fallback for anything else', async () => {
    expect(await apiErrorMessage(new Error('internal detail'))).toBe(FALLBACK_ERROR_MESSAGE)
    expect(await apiErrorMessage('weird')).toBe(FALLBACK_ERROR_MESSAGE)
  })
})

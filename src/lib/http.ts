import ky, { HTTPError, TimeoutError } from 'ky'
import * as v from 'valibot'
import { ApiErrorBodySchema } from '#domain/api-error.ts'
import { env } from './env.ts'
import { FALLBACK_ERROR_MESSAGE, SESSION_ENDED_MESSAGE } from './messages.ts'
import { readSession } from './session.ts'
import { UserFacingError } from './user-facing-error.ts'

/** Shown when the request never reached the server (offline, DNS, refused connection). */
export const NETWORK_ERROR_MESSAGE =
  'We could not reach the server. Check your connection and try again.'
/** Shown when the server did not answer within the timeout. */
export const TIMEOUT_ERROR_MESSAGE = 'The server is taking too long to answer. Please try again.'
// Kept in messages.ts so that views outside the API path can show it without loading ky.
export { FALLBACK_ERROR_MESSAGE }
/** Shown when an answer arrived but does not have the agreed shape. */
export const UNEXPECTED_ANSWER_MESSAGE = 'The server sent an unexpected answer. Please try again.'

const STATUS_MESSAGES: Record<number, string> = {
  401: SESSION_ENDED_MESSAGE,
  403: 'You do not have access to this.',
  404: 'We could not find what you asked for.',
  429: 'Too many attempts. Please wait a few minutes and try again.',
}

/** Timeout of every API call, in milliseconds. */
export const REQUEST_TIMEOUT_MS = 15_000

/**
 * The API base as an absolute URL with a trailing slash: `VITE_API_URL` (default `/api`) resolved
 * against the page's origin when it is relative.
 */
export function apiBaseUrl(base: string = env.VITE_API_URL): string {
  const absolute = new URL(base, globalThis.location?.origin ?? 'http://localhost').href
  return absolute.endsWith('/') ? absolute : `${absolute}/`
}

/** Reads one cookie of this page, or null. */
function readCookie(name: string): string | null {
  const cookies = globalThis.document?.cookie ?? ''
  for (const part of cookies.split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) {
      try {
        return decodeURIComponent(rest.join('='))
      } catch {
        return rest.join('=')
      }
    }
  }
  return null
}

const SAFE_METHODS = new Set(['GET', 'HEAD'])

/**
 * The one HTTP client of the SPA. Paths are relative to the API base and must not start with `/`
 * (`http.get('patients/1')`). It sends the stored session's bearer token, echoes the `XSRF-TOKEN`
 * cookie as `X-XSRF-TOKEN` on unsafe calls to our own origin, gives up after 15 s and retries only
 * GET and HEAD (twice).
 */
export const http = ky.create({
  prefixUrl: apiBaseUrl(),
  timeout: REQUEST_TIMEOUT_MS,
  retry: { limit: 2, methods: ['get', 'head'] },
  hooks: {
    beforeRequest: [
      (request) => {
        const jwt = readSession()?.jwt
        if (jwt && !request.headers.has('Authorization')) {
          request.headers.set('Authorization', `Bearer ${jwt}`)
        }
        if (SAFE_METHODS.has(request.method.toUpperCase())) return
        // The cookie is only ours to echo to our own origin; never leak it to another host.
        if (new URL(request.url).origin !== globalThis.location?.origin) return
        const xsrf = readCookie('XSRF-TOKEN')
        if (xsrf) request.headers.set('X-XSRF-TOKEN', xsrf)
      },
    ],
  },
})

const JsonMessageSchema = v.object({ message: v.pipe(v.string(), v.nonEmpty()) })

async function messageFromResponse(response: Response): Promise<string | null> {
  const type = response.headers.get('content-type') ?? ''
  let text: string
  try {
    // Clone: the caller may still want to read the body itself.
    text = (await response.clone().text()).trim()
  } catch {
    return null
  }
  if (text === '') return null
  if (type.includes('json')) {
    try {
      const body: unknown = JSON.parse(text)
      const apiError = v.safeParse(ApiErrorBodySchema, body)
      if (apiError.success && apiError.output.error.message.trim() !== '') {
        return apiError.output.error.message
      }
      const plain = v.safeParse(JsonMessageSchema, body)
      return plain.success ? plain.output.message : null
    } catch {
      return null
    }
  }
  // `POST /auth/check-email` answers text/plain; its failure text is what the user reads.
  if (type.startsWith('text/plain') && text.length <= 500) return text
  return null
}

/**
 * Turns any failure of an API call into the sentence the user should read: the server's
 * `error.message` (JSON) or its text/plain answer, else a clear message for network failures,
 * timeouts, unexpected answers and well-known statuses.
 */
export async function apiErrorMessage(error: unknown): Promise<string> {
  if (error instanceof HTTPError) {
    const message = await messageFromResponse(error.response)
    if (message) return message
    const status = error.response.status
    if (STATUS_MESSAGES[status]) return STATUS_MESSAGES[status]
    return status >= 500
      ? 'Something went wrong on our side. Please try again.'
      : FALLBACK_ERROR_MESSAGE
  }
  if (error instanceof TimeoutError) return TIMEOUT_ERROR_MESSAGE
  if (error instanceof v.ValiError) return UNEXPECTED_ANSWER_MESSAGE
  // fetch rejects with a TypeError when the request cannot be sent at all.
  if (error instanceof TypeError) return NETWORK_ERROR_MESSAGE
  return FALLBACK_ERROR_MESSAGE
}

/**
 * Runs an API call and turns any failure into a {@link UserFacingError}: the sentence the user
 * should read ({@link apiErrorMessage}) and the answer's status, since a refusal by permission
 * (403) is not worth trying again.
 */
export async function withUserMessage<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    const status = error instanceof HTTPError ? error.response.status : undefined
    throw new UserFacingError(await apiErrorMessage(error), { status })
  }
}

/**
 * The field messages of a 400 answer (`error.details.issues`, path → message; the first message
 * of each field), so that a form shows each refusal on its own field. Empty for anything else.
 */
export async function apiFieldErrors(error: unknown): Promise<Record<string, string>> {
  if (!(error instanceof HTTPError) || error.response.status !== 400) return {}
  try {
    const body = (await error.response.clone().json()) as {
      error?: { details?: { issues?: { path?: unknown; message?: unknown }[] } }
    }
    const fields: Record<string, string> = {}
    for (const issue of body.error?.details?.issues ?? []) {
      if (typeof issue.path !== 'string' || issue.path === '') continue
      if (typeof issue.message !== 'string') continue
      fields[issue.path] ??= issue.message
    }
    return fields
  } catch {
    return {}
  }
}

/**
 * The field a refusal is about (`error.details.field`, e.g. a 409 "name already in the catalogue"),
 * so that a form shows the sentence under that field. Null for anything else.
 */
export async function apiRefusedField(error: unknown): Promise<string | null> {
  if (!(error instanceof HTTPError) || error.response.status >= 500) return null
  try {
    const body = (await error.response.clone().json()) as {
      error?: { details?: { field?: unknown } }
    }
    const field = body.error?.details?.field
    return typeof field === 'string' && field !== '' ? field : null
  } catch {
    return null
  }
}

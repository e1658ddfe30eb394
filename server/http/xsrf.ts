import { timingSafeEqual } from 'node:crypto'
import { getCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { ApiError } from '#server/http/errors.ts'

/** The cookie the server hands to a browser with each page, and the header the SPA echoes it in. */
export const XSRF_COOKIE = 'XSRF-TOKEN'
export const XSRF_HEADER = 'X-XSRF-TOKEN'

/** What a browser request without the matching header is told. */
export const XSRF_MESSAGE =
  'This request could not be verified. Please reload the page and try again.'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * Double-submit check (docs/decisions/001-xsrf-double-submit.md): an unsafe
 * request (not GET, HEAD or OPTIONS) that carries the `XSRF-TOKEN` cookie comes from a browser
 * that loaded our page, so its `X-XSRF-TOKEN` header must equal the cookie, else 403. A request
 * without the cookie is a bearer-token API client (curl, another server, a test) and passes: it
 * has no ambient credentials a forged request could ride on.
 */
export function xsrfCheck() {
  return createMiddleware(async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) {
      const cookie = getCookie(c, XSRF_COOKIE)
      if (cookie !== undefined) {
        const header = c.req.header(XSRF_HEADER)
        if (!header || !sameSecret(header, cookie)) {
          throw new ApiError(403, API_ERROR_NAMES.forbidden, XSRF_MESSAGE)
        }
      }
    }
    await next()
  })
}

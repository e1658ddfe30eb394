import { randomBytes } from 'node:crypto'

/**
 * A random, URL-safe token of `bytes` random bytes (default 32 = 256 bits), for ids that travel in
 * links: invitations, unsubscribe links, reset codes, verification ids, the XSRF cookie.
 */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

import { isIP } from 'node:net'
import type { Context } from 'hono'

/** Whether an address is on the loopback interface: 127.0.0.0/8, ::1 or their IPv4-mapped form. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.trim().replace(/^\[|\]$/g, '')
  const v4 = bare.toLowerCase().startsWith('::ffff:') ? bare.slice(7) : bare
  if (isIP(v4) === 4) return v4.startsWith('127.')
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1'
}

/** Whether a listen address (HOST) keeps the server on this machine: `localhost` or loopback. */
export function isLoopbackHost(host: string): boolean {
  return host.trim().toLowerCase() === 'localhost' || isLoopbackAddress(host)
}

// Node's request as @hono/node-server hands it over in `c.env.incoming`.
type NodeBindings = { incoming?: { socket?: { remoteAddress?: string | undefined } } } | undefined

/**
 * Whether the request came over the loopback interface, judged by the TCP peer of the socket and
 * never by a header (Host, X-Forwarded-For and Origin are the client's to write). A request with
 * no socket at all is an in-process call (`app.request` in tests), which no network client can
 * make.
 */
export function fromLoopback(c: Context): boolean {
  const incoming = (c.env as NodeBindings)?.incoming
  if (!incoming) return true
  const remote = incoming.socket?.remoteAddress
  return remote !== undefined && isLoopbackAddress(remote)
}

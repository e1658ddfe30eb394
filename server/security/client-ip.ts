import type { Context } from 'hono'

/** How the app finds the caller's address for per-address rate limits and the audit trail. */
export type ClientIpOptions = {
  /**
   * Trust the last `X-Forwarded-For` entry (TRUST_PROXY). Only right when exactly one reverse
   * proxy or load balancer stands in front of the server and appends the address it saw; without
   * one, any client could write the header and pick its own address.
   */
  trustProxy?: boolean | undefined
}

// Node's request as @hono/node-server hands it over in `c.env.incoming`.
type NodeBindings = { incoming?: { socket?: { remoteAddress?: string | undefined } } } | undefined

/** Strips the IPv4-mapped IPv6 prefix, so `::ffff:10.0.0.1` and `10.0.0.1` count as one address. */
function normalise(address: string): string {
  const trimmed = address.trim()
  return trimmed.startsWith('::ffff:') && trimmed.includes('.') ? trimmed.slice(7) : trimmed
}

/** An address as it may appear in X-Forwarded-For: IPv4 or IPv6 characters only, bounded length. */
const ADDRESS = /^[0-9a-fA-F:.]{2,45}$/

/**
 * The caller's address: the TCP peer of the socket, or, with `trustProxy`, the address the proxy
 * appended last to `X-Forwarded-For` (entries before it were written by the client and are
 * ignored). `'local'` when there is no socket (in-process requests in tests).
 */
export function clientIp(c: Context, { trustProxy = false }: ClientIpOptions = {}): string {
  if (trustProxy) {
    const forwarded = c.req.header('X-Forwarded-For')
    const last = forwarded?.split(',').at(-1)?.trim()
    if (last && ADDRESS.test(last)) return normalise(last)
  }
  const socket = (c.env as NodeBindings)?.incoming?.socket
  return socket?.remoteAddress ? normalise(socket.remoteAddress) : 'local'
}

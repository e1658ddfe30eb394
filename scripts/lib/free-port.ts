import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** A free TCP port on the loopback interface (the OS picks one; it is free when this resolves). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => done(port))
    })
  })
}

function isFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer()
    server.once('error', () => done(false))
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)))
  })
}

/**
 * The first port the system hands out as the source port of outgoing connections (Linux:
 * /proc/sys/net/ipv4/ip_local_port_range, 32768 by default). A port chosen above it can be taken
 * by any connection between the check and the server's listen: one CI run lost a browser worker's
 * server that way (EADDRINUSE on 34244).
 */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
    if (low !== undefined && Number.isInteger(low) && low > 12_000) return low
  } catch {
    // Not Linux: the range most systems use starts at 49152; 32768 is below it and below Linux's.
  }
  return 32_768
}

/**
 * The first of `count` consecutive free TCP ports on the loopback interface, between 10000 and
 * the start of the ephemeral range, so that no outgoing connection takes one of them before the
 * servers listen.
 */
export async function freePortRange(count: number): Promise<number> {
  const low = 10_000
  const span = ephemeralStart() - count - low
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = low + Math.floor(Math.random() * span)
    let free = true
    for (let port = first; free && port < first + count; port++) free = await isFree(port)
    if (free) return first
  }
  throw new Error(`No ${count} consecutive free ports found on 127.0.0.1`)
}

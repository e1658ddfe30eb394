import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { freePortRange } from './free-port.ts'

/** Where Linux starts handing out source ports (32768 elsewhere or by default). */
function ephemeralStart(): number {
  try {
    return Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    )
  } catch {
    return 32_768
  }
}

describe('freePortRange', () => {
  it('picks consecutive free ports below the range outgoing connections take theirs from', async () => {
    for (let i = 0; i < 20; i++) {
      const first = await freePortRange(8)
      expect(first).toBeGreaterThanOrEqual(10_000)
      expect(first + 8).toBeLessThanOrEqual(ephemeralStart())
    }
    // And the ports are free: a server listens on the last of them.
    const first = await freePortRange(8)
    const server = createServer()
    await new Promise<void>((done, fail) => {
      server.once('error', fail)
      server.listen(first + 7, '127.0.0.1', done)
    })
    await new Promise((done) => server.close(done))
  })
})

import { join } from 'node:path'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import {
  type ChildServer,
  freePort,
  ROOT,
  removeDir,
  spawnServer,
  TSX,
  tempDataDir,
  waitFor200,
} from './processes.ts'
import { median, percentile } from './stats.ts'

/** What the sign-in flood measured. */
export type SignInFlood = {
  addresses: number
  perAddress: number
  concurrency: number
  /** Real sign-ins (the demo Admin, from an address of its own) while the flood ran. */
  real: { requests: number; medianMs: number; p90Ms: number; statusCounts: Record<string, number> }
  /** The same sign-ins on the idle server, before the flood. */
  idleMedianMs: number
  flood: { requests: number; seconds: number; statusCounts: Record<string, number> }
}

const FLOOD_PASSWORD = 'Wrong-Password-1'

async function post(
  url: string,
  body: unknown,
  address: string,
): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
    body: JSON.stringify(body),
  })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started }
}

/**
 * The real server (`server/index.ts`, PGlite in a temp DATA_DIR, TRUST_PROXY so that every
 * caller names its address in `X-Forwarded-For`) is flooded with wrong passwords from `addresses`
 * addresses, `perAddress` each (under the per-address limit), `concurrency` at a time, for at most
 * `maxSeconds`; meanwhile the demo Admin signs in from an address of its own, one request every
 * `realEveryMs`. The medians of those real sign-ins, on the idle server and during the flood,
 * are the figures.
 */
export async function benchSignInFlood({
  addresses = 200,
  perAddress = 29,
  concurrency = 64,
  maxSeconds = 30,
  realEveryMs = 50,
}: {
  addresses?: number
  perAddress?: number
  concurrency?: number
  maxSeconds?: number
  realEveryMs?: number
} = {}): Promise<SignInFlood> {
  const dataDir = tempDataDir('flood')
  let server: ChildServer | undefined
  try {
    const port = await freePort()
    server = spawnServer(TSX, [join(ROOT, 'server', 'index.ts')], {
      port,
      env: {
        DATA_DIR: dataDir,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        TRUST_PROXY: 'true',
        NODE_ENV: 'development',
      },
    })
    await waitFor200(`${server.url}/api/health`, { since: performance.now(), child: server.child })
    const url = `${server.url}/api/auth/local`
    const real = { identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }
    const realAddress = '192.0.2.10'

    const idle: number[] = []
    for (let i = 0; i < 12; i++) idle.push((await post(url, real, realAddress)).ms)

    // Every address's attempts, interleaved so that all addresses are busy from the start.
    const queue: { address: string; identifier: string }[] = []
    for (let round = 0; round < perAddress; round++) {
      for (let a = 0; a < addresses; a++) {
        queue.push({
          address: `10.0.${Math.floor(a / 250)}.${(a % 250) + 1}`,
          identifier: `flood-${a}-${round}@example.com`,
        })
      }
    }
    const floodCounts: Record<string, number> = {}
    const realCounts: Record<string, number> = {}
    const realTimes: number[] = []
    const started = performance.now()
    const deadline = started + maxSeconds * 1000
    let done = false
    let sent = 0
    const worker = async () => {
      while (!done && performance.now() < deadline) {
        const next = queue.shift()
        if (!next) return
        const { status } = await post(
          url,
          { identifier: next.identifier, password: FLOOD_PASSWORD },
          next.address,
        ).catch(() => ({ status: 0, ms: 0 }))
        sent += 1
        floodCounts[status] = (floodCounts[status] ?? 0) + 1
      }
    }
    const realLoop = async () => {
      // Let the flood build up first.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      while (!done && performance.now() < deadline) {
        const { status, ms } = await post(url, real, realAddress)
        realTimes.push(ms)
        realCounts[status] = (realCounts[status] ?? 0) + 1
        await new Promise((resolve) => setTimeout(resolve, realEveryMs))
      }
    }
    const real$ = realLoop()
    await Promise.all(Array.from({ length: concurrency }, worker))
    const seconds = (performance.now() - started) / 1000
    done = true
    await real$
    return {
      addresses,
      perAddress,
      concurrency,
      real: {
        requests: realTimes.length,
        medianMs: median(realTimes),
        p90Ms: percentile(realTimes, 90),
        statusCounts: realCounts,
      },
      idleMedianMs: median(idle),
      flood: { requests: sent, seconds, statusCounts: floodCounts },
    }
  } finally {
    await server?.stop()
    removeDir(dataDir)
  }
}

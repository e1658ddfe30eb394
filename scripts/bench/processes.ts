import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export { freePort } from '#scripts/lib/free-port.ts'

/** The project root (scripts/bench/ is two levels below it). */
export const ROOT = resolve(import.meta.dirname, '..', '..')

/** A new empty folder under the system temp folder, for a server's PGlite data. */
export function tempDataDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `glow-bench-${label}-`))
}

/** Removes a folder made by {@link tempDataDir}. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

/** A server process this script started. */
export type ChildServer = {
  /** `http://127.0.0.1:PORT` */
  url: string
  child: ChildProcess
  /** Stops the process group (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>
}

/**
 * Starts `command args` in its own process group with `env` added, keeping the last lines of its
 * output for the error message when it dies early.
 */
export function spawnServer(
  command: string,
  args: string[],
  { port, env = {} }: { port: number; env?: Record<string, string> },
): ChildServer {
  // As a plain `npm start` runs: the caller's NODE_ENV (say, test) would change the server's mode.
  const { NODE_ENV: _mode, ...inherited } = process.env
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...inherited, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that stop() also ends the node process tsx starts.
    detached: true,
  })
  const tail: string[] = []
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString().split('\n').filter(Boolean))
    tail.splice(0, Math.max(0, tail.length - 20))
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  let stopping = false
  child.once('exit', (code, signal) => {
    if (!stopping && code && code !== 0 && !signal) {
      console.error(`${command} ${args.join(' ')} exited with ${code}:\n${tail.join('\n')}`)
    }
  })
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
    try {
      process.kill(-child.pid, signal)
    } catch {
      // Already gone.
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      stopping = true
      signalGroup('SIGTERM')
      const timer = setTimeout(() => signalGroup('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}

/**
 * Polls `url` until it answers 200 and returns the milliseconds since `since`
 * (a `performance.now()` value). Fails when the process exits first or after `timeoutMs`.
 */
export async function waitFor200(
  url: string,
  {
    since,
    child,
    timeoutMs = 120_000,
  }: { since: number; child?: ChildProcess; timeoutMs?: number },
): Promise<number> {
  const deadline = since + timeoutMs
  while (performance.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`the server exited before ${url} answered`)
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
      await response.arrayBuffer()
      if (response.status === 200) return performance.now() - since
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 20))
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
}

/** The tsx launcher, as `npm start` runs it. */
export const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

/**
 * Starts the real server the way `npm start` does (`tsx scripts/start.ts`: build when stale, then
 * boot) on `port` with PGlite in `dataDir`, and waits for `/api/health`. Like a local `npm start`
 * it is not in production mode, so the development outbox (SMS codes) is there for the wizard.
 */
export async function startAppServer({
  port,
  dataDir,
}: {
  port: number
  dataDir: string
}): Promise<ChildServer & { readyMs: number }> {
  const started = performance.now()
  const server = spawnServer(TSX, ['scripts/start.ts'], {
    port,
    env: { DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}` },
  })
  try {
    const readyMs = await waitFor200(`${server.url}/api/health`, {
      since: started,
      child: server.child,
    })
    return { ...server, readyMs }
  } catch (error) {
    await server.stop()
    throw error
  }
}

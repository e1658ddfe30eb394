/**
 * One autocannon run in a process of its own (the load generator must not share an event loop
 * with a server), driven through autocannon's API so that each request can carry its own body:
 * the CLI's `-I` id replacement keeps the template's Content-Length and breaks longer bodies.
 * Reads its options as JSON from argv[2] and prints autocannon's result as JSON.
 */
import { createRequire } from 'node:module'

/** What scripts/bench/api.ts asks for. */
export type LoadRunnerOptions = {
  url: string
  connections: number
  durationSeconds: number
  method: 'GET' | 'POST'
  /** A JSON body; `[<id>]` in it becomes a new number on every request. */
  body?: string
}

type Request = { method: string; path: string; headers: Record<string, string>; body?: string }
type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: unknown) => void,
) => unknown

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon
const options = JSON.parse(process.argv[2] ?? '{}') as LoadRunnerOptions
const url = new URL(options.url)
let sequence = 0
const template = options.body

const numbered = template?.includes('[<id>]') ?? false
const headers: Record<string, string> =
  template === undefined ? {} : { 'content-type': 'application/json' }

autocannon(
  numbered
    ? {
        url: url.origin,
        connections: options.connections,
        duration: options.durationSeconds,
        requests: [
          {
            method: options.method,
            path: url.pathname,
            headers,
            setupRequest: (request: Request) => ({
              ...request,
              body: template?.replaceAll('[<id>]', String(++sequence)),
            }),
          },
        ],
      }
    : // A fixed request is built once: the fastest the generator goes.
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        method: options.method,
        headers,
        ...(template === undefined ? {} : { body: template }),
      },
  (error, result) => {
    if (error) {
      console.error(error)
      process.exit(1)
    }
    process.stdout.write(JSON.stringify(result))
  },
)

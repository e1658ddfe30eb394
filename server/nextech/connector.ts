import { createNextechClient, NEXTECH_PRODUCTION, type NextechClient } from './client.ts'
import { createNextechSandbox, NEXTECH_SANDBOX, type NextechSandbox } from './sandbox.ts'
import type { Waiting } from './throttle.ts'

/** How the server reaches Nextech: a client, and the sandbox when that is what answers. */
export type NextechConnector = {
  client: NextechClient
  /** `sandbox` when the built-in sandbox answers (outside production, no address configured). */
  mode: 'sandbox' | 'nextech'
  /** The sandbox, served under `/nextech-sandbox` outside production. */
  sandbox?: NextechSandbox
  /** How the sync waits between requests and retries; real timers unless a test says. */
  waiting?: Waiting
}

/**
 * The connector for `config`: Nextech at the configured addresses (always in production, where
 * they default to Nextech's own), else the built-in sandbox, answered in this process. Production
 * never uses the sandbox.
 */
export function createNextechConnector(
  config: {
    production: boolean
    publicUrl: string
    nextech?: { tokenUrl: string; apiUrl: string } | undefined
  },
  now: () => Date,
): NextechConnector {
  // Production reaches Nextech at its own addresses unless told others, never the sandbox.
  const endpoints = config.nextech ?? (config.production ? NEXTECH_PRODUCTION : undefined)
  if (endpoints) {
    return { client: createNextechClient({ ...endpoints, fetch }, now), mode: 'nextech' }
  }
  const sandbox = createNextechSandbox({ now })
  const base = `${config.publicUrl}${NEXTECH_SANDBOX.mountPath}`
  return {
    client: createNextechClient(
      {
        tokenUrl: `${base}/nextech-api.com/oauth2/token`,
        apiUrl: `${base}/api`,
        fetch: sandbox.fetch,
      },
      now,
    ),
    mode: 'sandbox',
    sandbox,
  }
}

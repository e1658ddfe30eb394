/**
 * Where the replay's server and browser meet. Two names for this worker's server (one per
 * Playwright worker, tests/e2e/support/servers.ts): `127.0.0.1` is this machine (the product turns
 * the captcha off there), and `glow.test` is any other host (captcha on, no sign-up test mode, and
 * not an origin the server sends reset links to). Chromium maps `glow.test` to 127.0.0.1 and
 * treats it as a secure origin, as a real HTTPS host would be.
 */
import { REMOTE_HOST, workerPort } from '#tests/e2e/support/servers.ts'

/** Port of this worker's server (Playwright numbers its worker slots in TEST_PARALLEL_INDEX). */
export const PATHS_PORT = workerPort(Number(process.env.TEST_PARALLEL_INDEX ?? 0))

/** The server as this machine sees it. */
export const LOCAL_ORIGIN = `http://127.0.0.1:${PATHS_PORT}`

/** The same server under a name that is not this machine. */
export const REMOTE_ORIGIN = `http://${REMOTE_HOST}:${PATHS_PORT}`

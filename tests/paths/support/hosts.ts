/**
 * Where the replay's server and browser meet. Two names for one server: `127.0.0.1` is this
 * machine (the product turns the captcha off there), and `glow.test` is any other host (captcha
 * on, no sign-up test mode, and not an origin the server sends reset links to). Chromium maps
 * `glow.test` to 127.0.0.1 and treats it as a secure origin, as a real HTTPS host would be.
 */

/** Port of the replay's server: `npm run test:paths` picks a free one. */
export const PATHS_PORT = Number(process.env.PATHS_PORT ?? 4320)

/** The server as this machine sees it. */
export const LOCAL_ORIGIN = `http://127.0.0.1:${PATHS_PORT}`

/** The same server under a name that is not this machine. */
export const REMOTE_HOST = 'glow.test'
export const REMOTE_ORIGIN = `http://${REMOTE_HOST}:${PATHS_PORT}`

/** Chromium flags that make `glow.test` reach the server and count as a secure origin. */
export const REMOTE_HOST_ARGS = [
  `--host-resolver-rules=MAP ${REMOTE_HOST} 127.0.0.1`,
  `--unsafely-treat-insecure-origin-as-secure=${REMOTE_ORIGIN}`,
]

/** Bundle of the replay (relative to the project): the app built with a captcha site key. */
export const PATHS_DIST = '.tmp/paths/dist'

/** hCaptcha's published test site key; any key turns the widget on. */
export const PATHS_SITE_KEY = '10000000-ffff-ffff-ffff-000000000001'

import { existsSync } from 'node:fs'

/** Flags for headless Chromium on our machines (no GPU, no network beyond loopback). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/**
 * Debian's `chromium-headless-shell`: the same Chromium release built as the headless shell
 * (Chromium's "old headless", which Playwright itself runs for headless tests), without the full
 * browser around the page. The browser stages prefer it: the same Blink renders the same pages
 * for about four fifths of the time (decision record 013).
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'

/**
 * The Chromium executable: CHROMIUM_PATH, else Debian's (its headless shell first when
 * `headlessShell`, for the test stages), else undefined.
 */
export function findChromium({ headlessShell = false } = {}): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined
  const candidates = headlessShell ? [HEADLESS_SHELL, ...CANDIDATES] : CANDIDATES
  return candidates.find((candidate) => existsSync(candidate))
}

/** The Chromium executable ({@link findChromium}), or an error that says how to install it. */
export function chromiumPath(options: { headlessShell?: boolean } = {}): string {
  const found = findChromium(options)
  if (!found) {
    throw new Error(
      'No Chromium found for the end-to-end tests. Install it with `apt-get install -y chromium` ' +
        '(Debian) or point CHROMIUM_PATH at a Chromium or Chrome executable.',
    )
  }
  return found
}

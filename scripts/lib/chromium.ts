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

/** The Chromium executable: CHROMIUM_PATH, else Debian's, else undefined. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined
  return CANDIDATES.find((candidate) => existsSync(candidate))
}

/** The Chromium executable, or an error that says how to install it. */
export function chromiumPath(): string {
  const found = findChromium()
  if (!found) {
    throw new Error(
      'No Chromium found for the end-to-end tests. Install it with `apt-get install -y chromium` ' +
        '(Debian) or point CHROMIUM_PATH at a Chromium or Chrome executable.',
    )
  }
  return found
}

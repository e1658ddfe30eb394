import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** What the guard script sets on <html> when this browser holds a wallet session. */
export const WALLET_SESSION_ATTRIBUTE = 'data-wallet-session'
/** What #root carries while it holds the prerendered sign-in. */
export const WALLET_PRERENDERED_ATTRIBUTE = 'data-wallet-prerendered'

/**
 * The guard, run in the head before the first paint: a patient who holds a session for this
 * practice's wallet is not shown the prerendered sign-in (wallet.css hides it) while the app loads.
 */
const GUARD = `(function(){try{var m=/^\\/wallet\\/(\\d+)/.exec(location.pathname);if(m&&localStorage.getItem('glow.wallet.session.'+m[1]))document.documentElement.setAttribute('${WALLET_SESSION_ATTRIBUTE}','')}catch(e){}})();\n`

/**
 * Puts the wallet's signed-out screen (src/wallet/prerender.tsx) into `<outDir>/wallet.html`'s
 * #root, rendered through Vite's SSR loader with the wallet's own configuration, and the guard
 * script (content-hashed under assets/) first in its head.
 */
export async function prerenderWallet(root: string, outDir: string): Promise<void> {
  const { createServer } = await import('vite')
  const server = await createServer({
    root,
    configFile: resolve(root, 'vite.wallet.config.ts'),
    logLevel: 'warn',
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  })
  let markup: string
  try {
    const module = (await server.ssrLoadModule('/src/wallet/prerender.tsx')) as {
      renderSignedOutScreen: () => string
    }
    markup = module.renderSignedOutScreen()
  } finally {
    await server.close()
  }
  const dist = resolve(root, outDir)
  const hash = createHash('sha256').update(GUARD).digest('base64url').slice(0, 8)
  const guard = `/assets/wallet-guard-${hash.replace(/[^\w]/g, '_')}.js`
  writeFileSync(join(dist, guard), GUARD)
  const page = join(dist, 'wallet.html')
  const html = readFileSync(page, 'utf8')
  if (!html.includes('<div id="root"></div>')) throw new Error('wallet.html has no empty #root')
  writeFileSync(
    page,
    html
      .replace('<head>', `<head>\n    <script src="${guard}"></script>`)
      .replace(
        '<div id="root"></div>',
        `<div id="root" ${WALLET_PRERENDERED_ATTRIBUTE}>${markup}</div>`,
      ),
  )
}

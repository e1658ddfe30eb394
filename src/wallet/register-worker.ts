/**
 * Registers the wallet's service worker (public/wallet/sw.js), scoped to /wallet/: it keeps the
 * page's shell and the last `/api/wallet/me` answer for offline reading. After the page has
 * loaded, so that it never competes with the first paint.
 */
export function registerWalletWorker(): void {
  if (!('serviceWorker' in navigator)) return
  const register = () => {
    navigator.serviceWorker.register('/wallet/sw.js', { scope: '/wallet/' }).catch(() => {
      // Without it the wallet works online; only offline reading is lost.
    })
  }
  if (document.readyState === 'complete') register()
  else window.addEventListener('load', register, { once: true })
}

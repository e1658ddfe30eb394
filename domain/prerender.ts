/**
 * Prerendered pages (src/lib/prerender-contract.ts): the names the build, the server
 * and the browser share.
 */

/** The build's file in dist/ with each page's markup (read by the server, never served itself). */
export const PRERENDERED_FILE = 'prerendered.json'

/** `#root`'s attribute naming the address its markup was rendered for. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered'

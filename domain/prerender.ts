/**
 * Prerendered pages (src/lib/prerender-contract.ts): the names the build, the server
 * and the browser share.
 */

/** The build's file in dist/ with each page's markup (read by the server, never served itself). */
export const PRERENDERED_FILE = 'prerendered.json'

/** `#root`'s attribute naming the address its markup was rendered for. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered'

/**
 * The `<template>` in a prerendered page's head that holds its scripts (the entry and the page's
 * module preloads). The guard script moves them into the head once the page has painted, so that
 * none of them is asked for before the first paint, which needs only the markup, the style
 * sheets and the logo.
 */
export const AFTER_PAINT_TEMPLATE_ID = 'glow-after-paint'

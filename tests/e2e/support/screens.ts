/**
 * A screen checked at the two widths we promise (1440 and 390 px): axe clean and nothing wider
 * than the screen, in every run. Pictures of it are taken only by `npm run screenshots`, which sets
 * SHOTS_DIR (the committed ones live in docs/screenshots): a test run never rewrites them, and does
 * not spend its time taking them.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from '@playwright/test'
import { axeViolations, expect, settled } from './fixtures.ts'

/** The desktop and phone sizes every screen is checked at. */
export const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const

/** Whether the page is wider than the window: something would scroll sideways. */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
  )
}

/**
 * Checks `page` at both widths under `name`: axe and no sideways scrolling. With SHOTS_DIR set, a
 * picture of each width goes to `SHOTS_DIR/<folder>/<name>-<width>.png`: of the part in question
 * when `focus` is given (scrolled into view, no focus ring left from a click), else of the page.
 */
export async function checkScreen(
  page: Page,
  folder: string,
  name: string,
  focus?: Locator,
): Promise<void> {
  const shots = process.env.SHOTS_DIR
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport)
    await settled(page)
    expect(await axeViolations(page), `axe on ${name} at ${viewport.width} px`).toEqual([])
    expect(await scrollsSideways(page), `${name} scrolls sideways at ${viewport.width} px`).toBe(
      false,
    )
    if (!shots) continue
    mkdirSync(join(shots, folder), { recursive: true })
    if (focus) {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
      await focus.scrollIntoViewIfNeeded()
    }
    await page.screenshot({
      path: join(shots, folder, `${name}-${viewport.width}.png`),
      fullPage: !focus,
      animations: 'disabled',
    })
  }
  await page.setViewportSize(VIEWPORTS[0])
}

/** {@link checkScreen} with its folder fixed: `const shoot = screens('issue-19')`. */
export function screens(folder: string) {
  return (page: Page, name: string, focus?: Locator) => checkScreen(page, folder, name, focus)
}

/**
 * A picture of the page as `SHOTS_DIR/<folder>/<file>`, under `npm run screenshots` only (a test
 * run takes none).
 */
export async function shot(page: Page, folder: string, file: string, fullPage = true) {
  const shots = process.env.SHOTS_DIR
  if (!shots) return
  mkdirSync(join(shots, folder), { recursive: true })
  await page.screenshot({ path: join(shots, folder, file), fullPage, animations: 'disabled' })
}

import type { Locator, Page } from '@playwright/test'

/** Picks `file` with an upload button, through the browser's file chooser. */
export async function pick(
  page: Page,
  button: Locator,
  file: Parameters<Locator['setInputFiles']>[0],
): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()])
  await chooser.setFiles(file)
}

/** Whether an <img> finished loading and has pixels: the served bytes decode. */
export const decoded = (image: Locator): Promise<boolean> =>
  image.evaluate((element) => {
    const img = element as HTMLImageElement
    return img.complete && img.naturalWidth > 0
  })

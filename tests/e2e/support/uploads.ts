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

/** A file named and declared as a PNG with an HTML page inside: the server must read the content. */
export const HTML_AS_PNG = {
  name: 'logo.png',
  mimeType: 'image/png',
  buffer: Buffer.from('<!doctype html><html><script>alert(document.cookie)</script></html>'),
}

/** Whether an <img> finished loading and has pixels: the served bytes decode. */
export const decoded = (image: Locator): Promise<boolean> =>
  image.evaluate((element) => {
    const img = element as HTMLImageElement
    return img.complete && img.naturalWidth > 0
  })

/** What {@link drawnLogo} paints: a background, an optional round mark (with an initial) and a name. */
export type LogoDrawing = {
  width: number
  height: number
  background: string
  /** A disc of this colour at the left, with an initial in white when given. */
  mark?: { colour: string; initial?: string }
  name: { text: string; colour: string; font: string; x: number; y: number }
}

/** A practice logo drawn in the page's own canvas, as the PNG bytes a person would pick. */
export async function drawnLogo(page: Page, drawing: LogoDrawing): Promise<Buffer> {
  const dataUrl = await page.evaluate(({ width, height, background, mark, name }) => {
    const canvas = document.createElement('canvas')
    canvas.width = width
    canvas.height = height
    const g = canvas.getContext('2d') as CanvasRenderingContext2D
    g.fillStyle = background
    g.fillRect(0, 0, width, height)
    if (mark) {
      g.fillStyle = mark.colour
      g.beginPath()
      g.arc(48, 48, 34, 0, Math.PI * 2)
      g.fill()
      if (mark.initial) {
        g.fillStyle = '#ffffff'
        g.font = 'bold 36px sans-serif'
        g.fillText(mark.initial, 36, 61)
      }
    }
    g.fillStyle = name.colour
    g.font = name.font
    g.fillText(name.text, name.x, name.y)
    return canvas.toDataURL('image/png')
  }, drawing)
  return Buffer.from(dataUrl.split(',')[1] as string, 'base64')
}

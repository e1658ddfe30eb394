import { deflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { fixture, pngChunk } from '#tests/support/image-fixtures.ts'
import { cleanImage, decodesToItsSize } from './images.ts'

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))
const u32 = (...values: number[]) => {
  const out = new Uint8Array(values.length * 4)
  values.forEach((value, i) => {
    new DataView(out.buffer).setUint32(i * 4, value)
  })
  return out
}
const ihdr = (width: number, height: number, interlaced: boolean) =>
  pngChunk('IHDR', concat(u32(width, height), new Uint8Array([8, 2, 0, 0, interlaced ? 1 : 0])))
const png = (...chunks: Uint8Array[]) =>
  concat(PNG_SIGNATURE, ...chunks, pngChunk('IEND', new Uint8Array(0)))

/**
 * The raw size of an Adam7 picture, counted pixel by pixel (which pass each pixel belongs to)
 * rather than by the formula the server uses: RGB, 8 bits, so 3 bytes a pixel.
 */
function adam7Raw(width: number, height: number): number {
  const pass = (x: number, y: number) =>
    [
      [0, 0, 8, 8],
      [4, 0, 8, 8],
      [0, 4, 4, 8],
      [2, 0, 4, 4],
      [0, 2, 2, 4],
      [1, 0, 2, 2],
      [0, 1, 1, 2],
    ].findIndex(([x0, y0, dx, dy]) => x % (dx as number) === x0 && y % (dy as number) === y0)
  let total = 0
  for (let p = 0; p < 7; p++) {
    const columns = new Set<number>()
    const rows = new Set<number>()
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (pass(x, y) === p) {
          columns.add(x)
          rows.add(y)
        }
      }
    }
    if (columns.size > 0) total += rows.size * (1 + columns.size * 3)
  }
  return total
}

const decodes = async (bytes: Uint8Array) => {
  const image = cleanImage(bytes)
  if (!image.ok) return image.reason
  return (await decodesToItsSize(image)) ? [image.width, image.height] : 'damaged'
}

describe('the size of a picture, declared and decoded', () => {
  it('reads the three committed images as 16 × 16, which their data holds', async () => {
    for (const name of ['tiny.png', 'tiny.jpg', 'tiny.webp'] as const) {
      expect(await decodes(fixture(name))).toEqual([16, 16])
    }
  })

  it.each([
    [1, 1],
    [3, 5],
    [17, 9],
    [8, 8],
  ])(
    'takes an interlaced %i × %i PNG whose seven passes hold its pixels, and no byte less or more',
    async (width, height) => {
      const raw = adam7Raw(width, height)
      const picture = (bytes: number) =>
        png(ihdr(width, height, true), pngChunk('IDAT', deflateSync(new Uint8Array(bytes))))
      expect(await decodes(picture(raw))).toEqual([width, height])
      expect(await decodes(picture(raw - 1))).toBe('damaged')
      expect(await decodes(picture(raw + 1))).toBe('damaged')
    },
  )

  it('checks each APNG frame inside the picture, and its data against its own size', async () => {
    const frame = (sequence: number, width: number, height: number, x: number, y: number) =>
      pngChunk(
        'fcTL',
        concat(u32(sequence, width, height, x, y), new Uint8Array([0, 1, 0, 10, 0, 0])),
      )
    const data = (width: number, height: number) =>
      deflateSync(new Uint8Array(height * (1 + width * 3)))
    const animation = (second: Uint8Array, secondData: Uint8Array) =>
      png(
        ihdr(20, 10, false),
        pngChunk('acTL', u32(2, 0)),
        frame(0, 20, 10, 0, 0),
        pngChunk('IDAT', data(20, 10)),
        second,
        pngChunk('fdAT', concat(u32(2), secondData)),
      )
    expect(await decodes(animation(frame(1, 8, 4, 12, 6), data(8, 4)))).toEqual([20, 10])
    // The frames' pixels together: the IDAT picture is the first frame, then 8 × 4.
    const cleaned = cleanImage(animation(frame(1, 8, 4, 12, 6), data(8, 4)))
    expect(cleaned.ok && cleaned.framePixels).toBe(20 * 10 + 8 * 4)
    expect(cleanImage(fixture('tiny.webp'))).toMatchObject({ framePixels: 256 })
    // A frame that reaches outside the picture: a decoder would draw past the canvas.
    expect(await decodes(animation(frame(1, 8, 4, 13, 6), data(8, 4)))).toBe('damaged')
    // A small frame whose data holds a whole 4,000-pixel-wide picture.
    expect(await decodes(animation(frame(1, 8, 4, 12, 6), data(4000, 4)))).toBe('damaged')
  })

  it('takes one JPEG frame only', async () => {
    const jpeg = fixture('tiny.jpg')
    // The frame header (SOF0 or SOF2) repeated right after itself.
    let at = 2
    while (!(jpeg[at + 1] === 0xc0 || jpeg[at + 1] === 0xc2)) {
      at += 2 + (((jpeg[at + 2] as number) << 8) | (jpeg[at + 3] as number))
    }
    const end = at + 2 + (((jpeg[at + 2] as number) << 8) | (jpeg[at + 3] as number))
    const twice = concat(jpeg.subarray(0, end), jpeg.subarray(at, end), jpeg.subarray(end))
    expect(await decodes(twice)).toBe('damaged')
  })
})

import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { crc32, deflateSync } from 'node:zlib'

/**
 * Test support for uploads: the committed tiny images, and the same images carrying
 * the metadata a camera or an editor leaves (text, EXIF, XMP, comments, a time stamp) plus HTML
 * after their end, for the server to strip. Each marker starts with `secret-`.
 */

/** One of the committed images (16×16 px, drawn by Chromium): tiny.png, tiny.jpg, tiny.webp. */
export const fixture = (name: 'tiny.png' | 'tiny.jpg' | 'tiny.webp') =>
  new Uint8Array(readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url)))
const text = (value: string) => new TextEncoder().encode(value)
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))

function u32(value: number, littleEndian = false): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value, littleEndian)
  return out
}

/** A PNG chunk with its CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat(text(type), data)
  return concat(u32(data.length), body, u32(crc32(body)))
}

/** The fixture PNG with a text chunk, an EXIF chunk and a time stamp before IEND, and HTML after. */
export function pngWithMetadata(): Uint8Array {
  const png = fixture('tiny.png')
  const iend = png.length - 12
  return concat(
    png.subarray(0, iend),
    pngChunk('tEXt', text('Comment\0secret-gps 51.5N')),
    pngChunk('eXIf', text('MM\0*secret-exif')),
    pngChunk('tIME', new Uint8Array([7, 234, 11, 25, 8, 0, 0])),
    png.subarray(iend),
    text('<html>secret-trailer</html>'),
  )
}

/** A JPEG segment: marker and its length-prefixed body. */
function jpegSegment(marker: number, body: Uint8Array): Uint8Array {
  return concat(
    new Uint8Array([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff]),
    body,
  )
}

/** The fixture JPEG with EXIF (APP1), XMP (APP1) and a comment after SOI, and HTML after EOI. */
export function jpegWithMetadata(): Uint8Array {
  const jpeg = fixture('tiny.jpg')
  return concat(
    jpeg.subarray(0, 2),
    jpegSegment(0xe1, text('Exif\0\0MM\0*secret-exif')),
    jpegSegment(0xe1, text('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>secret-xmp</x:xmpmeta>')),
    jpegSegment(0xfe, text('secret-comment')),
    jpeg.subarray(2),
    text('<html>secret-trailer</html>'),
  )
}

/** A WebP chunk, padded to an even size. */
function webpChunk(type: string, data: Uint8Array): Uint8Array {
  const pad = data.length % 2 ? new Uint8Array(1) : new Uint8Array(0)
  return concat(text(type), u32(data.length, true), data, pad)
}

/** The fixture WebP (VP8X) with EXIF and XMP chunks, announced in its VP8X flags. */
export function webpWithMetadata(): Uint8Array {
  const webp = fixture('tiny.webp')
  const body = concat(
    webp.subarray(12),
    webpChunk('EXIF', text('MM\0*secret-exif')),
    webpChunk('XMP ', text('<x:xmpmeta>secret-xmp</x:xmpmeta>')),
  )
  body[8] = (body[8] as number) | 0x0c
  return concat(text('RIFF'), u32(body.length + 4, true), text('WEBP'), body)
}

/**
 * A PNG made here whose IHDR declares `width` × `height` (greyscale, 1 bit a pixel, or RGBA, 8 bits
 * a channel) and whose pixel data holds `rows` rows of that width: all of them by default, fewer
 * for a picture smaller than it claims (a decompression bomb that lies in its header, or a
 * truncated one), more for one larger. Rows are zeros (compressing to almost nothing) or, with
 * `noise`, random bytes (compressing not at all, to make a large file).
 */
export function pngDeclaring({
  width,
  height,
  rgba = false,
  rows = height,
  noise = false,
}: {
  width: number
  height: number
  rgba?: boolean
  rows?: number
  noise?: boolean
}): Uint8Array {
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, width)
  view.setUint32(4, height)
  header.set(rgba ? [8, 6, 0, 0, 0] : [1, 0, 0, 0, 0], 8)
  const rowBytes = 1 + Math.ceil((width * (rgba ? 32 : 1)) / 8)
  const raw = noise ? new Uint8Array(randomBytes(rows * rowBytes)) : new Uint8Array(rows * rowBytes)
  // Every row starts with its filter type: 0, none.
  for (let row = 0; row < rows; row++) raw[row * rowBytes] = 0
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', new Uint8Array(0)),
  )
}

/** The fixture JPEG with its frame header (SOF) declaring `width` × `height`. */
export function jpegDeclaring(width: number, height: number): Uint8Array {
  const jpeg = fixture('tiny.jpg').slice()
  let at = 2
  for (;;) {
    const marker = jpeg[at + 1] as number
    const length = ((jpeg[at + 2] as number) << 8) | (jpeg[at + 3] as number)
    if (marker >= 0xc0 && marker <= 0xc2) {
      jpeg.set([height >> 8, height & 0xff, width >> 8, width & 0xff], at + 5)
      return jpeg
    }
    at += 2 + length
  }
}

/**
 * The fixture WebP with its canvas (VP8X) declaring `width` × `height` (at most 16,383 a side)
 * and, unless `canvasOnly`, its bitstream (VP8 or VP8L) too.
 */
export function webpDeclaring(width: number, height: number, { canvasOnly = false } = {}) {
  const webp = fixture('tiny.webp').slice()
  const view = new DataView(webp.buffer)
  const uint24 = (at: number, value: number) =>
    webp.set([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff], at)
  for (let at = 12; at + 8 <= webp.length; ) {
    const type = String.fromCharCode(...webp.subarray(at, at + 4))
    const size = view.getUint32(at + 4, true)
    const data = at + 8
    if (type === 'VP8X') {
      uint24(data + 4, width - 1)
      uint24(data + 7, height - 1)
    } else if (type === 'VP8 ' && !canvasOnly) {
      view.setUint16(data + 6, width, true)
      view.setUint16(data + 8, height, true)
    } else if (type === 'VP8L' && !canvasOnly) {
      view.setUint32(
        data + 1,
        (view.getUint32(data + 1, true) & ~0xfffffff) | (width - 1) | ((height - 1) << 14),
        true,
      )
    }
    at = data + size + (size % 2)
  }
  return webp
}

/**
 * An animated PNG of `frames` frames, each the whole `width` × `height` picture (greyscale, 1 bit
 * a pixel, all black): every frame's data holds exactly its size.
 */
export function apngOfFrames(width: number, height: number, frames: number): Uint8Array {
  const still = pngDeclaring({ width, height })
  const view = new DataView(still.buffer, still.byteOffset, still.byteLength)
  // The still PNG is signature, IHDR (25 bytes), IDAT, IEND (12 bytes).
  const idatLength = view.getUint32(33)
  const idat = still.subarray(33, 33 + 12 + idatLength)
  const data = idat.subarray(8, 8 + idatLength)
  const frameControl = (sequence: number) => {
    const body = new Uint8Array(26)
    const fields = new DataView(body.buffer)
    fields.setUint32(0, sequence)
    fields.setUint32(4, width)
    fields.setUint32(8, height)
    fields.setUint16(20, 1)
    fields.setUint16(22, 10)
    return pngChunk('fcTL', body)
  }
  const parts = [still.subarray(0, 33), pngChunk('acTL', concat(u32(frames), u32(0)))]
  parts.push(frameControl(0), idat)
  let sequence = 1
  for (let frame = 1; frame < frames; frame++) {
    parts.push(frameControl(sequence), pngChunk('fdAT', concat(u32(sequence + 1), data)))
    sequence += 2
  }
  parts.push(still.subarray(still.length - 12))
  return concat(...parts)
}

import { crc32, createInflate } from 'node:zlib'
import type { UploadMediaType } from '#domain/uploads.ts'
import { concatBytes } from '#server/lib/bytes.ts'

/**
 * Image uploads without a native dependency: the type is read from the first bytes,
 * never from the file's name or declared type, and the file is rewritten chunk by chunk (PNG),
 * segment by segment (JPEG) or chunk by chunk (WebP) keeping only what draws the picture and its
 * colours. Text, EXIF, XMP, comments, timestamps and anything after the image's end are dropped,
 * and a file whose structure does not hold is refused. Every header that sizes a picture (PNG's
 * IHDR and APNG frames, JPEG's frame, WebP's canvas, bitstreams and animation frames) is read and
 * must agree with the others, so the caller can refuse large pictures before anything is decoded;
 * {@link decodesToItsSize} then inflates a PNG's pixel data to check it holds that many pixels.
 */

/** The result of {@link cleanImage}. */
export type CleanImage =
  | ({ ok: true; mime: UploadMediaType } & Cleaned)
  | { ok: false; reason: 'type' | 'damaged' }

/**
 * What a cleaner returns: the kept bytes, the picture's size in pixels as its headers say, and the
 * pixels of all its frames together (an animation draws each frame; a still picture is one).
 */
type Cleaned = { bytes: Uint8Array; width: number; height: number; framePixels: number }

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** The media type the bytes start like, or null: PNG, JPEG and WebP only. */
export function sniffImageType(bytes: Uint8Array): UploadMediaType | null {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) return 'image/png'
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return 'image/jpeg'
  }
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') {
    return 'image/webp'
  }
  return null
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length))
}

class Damaged extends Error {}

function need(condition: boolean): asserts condition {
  if (!condition) throw new Damaged()
}

// PNG: the critical chunks and the ancillary ones that change how the pixels look (colour space,
// transparency, background, pixel size) and APNG's animation chunks. tEXt, zTXt, iTXt, eXIf, tIME
// and every unknown ancillary chunk go.
const PNG_KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'bKGD',
  'pHYs',
  'cICP',
  'acTL',
  'fcTL',
  'fdAT',
])

/** Channels per pixel by PNG colour type, and the bit depths each type allows. */
const PNG_COLOUR_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
}

/** What a PNG's IHDR says about its pixels. */
type PngHeader = { width: number; height: number; bitsPerPixel: number; interlaced: boolean }

function readPngHeader(view: DataView, at: number): PngHeader {
  const width = view.getUint32(at + 8)
  const height = view.getUint32(at + 12)
  const depth = view.getUint8(at + 16)
  const colour = PNG_COLOUR_TYPES[view.getUint8(at + 17)]
  const interlace = view.getUint8(at + 20)
  need(width > 0 && height > 0 && width < 2 ** 31 && height < 2 ** 31)
  if (!colour?.depths.includes(depth)) throw new Damaged()
  need(view.getUint8(at + 18) === 0 && view.getUint8(at + 19) === 0 && interlace <= 1)
  return { width, height, bitsPerPixel: colour.channels * depth, interlaced: interlace === 1 }
}

/** An APNG frame's size (fcTL), which must lie inside the image (IHDR). */
function readPngFrame(view: DataView, at: number, length: number, header: PngHeader | undefined) {
  need(header !== undefined && length === 26)
  const width = view.getUint32(at + 12)
  const height = view.getUint32(at + 16)
  const x = view.getUint32(at + 20)
  const y = view.getUint32(at + 24)
  need(width > 0 && height > 0 && x + width <= header.width && y + height <= header.height)
  return { width, height }
}

function cleanPng(bytes: Uint8Array): Cleaned {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: Uint8Array[] = [bytes.subarray(0, 8)]
  let at = 8
  let index = 0
  let sawData = false
  let header: PngHeader | undefined
  // APNG: the frames' areas; the IDAT picture is a frame of its own unless an fcTL came first.
  let framePixels = 0
  let framed = false
  for (;;) {
    need(at + 12 <= bytes.length)
    const length = view.getUint32(at)
    need(length <= bytes.length - at - 12)
    const type = ascii(bytes, at + 4, 4)
    need(/^[A-Za-z]{4}$/.test(type))
    const end = at + 12 + length
    const stored = view.getUint32(end - 4)
    need(crc32(bytes.subarray(at + 4, end - 4)) === stored)
    if (index === 0) need(type === 'IHDR' && length === 13)
    else need(type !== 'IHDR')
    if (type === 'IHDR') header = readPngHeader(view, at)
    if (type === 'fcTL') {
      const frame = readPngFrame(view, at, length, header)
      framePixels += frame.width * frame.height
      if (!sawData) framed = true
    }
    if (type === 'IDAT') sawData = true
    // An unknown critical chunk (upper-case first letter) means a picture we cannot vouch for.
    const critical = type.charCodeAt(0) < 0x61
    need(!critical || PNG_KEPT.has(type))
    if (PNG_KEPT.has(type)) parts.push(bytes.subarray(at, end))
    at = end
    index += 1
    if (type === 'IEND') break
  }
  need(sawData && header !== undefined)
  // Whatever follows IEND (a polyglot's second life) is left behind.
  if (!framed) framePixels += header.width * header.height
  return { bytes: concatBytes(parts), width: header.width, height: header.height, framePixels }
}

// JPEG: APP0 (JFIF), APP2 when it is an ICC profile and APP14 (Adobe, which says how CMYK and
// YCC colours decode) stay; APP1 (EXIF, XMP), every other APPn and COM go.
function keepJpegSegment(marker: number, body: Uint8Array): boolean {
  if (marker === 0xfe) return false
  if (marker === 0xe0) return true
  if (marker === 0xe2) return ascii(body, 0, 12) === 'ICC_PROFILE\0'
  if (marker === 0xee) return ascii(body, 0, 5) === 'Adobe'
  return !(marker >= 0xe1 && marker <= 0xef)
}

const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

function cleanJpeg(bytes: Uint8Array): Cleaned {
  const parts: Uint8Array[] = [bytes.subarray(0, 2)]
  let at = 2
  let sawFrame = false
  let sawScan = false
  let width = 0
  let height = 0
  for (;;) {
    need(at < bytes.length && bytes[at] === 0xff)
    while (at < bytes.length && bytes[at] === 0xff) at += 1
    need(at < bytes.length)
    const marker = bytes[at] as number
    at += 1
    need(marker !== 0x00 && marker !== 0xd8)
    if (marker === 0xd9) {
      parts.push(Uint8Array.of(0xff, 0xd9))
      break
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      parts.push(Uint8Array.of(0xff, marker))
      continue
    }
    need(at + 2 <= bytes.length)
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number)
    need(length >= 2 && at + length <= bytes.length)
    const body = bytes.subarray(at + 2, at + length)
    if (isStartOfFrame(marker)) {
      // One frame, whose header sizes everything a decoder draws (no hierarchical second frame).
      need(body.length >= 6 && !sawFrame)
      height = ((body[1] as number) << 8) | (body[2] as number)
      width = ((body[3] as number) << 8) | (body[4] as number)
      need(width > 0 && height > 0)
      sawFrame = true
    }
    if (keepJpegSegment(marker, body)) {
      parts.push(Uint8Array.of(0xff, marker), bytes.subarray(at, at + length))
    }
    at += length
    if (marker === 0xda) {
      need(sawFrame)
      sawScan = true
      // The entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
      const start = at
      for (;;) {
        need(at + 1 < bytes.length)
        if (bytes[at] === 0xff) {
          const next = bytes[at + 1] as number
          if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break
        }
        at += 1
      }
      parts.push(bytes.subarray(start, at))
    }
  }
  need(sawFrame && sawScan)
  return { bytes: concatBytes(parts), width, height, framePixels: width * height }
}

// WebP: the picture (VP8, VP8L, ALPH, animation) and its ICC profile stay; EXIF, XMP and unknown
// chunks go, and the VP8X header stops announcing them.
const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP'])
const VP8X_EXIF = 0x08
const VP8X_XMP = 0x04

const uint24 = (bytes: Uint8Array, at: number) =>
  (bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16)

/** The size a VP8 (key frame) or VP8L bitstream declares: what its decoder allocates. */
function bitstreamSize(type: string, data: Uint8Array): { width: number; height: number } {
  if (type === 'VP8 ') {
    need(data.length >= 10 && ((data[0] as number) & 1) === 0)
    need(data[3] === 0x9d && data[4] === 0x01 && data[5] === 0x2a)
    const width = ((data[6] as number) | ((data[7] as number) << 8)) & 0x3fff
    const height = ((data[8] as number) | ((data[9] as number) << 8)) & 0x3fff
    need(width > 0 && height > 0)
    return { width, height }
  }
  need(data.length >= 5 && data[0] === 0x2f)
  const bits =
    (data[1] as number) |
    ((data[2] as number) << 8) |
    ((data[3] as number) << 16) |
    ((data[4] as number) << 24)
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
}

/** The bitstream inside an animation frame (ANMF), after its 16 bytes of placement. */
function frameBitstream(frame: Uint8Array): { width: number; height: number } {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength)
  let at = 16
  while (at + 8 <= frame.length) {
    const type = ascii(frame, at, 4)
    const size = view.getUint32(at + 4, true)
    need(size <= frame.length - at - 8)
    if (type === 'VP8 ' || type === 'VP8L') {
      return bitstreamSize(type, frame.subarray(at + 8, at + 8 + size))
    }
    at += 8 + size + (size % 2)
  }
  throw new Damaged()
}

function cleanWebp(bytes: Uint8Array): Cleaned {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const riffSize = view.getUint32(4, true)
  need(riffSize >= 4 && riffSize + 8 <= bytes.length)
  const end = 8 + riffSize
  const parts: Uint8Array[] = []
  let at = 12
  let sawPicture = false
  let first = true
  let canvas: { width: number; height: number } | undefined
  let picture: { width: number; height: number } | undefined
  let animated = 0
  while (at < end) {
    need(at + 8 <= end)
    const type = ascii(bytes, at, 4)
    const size = view.getUint32(at + 4, true)
    const padded = size + (size % 2)
    need(size <= end - at - 8)
    const next = Math.min(at + 8 + padded, end)
    const data = bytes.subarray(at + 8, at + 8 + size)
    if (type === 'VP8X') {
      need(first && size >= 10)
      canvas = { width: uint24(data, 4) + 1, height: uint24(data, 7) + 1 }
    }
    if (type === 'VP8 ' || type === 'VP8L') {
      // One still picture, the size of the canvas when there is one.
      need(picture === undefined)
      picture = bitstreamSize(type, data)
      need(!canvas || (picture.width === canvas.width && picture.height === canvas.height))
    }
    if (type === 'ANMF') {
      // An animation frame lies inside the canvas, and its bitstream is the frame's size.
      need(canvas !== undefined && size >= 16)
      const x = uint24(data, 0) * 2
      const y = uint24(data, 3) * 2
      const frame = { width: uint24(data, 6) + 1, height: uint24(data, 9) + 1 }
      need(x + frame.width <= canvas.width && y + frame.height <= canvas.height)
      animated += frame.width * frame.height
      const stream = frameBitstream(data)
      need(stream.width === frame.width && stream.height === frame.height)
    }
    if (type === 'VP8 ' || type === 'VP8L' || type === 'ANMF') sawPicture = true
    if (WEBP_KEPT.has(type)) {
      const chunk = bytes.slice(at, next)
      if (type === 'VP8X') chunk[8] = (chunk[8] as number) & ~(VP8X_EXIF | VP8X_XMP)
      parts.push(chunk)
    }
    first = false
    at = next
  }
  need(sawPicture)
  const size = canvas ?? picture
  need(size !== undefined)
  const body = concatBytes(parts)
  const header = new Uint8Array(12)
  header.set(bytes.subarray(0, 12))
  new DataView(header.buffer).setUint32(4, body.length + 4, true)
  const framePixels = animated || size.width * size.height
  return { bytes: concatBytes([header, body]), ...size, framePixels }
}

const CLEANERS: Record<UploadMediaType, (bytes: Uint8Array) => Cleaned> = {
  'image/png': cleanPng,
  'image/jpeg': cleanJpeg,
  'image/webp': cleanWebp,
}

/**
 * Recognises a PNG, JPEG or WebP image by its content and returns it without its metadata,
 * checked twice: the cleaned bytes must parse again as the same type and come out unchanged.
 * Anything else is `type`; a file that starts like an image but does not hold together is
 * `damaged`.
 */
export function cleanImage(bytes: Uint8Array): CleanImage {
  const mime = sniffImageType(bytes)
  if (!mime) return { ok: false, reason: 'type' }
  try {
    const cleaned = CLEANERS[mime](bytes)
    const again = CLEANERS[mime](cleaned.bytes)
    need(
      sniffImageType(cleaned.bytes) === mime &&
        Buffer.from(again.bytes).equals(Buffer.from(cleaned.bytes)),
    )
    return { ok: true, mime, ...cleaned }
  } catch (error) {
    if (error instanceof Damaged || error instanceof RangeError)
      return { ok: false, reason: 'damaged' }
    throw error
  }
}

/** The raw (filtered, before unfiltering) bytes of a PNG picture of `width` × `height`. */
function pngRawSize(width: number, height: number, header: PngHeader): number {
  const rows = (w: number, h: number) =>
    w > 0 && h > 0 ? h * (Math.ceil((w * header.bitsPerPixel) / 8) + 1) : 0
  if (!header.interlaced) return rows(width, height)
  // Adam7: seven reduced pictures, each with its own rows and filter bytes.
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ] as const
  return passes.reduce(
    (sum, [x, y, dx, dy]) => sum + rows(Math.ceil((width - x) / dx), Math.ceil((height - y) / dy)),
    0,
  )
}

/**
 * Whether `parts` inflate (zlib) to exactly `expected` bytes. The output is counted and dropped
 * as it comes, and inflating stops as soon as it passes `expected`: a picture whose data holds
 * more than its header admits (a decompression bomb) costs no memory.
 */
function inflatesTo(parts: Uint8Array[], expected: number): Promise<boolean> {
  return new Promise((resolve) => {
    const inflate = createInflate()
    let total = 0
    let settled = false
    const finish = (ok: boolean) => {
      if (settled) return
      settled = true
      inflate.destroy()
      resolve(ok)
    }
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total > expected) finish(false)
    })
    inflate.on('end', () => finish(total === expected))
    inflate.on('error', () => finish(false))
    for (const part of parts) {
      if (settled) break
      inflate.write(part)
    }
    inflate.end()
  })
}

/**
 * Decodes what a picture's headers cannot vouch for: a PNG's pixel data (IDAT, and each APNG
 * frame's fdAT) must inflate to exactly the bytes its declared size needs, neither fewer (a
 * truncated picture) nor more (a header that understates the picture). JPEG and WebP decoders
 * allocate by their frame headers, which {@link cleanImage} has read and checked one by one, so
 * for them the declared size is the decoded one. Takes a cleaned image; true when it holds.
 */
export async function decodesToItsSize(image: { mime: UploadMediaType; bytes: Uint8Array }) {
  if (image.mime !== 'image/png') return true
  const bytes = image.bytes
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let header: PngHeader | undefined
  const still: Uint8Array[] = []
  const frames: { width: number; height: number; parts: Uint8Array[] }[] = []
  try {
    for (let at = 8; at + 12 <= bytes.length; ) {
      const length = view.getUint32(at)
      const type = ascii(bytes, at + 4, 4)
      const data = bytes.subarray(at + 8, at + 8 + length)
      if (type === 'IHDR') header = readPngHeader(view, at)
      if (type === 'IDAT') still.push(data)
      if (type === 'fcTL') frames.push({ ...readPngFrame(view, at, length, header), parts: [] })
      // An fdAT is a sequence number, then the frame's data.
      if (type === 'fdAT') frames.at(-1)?.parts.push(data.subarray(4))
      at += 12 + length
    }
  } catch {
    return false
  }
  if (!header) return false
  if (!(await inflatesTo(still, pngRawSize(header.width, header.height, header)))) return false
  for (const frame of frames) {
    // The first frame may be the IDAT picture itself (an fcTL before IDAT): no fdAT of its own.
    if (frame.parts.length === 0) continue
    if (!(await inflatesTo(frame.parts, pngRawSize(frame.width, frame.height, header)))) {
      return false
    }
  }
  return true
}

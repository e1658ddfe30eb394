import { crc32 } from 'node:zlib'
import type { UploadMediaType } from '#domain/uploads.ts'

/**
 * Image uploads (issue 19) without a native dependency: the type is read from the first bytes,
 * never from the file's name or declared type, and the file is rewritten chunk by chunk (PNG),
 * segment by segment (JPEG) or chunk by chunk (WebP) keeping only what draws the picture and its
 * colours. Text, EXIF, XMP, comments, timestamps and anything after the image's end are dropped,
 * and a file whose structure does not hold is refused.
 */

/** The result of {@link cleanImage}. */
export type CleanImage =
  | { ok: true; mime: UploadMediaType; bytes: Uint8Array }
  | { ok: false; reason: 'type' | 'damaged' }

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

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0)
  const out = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
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

function cleanPng(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: Uint8Array[] = [bytes.subarray(0, 8)]
  let at = 8
  let index = 0
  let sawData = false
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
    if (type === 'IHDR') {
      need(view.getUint32(at + 8) > 0 && view.getUint32(at + 12) > 0)
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
  need(sawData)
  // Whatever follows IEND (a polyglot's second life) is left behind.
  return concat(parts)
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

function cleanJpeg(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [bytes.subarray(0, 2)]
  let at = 2
  let sawFrame = false
  let sawScan = false
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
      need(body.length >= 6)
      const height = ((body[1] as number) << 8) | (body[2] as number)
      const width = ((body[3] as number) << 8) | (body[4] as number)
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
  return concat(parts)
}

// WebP: the picture (VP8, VP8L, ALPH, animation) and its ICC profile stay; EXIF, XMP and unknown
// chunks go, and the VP8X header stops announcing them.
const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP'])
const VP8X_EXIF = 0x08
const VP8X_XMP = 0x04

function cleanWebp(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const riffSize = view.getUint32(4, true)
  need(riffSize >= 4 && riffSize + 8 <= bytes.length)
  const end = 8 + riffSize
  const parts: Uint8Array[] = []
  let at = 12
  let sawPicture = false
  let first = true
  while (at < end) {
    need(at + 8 <= end)
    const type = ascii(bytes, at, 4)
    const size = view.getUint32(at + 4, true)
    const padded = size + (size % 2)
    need(size <= end - at - 8)
    const next = Math.min(at + 8 + padded, end)
    if (type === 'VP8X') need(first && size >= 10)
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
  const body = concat(parts)
  const header = new Uint8Array(12)
  header.set(bytes.subarray(0, 12))
  new DataView(header.buffer).setUint32(4, body.length + 4, true)
  return concat([header, body])
}

const CLEANERS: Record<UploadMediaType, (bytes: Uint8Array) => Uint8Array> = {
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
    const again = CLEANERS[mime](cleaned)
    need(sniffImageType(cleaned) === mime && Buffer.from(again).equals(Buffer.from(cleaned)))
    return { ok: true, mime, bytes: cleaned }
  } catch (error) {
    if (error instanceof Damaged || error instanceof RangeError)
      return { ok: false, reason: 'damaged' }
    throw error
  }
}

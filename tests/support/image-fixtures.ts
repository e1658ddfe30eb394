import { readFileSync } from 'node:fs'
import { crc32 } from 'node:zlib'

/**
 * Test support for uploads (issue 19): the committed tiny images, and the same images carrying
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
function pngChunk(type: string, data: Uint8Array): Uint8Array {
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

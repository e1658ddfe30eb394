import { and, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { UPLOAD_MAX_BYTES, UPLOAD_MESSAGES, type UploadedFile } from '#domain/uploads.ts'
import { auditEvents, practices, uploadContents, uploads, users } from '#server/db/schema.ts'
import { cleanImage } from '#server/files/images.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import {
  apngOfFrames,
  fixture,
  jpegDeclaring,
  jpegWithMetadata,
  pngDeclaring,
  pngWithMetadata,
  webpDeclaring,
  webpWithMetadata,
} from '#tests/support/image-fixtures.ts'

const contains = (bytes: Uint8Array, needle: string) => Buffer.from(bytes).includes(needle)
const text = (value: string) => new TextEncoder().encode(value)
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))

type Answer = { status: number; body: Record<string, unknown>; response: Response }

describe.each(testBackends())('uploads, the practice logo and avatars on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)

  const upload = async (
    bytes: Uint8Array,
    { name = 'picture.png', purpose = 'avatar', token = t.demo.adminToken, app = t.app } = {},
  ): Promise<Answer> => {
    const form = new FormData()
    form.set('file', new File([bytes], name, { type: 'image/png' }))
    form.set('purpose', purpose)
    const response = await (app === t.app
      ? t.request('/api/upload/files', { method: 'POST', token, body: form })
      : app.request('/api/upload/files', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          body: form,
        }))
    return { status: response.status, body: (await response.clone().json()) as never, response }
  }
  const call = async (path: string, method: string, json?: unknown, token = t.demo.adminToken) => {
    const response = await t.request(path, { method, token, ...(json ? { json } : {}) })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const message = (answer: { body: Record<string, unknown> }) =>
    (answer.body as { error: { message: string } }).error.message
  const uploadCount = async () => (await t.db.select({ id: uploads.id }).from(uploads)).length
  const contentCount = async () =>
    (await t.db.select({ key: uploadContents.storage_key }).from(uploadContents)).length
  /** The stored bytes and what is kept beside them, by the file's address. */
  const stored = async (url: string) => {
    const [row] = await t.db
      .select()
      .from(uploadContents)
      .where(eq(uploadContents.storage_key, url.split('/').pop() ?? ''))
    return row
  }

  it.each([
    ['PNG', pngWithMetadata, 'image/png', [0x89, 0x50, 0x4e, 0x47]],
    ['JPEG', jpegWithMetadata, 'image/jpeg', [0xff, 0xd8, 0xff]],
    ['WebP', webpWithMetadata, 'image/webp', [0x52, 0x49, 0x46, 0x46]],
  ] as const)(
    'accepts a %s image and serves it without its metadata',
    async (_kind, make, mime, magic) => {
      const original = make()
      expect(contains(original, 'secret-')).toBe(true)
      const answer = await upload(original, { name: '../../etc/holiday photo.jpeg' })
      expect(answer.status).toBe(201)
      const file = answer.body as unknown as UploadedFile
      expect(file).toMatchObject({ mime, purpose: 'avatar', name: 'holiday photo.jpeg' })
      expect(file.url).toMatch(new RegExp(`^/api/upload/files/${file.id}/[A-Za-z0-9_-]{43}$`))
      expect(file.url).not.toContain('holiday')

      // Served without a session, as an <img> asks for it.
      const served = await t.request(file.url)
      expect(served.status).toBe(200)
      expect(served.headers.get('Content-Type')).toBe(mime)
      expect(served.headers.get('X-Content-Type-Options')).toBe('nosniff')
      expect(served.headers.get('Content-Disposition')).toBe('inline')
      expect(served.headers.get('Content-Security-Policy')).toMatch(/^default-src 'none'/)
      expect(served.headers.get('Cache-Control')).toBe('private, max-age=31536000, immutable')
      const bytes = new Uint8Array(await served.arrayBuffer())
      expect([...bytes.subarray(0, magic.length)]).toEqual([...magic])
      expect(contains(bytes, 'secret-')).toBe(false)
      expect(contains(bytes, '<html>')).toBe(false)
      expect(bytes.length).toBe(file.size)
      expect(bytes.length).toBeLessThan(original.length)
      // Still a whole image of its type, which a second pass leaves as it is.
      const again = cleanImage(bytes)
      expect(
        again.ok && again.mime === mime && Buffer.from(again.bytes).equals(Buffer.from(bytes)),
      ).toBe(true)
      if (mime === 'image/webp') expect((bytes[20] as number) & 0x0c).toBe(0)
      // The colour profile stays with the picture.
      if (mime !== 'image/png')
        expect(contains(bytes, mime === 'image/jpeg' ? 'ICC_PROFILE' : 'ICCP')).toBe(true)

      const [audited] = await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(
          and(eq(auditEvents.action, 'file.uploaded'), eq(auditEvents.user_id, t.demo.admin.id)),
        )
        .orderBy(auditEvents.id)
        .limit(1)
      expect(audited?.details).toMatchObject({ purpose: 'avatar' })
    },
  )

  it('refuses an HTML file renamed .png, and anything else that is not PNG, JPEG or WebP', async () => {
    const before = await uploadCount()
    for (const bytes of [
      text('<!doctype html><html><script>alert(document.cookie)</script></html>'),
      text('GIF89a\x01\x00\x01\x00'),
      text('%PDF-1.7'),
      concat(new Uint8Array([0xef, 0xbb, 0xbf]), text('<svg xmlns="http://www.w3.org/2000/svg"/>')),
    ]) {
      const answer = await upload(bytes, { name: 'logo.png' })
      expect(answer.status).toBe(415)
      expect(message(answer)).toBe(UPLOAD_MESSAGES.wrongType)
      expect(message(answer)).toMatch(/PNG, JPEG or WebP/)
    }
    expect(await uploadCount()).toBe(before)
  })

  it('refuses a damaged image that only starts like one', async () => {
    const png = fixture('tiny.png')
    const truncated = png.subarray(0, png.length - 20)
    const flipped = png.slice()
    flipped[40] = (flipped[40] as number) ^ 0xff
    for (const bytes of [truncated, flipped, fixture('tiny.jpg').subarray(0, 300)]) {
      const answer = await upload(bytes)
      expect(answer.status).toBe(400)
      expect(message(answer)).toBe(UPLOAD_MESSAGES.damaged)
    }
  })

  it('refuses a picture over 4,000 × 4,000 pixels by its headers, before decoding it', async () => {
    const before = { rows: await uploadCount(), contents: await contentCount() }
    // 1.2 MB declaring 20,000 × 20,000 RGBA: 1.6 GB once decoded, refused by its IHDR alone.
    const poster = pngDeclaring({
      width: 20_000,
      height: 20_000,
      rgba: true,
      rows: 15,
      noise: true,
    })
    expect(poster.length).toBeGreaterThan(1_150_000)
    expect(poster.length).toBeLessThan(UPLOAD_MAX_BYTES)
    const refused = await upload(poster, { name: 'poster.png', purpose: 'logo' })
    expect(refused.status).toBe(400)
    expect(message(refused)).toBe(
      'This image is 20,000 × 20,000 pixels; the largest accepted is 4,000 × 4,000. Make it smaller and upload it again.',
    )
    expect(refused.body).toMatchObject({ error: { details: { field: 'file' } } })
    // One side over is enough, whatever the type: JPEG by its frame, WebP by its canvas and bitstream.
    for (const [bytes, width, height] of [
      [pngDeclaring({ width: 4001, height: 1 }), 4001, 1],
      [jpegDeclaring(4000, 4001), 4000, 4001],
      [webpDeclaring(16_000, 900), 16_000, 900],
    ] as const) {
      const answer = await upload(bytes)
      expect(answer.status).toBe(400)
      expect(message(answer)).toBe(UPLOAD_MESSAGES.tooManyPixels(width, height))
    }
    // An animation's frames together count as one picture: two of 4,000 × 2,001 are too many.
    const animation = await upload(apngOfFrames(4000, 2001, 2))
    expect(animation.status).toBe(400)
    expect(message(animation)).toBe(UPLOAD_MESSAGES.tooManyFramePixels)
    expect({ rows: await uploadCount(), contents: await contentCount() }).toEqual(before)
  })

  it('checks what a PNG decodes to, not its header alone, and takes 4,000 × 4,000', async () => {
    const largest = await upload(pngDeclaring({ width: 4000, height: 4000 }))
    expect(largest.status).toBe(201)
    const file = largest.body as unknown as UploadedFile
    expect(await stored(file.url)).toMatchObject({ width: 4000, height: 4000, size: file.size })
    // Two frames of 4,000 × 2,000: each frame's data is inflated and holds its size.
    const animation = await upload(apngOfFrames(4000, 2000, 2))
    expect(animation.status).toBe(201)

    const before = { rows: await uploadCount(), contents: await contentCount() }
    for (const bytes of [
      // 100 × 100 declared, 4,000 rows of pixel data: more than the header admits.
      pngDeclaring({ width: 100, height: 100, rows: 4000 }),
      // Half the rows: a truncated picture.
      pngDeclaring({ width: 100, height: 100, rows: 50 }),
      // A WebP canvas of 3,000 × 3,000 around a 16 × 16 bitstream.
      webpDeclaring(3000, 3000, { canvasOnly: true }),
    ]) {
      const answer = await upload(bytes)
      expect(answer.status).toBe(400)
      expect(message(answer)).toBe(UPLOAD_MESSAGES.damaged)
    }
    expect({ rows: await uploadCount(), contents: await contentCount() }).toEqual(before)
  })

  it('refuses a file over 2 MB with 413, and a form without a file or a purpose with 400', async () => {
    const big = new Uint8Array(UPLOAD_MAX_BYTES + 1)
    big.set(fixture('tiny.png'))
    const answer = await upload(big)
    expect(answer.status).toBe(413)
    expect(message(answer)).toBe(UPLOAD_MESSAGES.tooLarge)
    // Far over: refused by its declared length, before the body is read.
    const huge = await t.app.request('/api/upload/files', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.demo.adminToken}`,
        'Content-Type': 'multipart/form-data; boundary=x',
        'Content-Length': String(50 * 1024 * 1024),
      },
      body: 'x',
    })
    expect(huge.status).toBe(413)

    const noFile = new FormData()
    noFile.set('purpose', 'logo')
    const missing = await t.request('/api/upload/files', {
      method: 'POST',
      token: t.demo.adminToken,
      body: noFile,
    })
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      UPLOAD_MESSAGES.fileRequired,
    )
    const noPurpose = await upload(fixture('tiny.png'), { purpose: 'banner' })
    expect(noPurpose.status).toBe(400)
    expect(message(noPurpose)).toBe(UPLOAD_MESSAGES.purposeRequired)
    const json = await call('/api/upload/files', 'POST', { file: 'x' })
    expect(json.status).toBe(415)
    expect(message(json)).toBe(UPLOAD_MESSAGES.notMultipart)
  })

  it('lets an Admin set, replace and remove the logo, deleting the one it replaces', async () => {
    const first = (await upload(fixture('tiny.png'), { purpose: 'logo' })).body as UploadedFile
    const set = await call('/api/practice/logo', 'PUT', { upload_id: first.id })
    expect(set).toEqual({ status: 200, body: { image_path: first.url } })
    const [practice] = await t.db
      .select({ image_path: practices.image_path })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    expect(practice?.image_path).toBe(first.url)

    const second = (await upload(fixture('tiny.webp'), { purpose: 'logo' })).body as UploadedFile
    expect((await call('/api/practice/logo', 'PUT', { upload_id: second.id })).body).toEqual({
      image_path: second.url,
    })
    expect((await t.request(first.url)).status).toBe(404)
    expect(await t.db.select().from(uploads).where(eq(uploads.id, first.id))).toEqual([])

    expect(await call('/api/practice/logo', 'DELETE')).toEqual({
      status: 200,
      body: { image_path: null },
    })
    expect((await t.request(second.url)).status).toBe(404)
    const actions = await t.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.practice_id, t.demo.practiceId))
    const names = actions.map((row) => row.action)
    expect(names.filter((name) => name === 'practice.logo_changed')).toHaveLength(2)
    expect(names).toContain('practice.logo_removed')
  })

  it('refuses Staff the logo with what is missing, and an avatar upload as the logo', async () => {
    const staffUpload = await upload(fixture('tiny.png'), {
      purpose: 'logo',
      token: t.demo.staffToken,
    })
    expect(staffUpload.status).toBe(403)
    expect(message(staffUpload)).toBe(PERMISSION_REFUSALS['practice.settings'])
    const avatar = (await upload(fixture('tiny.png'), { token: t.demo.staffToken }))
      .body as UploadedFile
    const staffSet = await call(
      '/api/practice/logo',
      'PUT',
      { upload_id: avatar.id },
      t.demo.staffToken,
    )
    expect(staffSet.status).toBe(403)
    expect(message(staffSet)).toBe(PERMISSION_REFUSALS['practice.settings'])
    const wrong = await call('/api/practice/logo', 'PUT', { upload_id: avatar.id })
    expect(wrong.status).toBe(400)
    expect(message(wrong)).toBe(UPLOAD_MESSAGES.wrongPurpose('logo'))
  })

  it('lets a member set and remove only their own avatar', async () => {
    const first = (await upload(fixture('tiny.jpg'), { token: t.demo.staffToken }))
      .body as UploadedFile
    const set = await call(
      `/api/users/${t.demo.staff.id}/avatar`,
      'PUT',
      { upload_id: first.id },
      t.demo.staffToken,
    )
    expect(set.status).toBe(200)
    expect(set.body.image_path).toBe(first.url)
    const colleague = await call(
      `/api/users/${t.demo.admin.id}/avatar`,
      'PUT',
      { upload_id: first.id },
      t.demo.staffToken,
    )
    expect(colleague.status).toBe(403)
    expect(message(colleague)).toBe(SELF_SERVICE_MESSAGES.ownProfileOnly)
    // Another member's upload is not the Admin's to wear.
    const borrowed = await call(`/api/users/${t.demo.admin.id}/avatar`, 'PUT', {
      upload_id: first.id,
    })
    expect(borrowed.status).toBe(400)

    const second = (await upload(fixture('tiny.png'), { token: t.demo.staffToken }))
      .body as UploadedFile
    await call(
      `/api/users/${t.demo.staff.id}/avatar`,
      'PUT',
      { upload_id: second.id },
      t.demo.staffToken,
    )
    expect((await t.request(first.url)).status).toBe(404)
    const removed = await call(
      `/api/users/${t.demo.staff.id}/avatar`,
      'DELETE',
      undefined,
      t.demo.staffToken,
    )
    expect(removed.body.image_path).toBe(null)
    expect((await t.request(second.url)).status).toBe(404)
    const [row] = await t.db
      .select({ image_path: users.image_path })
      .from(users)
      .where(eq(users.id, t.demo.staff.id))
    expect(row?.image_path).toBe(null)
    const actions = await t.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.user_id, t.demo.staff.id))
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(['user.avatar_changed', 'user.avatar_removed']),
    )
  })

  it("answers another practice's file with 404, and a wrong key too", async () => {
    const mine = (await upload(fixture('tiny.png'))).body as UploadedFile
    const [foreign] = await t.db
      .insert(uploads)
      .values({
        practice_id: other.practiceId,
        name: 'theirs.png',
        mime: 'image/png',
        size: 3,
        storage_key: 'their-key',
        purpose: 'logo',
      })
      .returning()
    if (!foreign) throw new Error('no foreign upload')
    expect((await call('/api/practice/logo', 'PUT', { upload_id: foreign.id })).status).toBe(404)
    expect((await call(`/api/upload/files/${foreign.id}`, 'DELETE')).status).toBe(404)
    const wrongKey = mine.url.replace(/[A-Za-z0-9_-]{43}$/, 'A'.repeat(43))
    expect((await t.request(wrongKey)).status).toBe(404)
    const otherId = mine.url.replace(`/files/${mine.id}/`, `/files/${foreign.id}/`)
    expect((await t.request(otherId)).status).toBe(404)
  })

  it("refuses Staff another member's file, and deleting a file removes its bytes", async () => {
    const admins = (await upload(fixture('tiny.png'))).body as UploadedFile
    const refused = await call(
      `/api/upload/files/${admins.id}`,
      'DELETE',
      undefined,
      t.demo.staffToken,
    )
    expect(refused.status).toBe(403)
    expect(message(refused)).toBe(PERMISSION_REFUSALS['personnel.manage'])

    // The bytes live in the database, with the practice, the type and the size in pixels.
    const logo = await upload(fixture('tiny.png'), { name: 'logo.png' })
    expect(logo.status).toBe(201)
    const file = logo.body as unknown as UploadedFile
    const served = await t.request(file.url)
    const bytes = new Uint8Array(await served.arrayBuffer())
    const row = await stored(file.url)
    expect(row).toMatchObject({
      practice_id: t.demo.practiceId,
      content_type: 'image/png',
      size: file.size,
      width: 16,
      height: 16,
    })
    expect(Buffer.from(row?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true)
    // Stored under its random key, never under the name it came with.
    expect(row?.storage_key).not.toContain('logo')
    const deleted = await call(`/api/upload/files/${file.id}`, 'DELETE')
    expect(deleted.status).toBe(200)
    expect(await stored(file.url)).toBeUndefined()
    expect((await t.request(file.url)).status).toBe(404)
  })

  it('stops showing a logo whose file is deleted', async () => {
    const logo = (await upload(fixture('tiny.png'), { purpose: 'logo' })).body as UploadedFile
    await call('/api/practice/logo', 'PUT', { upload_id: logo.id })
    expect((await call(`/api/upload/files/${logo.id}`, 'DELETE')).status).toBe(200)
    const [practice] = await t.db
      .select({ image_path: practices.image_path })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    expect(practice?.image_path).toBe(null)
  })
})

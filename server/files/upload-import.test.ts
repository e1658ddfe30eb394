import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uploadContents, uploads } from '#server/db/schema.ts'
import { cleanImage } from '#server/files/images.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { fileUrl } from '#server/modules/practice/upload-service.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { fixture, pngWithMetadata } from '#tests/support/image-fixtures.ts'
import { importUploadFiles } from './upload-import.ts'

// The images of a server from before it, files under DATA_DIR/uploads, move into the
// database at the next start, so that any process serves them and a database backup holds them.
describe.each(testBackends())('moving DATA_DIR/uploads into the database on $name', (backend) => {
  const t = useTestApp(backend)
  let folder: string
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'glow-upload-import-'))
  })
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  const row = async (key: string, mime = 'image/png') => {
    const [upload] = await t.db
      .insert(uploads)
      .values({
        practice_id: t.demo.practiceId,
        uploaded_by: t.demo.admin.id,
        name: 'logo.png',
        mime,
        size: 0,
        storage_key: key,
        purpose: 'logo',
      })
      .returning()
    if (!upload) throw new Error('no upload row')
    return upload
  }

  it('reads each file once, serves it from the database, keeps the files and says what it did', async () => {
    // As the older server stored them: cleaned, under their random key.
    const cleaned = cleanImage(pngWithMetadata())
    if (!cleaned.ok) throw new Error('fixture not an image')
    const logo = await row('older-logo-key')
    writeFileSync(join(folder, 'older-logo-key'), cleaned.bytes)
    const jpeg = await row('older-avatar-key', 'image/jpeg')
    writeFileSync(join(folder, 'older-avatar-key'), fixture('tiny.jpg'))
    await row('older-lost-key')
    await row('older-text-key')
    writeFileSync(join(folder, 'older-text-key'), '<html>not an image</html>')

    // Before the move its address answers 404: the server no longer reads the folder.
    expect((await t.request(fileUrl(logo))).status).toBe(404)

    const log = memoryLogger()
    expect(await importUploadFiles(t.db, folder, log)).toEqual({
      imported: 2,
      missing: 1,
      refused: 1,
    })
    expect(log.lines).toEqual([
      `info: Moved 2 uploaded images from ${folder} into the database; the files stay there until you remove the folder, once a backup of the database holds them.`,
      `warn: 2 uploaded images could not be moved into the database (1 without a file in ${folder}, 1 not a PNG, JPEG or WebP image of at most 2 MB): their addresses answer 404.`,
    ])

    const served = await t.request(fileUrl(logo))
    expect(served.status).toBe(200)
    expect(served.headers.get('Content-Type')).toBe('image/png')
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(cleaned.bytes))).toBe(true)
    const avatar = await t.request(fileUrl(jpeg))
    expect(avatar.headers.get('Content-Type')).toBe('image/jpeg')
    const [stored] = await t.db
      .select()
      .from(uploadContents)
      .where(eq(uploadContents.storage_key, 'older-logo-key'))
    expect(stored).toMatchObject({
      practice_id: t.demo.practiceId,
      content_type: 'image/png',
      size: cleaned.bytes.length,
      width: 16,
      height: 16,
    })
    // The files stay where they were (a rollback still finds them).
    expect(existsSync(join(folder, 'older-logo-key'))).toBe(true)

    // Again, as at every start: nothing is read twice, only what is still missing is reported.
    const again = memoryLogger()
    expect(await importUploadFiles(t.db, folder, again)).toEqual({
      imported: 0,
      missing: 1,
      refused: 1,
    })
    expect(again.lines.filter((line) => line.startsWith('info:'))).toEqual([])
    expect(
      await t.db
        .select({ key: uploadContents.storage_key })
        .from(uploadContents)
        .where(eq(uploadContents.storage_key, 'older-logo-key')),
    ).toHaveLength(1)
  })

  it('does nothing without the folder', async () => {
    const log = memoryLogger()
    expect(await importUploadFiles(t.db, join(folder, 'absent'), log)).toEqual({
      imported: 0,
      missing: 0,
      refused: 0,
    })
    expect(log.lines).toEqual([])
  })
})

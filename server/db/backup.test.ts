import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabaseFileStore } from '#server/files/file-store.ts'
import { cleanImage } from '#server/files/images.ts'
import { createPracticeFixture } from '#server/testing/test-app.ts'
import { fixture } from '#tests/support/image-fixtures.ts'
import { backupPglite, restorePglite } from './backup.ts'
import { openDatabase } from './client.ts'

// `npm run backup` and `npm run restore` (README "Backups"): since migration 0030 the uploaded images are
// rows of the database, so the backup of the embedded database is the whole backup.
describe('a backup of the embedded database', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'glow-backup-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('holds the uploaded images, which a restore brings back byte for byte', async () => {
    const image = cleanImage(fixture('tiny.webp'))
    if (!image.ok) throw new Error('fixture not an image')
    const source = join(dir, 'source')
    const handle = await openDatabase({ dataDir: source })
    let practiceId: number
    try {
      practiceId = (await createPracticeFixture(handle.db)).practiceId
      await createDatabaseFileStore(handle.db).put('backed-up-logo', image.bytes, {
        practiceId,
        mime: image.mime,
        width: image.width,
        height: image.height,
      })
    } finally {
      await handle.close()
    }
    const file = join(dir, 'glow.tar.gz')
    expect(await backupPglite(source, file)).toBeGreaterThan(image.bytes.length)

    const restoredDir = join(dir, 'restored')
    await restorePglite(file, restoredDir)
    const restored = await openDatabase({ dataDir: restoredDir, migrate: false })
    try {
      const bytes = await createDatabaseFileStore(restored.db).get('backed-up-logo', practiceId)
      expect(bytes && Buffer.from(bytes).equals(Buffer.from(image.bytes))).toBe(true)
    } finally {
      await restored.close()
    }
  })
})

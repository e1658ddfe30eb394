import { existsSync } from 'node:fs'
import { eq, isNull } from 'drizzle-orm'
import { UPLOAD_MAX_BYTES } from '#domain/uploads.ts'
import type { Database } from '#server/db/client.ts'
import { uploadContents, uploads } from '#server/db/schema.ts'
import { createDiskFileStore } from '#server/files/file-store.ts'
import { cleanImage } from '#server/files/images.ts'
import type { Logger } from '#server/lib/log.ts'

/** What {@link importUploadFiles} did. */
export type UploadImport = {
  /** Files read from the folder into the database now. */
  imported: number
  /** Upload rows with neither bytes in the database nor a file in the folder. */
  missing: number
  /** Files that are there but are not an image this server would store (left where they are). */
  refused: number
}

/**
 * Moves the uploaded images of a server from before uploads moved into the database, files under `DATA_DIR/uploads`,
 * into the database (`upload_contents`), once: each upload row whose bytes are not in the
 * database yet is looked up in `folder` by its storage key and inserted with its size in pixels.
 * Idempotent (a row already moved is not read again, and two processes doing it at once insert
 * each file once) and cheap when nothing is left (one query). The files are kept: a rollback to
 * the previous version still finds them, and the operator removes the folder once a backup of the
 * database holds them (docs/decisions/019-shared-state.md). Logs what it moved and what it could not.
 */
export async function importUploadFiles(
  db: Database,
  folder: string,
  log: Logger,
): Promise<UploadImport> {
  const result: UploadImport = { imported: 0, missing: 0, refused: 0 }
  if (!existsSync(folder)) return result
  const pending = await db
    .select({
      practice_id: uploads.practice_id,
      storage_key: uploads.storage_key,
    })
    .from(uploads)
    .leftJoin(uploadContents, eq(uploadContents.storage_key, uploads.storage_key))
    .where(isNull(uploadContents.storage_key))
    .orderBy(uploads.id)
  if (pending.length === 0) return result
  const disk = createDiskFileStore(folder)
  for (const row of pending) {
    const bytes = await disk.get(row.storage_key, row.practice_id)
    if (!bytes) {
      result.missing += 1
      continue
    }
    // Stored files were cleaned when uploaded; cleaning again gives the same bytes and the size.
    const image = bytes.length <= UPLOAD_MAX_BYTES ? cleanImage(bytes) : null
    if (!image?.ok) {
      result.refused += 1
      continue
    }
    const inserted = await db
      .insert(uploadContents)
      .values({
        storage_key: row.storage_key,
        practice_id: row.practice_id,
        content_type: image.mime,
        size: image.bytes.length,
        width: image.width,
        height: image.height,
        bytes: image.bytes,
      })
      .onConflictDoNothing()
      .returning({ storage_key: uploadContents.storage_key })
    if (inserted.length > 0) result.imported += 1
  }
  const images = (n: number) => `${n} uploaded image${n === 1 ? '' : 's'}`
  if (result.imported > 0) {
    log.info(
      `Moved ${images(result.imported)} from ${folder} into the database; the files stay ` +
        'there until you remove the folder, once a backup of the database holds them.',
    )
  }
  const left = result.missing + result.refused
  if (left > 0) {
    log.warn(
      `${images(left)} could not be moved into the database (${result.missing} without a file ` +
        `in ${folder}, ${result.refused} not a PNG, JPEG or WebP image of at most 2 MB): their ` +
        'addresses answer 404.',
    )
  }
  return result
}

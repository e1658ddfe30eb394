import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { and, eq } from 'drizzle-orm'
import type { UploadMediaType } from '#domain/uploads.ts'
import type { Database } from '#server/db/client.ts'
import { uploadContents } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'

/** What is known of an image when it is stored: whose it is, its type and its size in pixels. */
export type StoredImage = {
  practiceId: number
  mime: UploadMediaType
  width: number
  height: number
}

/**
 * Where uploaded files' bytes live, by storage key (`uploads.storage_key`); the rows stay in the
 * database. Keys are made by the server ({@link newStorageKey}), never from a user's file name.
 * The server keeps them in the database ({@link createDatabaseFileStore}); an
 * S3-compatible bucket would be one more implementation (docs/decisions/019-shared-state.md).
 */
export type FileStore = {
  /** Stores `bytes` under `key`, replacing nothing: keys are fresh. */
  put(key: string, bytes: Uint8Array, image: StoredImage): Promise<void>
  /** The bytes stored under `key` for the practice, or null when there are none. */
  get(key: string, practiceId: number): Promise<Uint8Array | null>
  /** Removes the practice's bytes under `key`; a missing key is not an error. */
  delete(key: string, practiceId: number): Promise<void>
}

/** A fresh, unguessable storage key: 32 random bytes, URL-safe. */
export function newStorageKey(): string {
  return randomToken(32)
}

/**
 * The bytes in the database (`upload_contents`): every server process on it serves every upload,
 * and a backup of the database (pg_dump, `npm run backup`) holds them. Images are at most 2 MB
 * and few (a logo per practice, an avatar per member), well within what a row carries.
 */
export function createDatabaseFileStore(db: Database): FileStore {
  return {
    async put(key, bytes, image) {
      await db.insert(uploadContents).values({
        storage_key: key,
        practice_id: image.practiceId,
        content_type: image.mime,
        size: bytes.length,
        width: image.width,
        height: image.height,
        bytes,
      })
    },
    async get(key, practiceId) {
      const [row] = await db
        .select({ bytes: uploadContents.bytes })
        .from(uploadContents)
        .where(and(eq(uploadContents.practice_id, practiceId), eq(uploadContents.storage_key, key)))
        .limit(1)
      return row?.bytes ?? null
    },
    async delete(key, practiceId) {
      await db
        .delete(uploadContents)
        .where(and(eq(uploadContents.practice_id, practiceId), eq(uploadContents.storage_key, key)))
    },
  }
}

/** Keys this server makes, and the hand-made ones of older rows: no path separators, no dots first. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/

/**
 * Files in one folder on this machine: where uploads lived before they moved into the database (`DATA_DIR/uploads`),
 * read once at start to move them into the database (server/files/upload-import.ts). A key
 * that is not a plain file name, or that would resolve outside the folder, is never followed.
 */
export function createDiskFileStore(folder: string): FileStore {
  const root = resolve(folder)
  const pathOf = (key: string): string | null => {
    if (!KEY.test(key)) return null
    const path = resolve(root, key)
    return path.startsWith(root + sep) ? path : null
  }
  return {
    async put(key, bytes) {
      const path = pathOf(key)
      if (!path) throw new Error('Invalid storage key')
      await mkdir(root, { recursive: true })
      // Written aside, then renamed: a reader never sees half a file.
      const partial = `${path}.partial`
      await writeFile(partial, bytes, { flag: 'wx', mode: 0o600 })
      await rename(partial, path)
    },
    async get(key) {
      const path = pathOf(key)
      if (!path) return null
      try {
        return new Uint8Array(await readFile(path))
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return null
        throw error
      }
    },
    async delete(key) {
      const path = pathOf(key)
      if (path) await rm(path, { force: true })
    },
  }
}

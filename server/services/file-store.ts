import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { randomToken } from '#server/lib/random.ts'

/**
 * Where uploaded files' bytes live, by storage key (`uploads.storage_key`); the rows stay in the
 * database. Keys are made by the server ({@link newStorageKey}), never from a user's file name.
 */
export type FileStore = {
  /** Stores `bytes` under `key`, replacing nothing: keys are fresh. */
  put(key: string, bytes: Uint8Array): Promise<void>
  /** The bytes stored under `key`, or null when there are none. */
  get(key: string): Promise<Uint8Array | null>
  /** Removes the bytes under `key`; a missing key is not an error. */
  delete(key: string): Promise<void>
}

/** A fresh, unguessable storage key: 32 random bytes, URL-safe. */
export function newStorageKey(): string {
  return randomToken(32)
}

/** Keys this server makes, and the hand-made ones of older rows: no path separators, no dots first. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/

/**
 * Files in one folder on this machine (the uploads folder, `DATA_DIR/uploads` by default). A key
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

/** Files in this process's memory: for a server without a data folder (`DATA_DIR=memory`) and tests. */
export function createMemoryFileStore(): FileStore {
  const files = new Map<string, Uint8Array>()
  return {
    async put(key, bytes) {
      files.set(key, bytes.slice())
    },
    async get(key) {
      return files.get(key) ?? null
    },
    async delete(key) {
      files.delete(key)
    },
  }
}

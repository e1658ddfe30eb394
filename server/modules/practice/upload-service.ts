import { timingSafeEqual } from 'node:crypto'
import { and, eq, type SQL } from 'drizzle-orm'
import type { Permission } from '#domain/permissions.ts'
import { can } from '#domain/permissions.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import {
  UPLOAD_MEDIA_TYPES,
  UPLOAD_MESSAGES,
  type UploadedFile,
  type UploadPurpose,
} from '#domain/uploads.ts'
import { type AuditDetail, recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent, type Caller, ownRow } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { lockUsers } from '#server/db/locks.ts'
import { practices, uploads, users } from '#server/db/schema.ts'
import { newStorageKey } from '#server/files/file-store.ts'
import type { CleanImage } from '#server/files/images.ts'
import { invalid, notAllowed, notFound } from '#server/lib/domain-error.ts'
import { staffColumns } from '#server/modules/personnel/index.ts'

/** The path of `POST /upload/files`: the one API call whose body may be 2 MB (server/app.ts). */
export const UPLOAD_PATH = '/api/upload/files'

/** Where a stored file is served: an address with its random key, so it cannot be guessed. */
export function fileUrl(upload: { id: number; storage_key: string }): string {
  return `${UPLOAD_PATH}/${upload.id}/${upload.storage_key}`
}

const FILE_URL = /^\/api\/upload\/files\/(\d{1,10})\/([A-Za-z0-9_-]{1,200})$/

/** The upload an image path points at (`/api/upload/files/{id}/{key}`), or null. */
function linkedUpload(path: string | null): { id: number; key: string } | null {
  const match = path ? FILE_URL.exec(path) : null
  if (!match) return null
  return { id: Number(match[1]), key: match[2] as string }
}

function sameKey(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** A file name fit to show back: no path, no control characters, at most 200 characters. */
function displayName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what goes.
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return clean.slice(0, 200) || 'image'
}

type UploadContext = Pick<ServerContext, 'db' | 'files' | 'log' | 'now'>

const uploadColumns = {
  id: uploads.id,
  practice_id: uploads.practice_id,
  uploaded_by: uploads.uploaded_by,
  name: uploads.name,
  mime: uploads.mime,
  size: uploads.size,
  storage_key: uploads.storage_key,
  purpose: uploads.purpose,
}
type UploadRow = { [K in keyof typeof uploadColumns]: (typeof uploads.$inferSelect)[K] }

function answer(row: UploadRow, purpose: UploadPurpose): UploadedFile {
  return {
    id: row.id,
    name: row.name,
    mime: row.mime as UploadedFile['mime'],
    size: row.size,
    purpose,
    url: fileUrl(row),
  }
}

/**
 * The upload `id` of the user's practice for `purpose`, locked for `tx`: 404 for an unknown id
 * and another practice's alike, 400 for a file uploaded for the other purpose.
 */
async function uploadFor(tx: Transaction, user: Caller, id: number, purpose: UploadPurpose) {
  const [row] = await tx.select(uploadColumns).from(uploads).where(eq(uploads.id, id)).for('update')
  const upload = ownRow(user, row, 'File')
  if (upload.purpose !== purpose) {
    throw invalid(UPLOAD_MESSAGES.wrongPurpose(purpose), { field: 'upload_id' })
  }
  return upload
}

/**
 * Removes the upload an image path pointed at (a logo or an avatar being replaced or removed),
 * when it is one of the practice's: its row now, inside `tx`; its bytes by the returned key.
 */
async function dropLinked(
  tx: Transaction,
  practiceId: number,
  path: string | null,
  keep?: number,
): Promise<string | null> {
  const linked = linkedUpload(path)
  if (!linked || linked.id === keep) return null
  const [gone] = await tx
    .delete(uploads)
    .where(
      and(
        eq(uploads.id, linked.id),
        eq(uploads.practice_id, practiceId),
        eq(uploads.storage_key, linked.key),
      ),
    )
    .returning({ storage_key: uploads.storage_key })
  return gone?.storage_key ?? null
}

/** Deletes stored bytes after their row is gone; a failure leaves only unreachable bytes. */
async function deleteBytes(ctx: UploadContext, practiceId: number, key: string | null) {
  if (!key) return
  try {
    await ctx.files.delete(key, practiceId)
  } catch (error) {
    ctx.log.error('An uploaded file could not be deleted', error)
  }
}

/** What a deletion came to: refused for a missing permission, or the upload removed. */
type Outcome = { refused: Permission } | { upload: UploadRow }

/** A cleaned image that passed the upload's checks. */
type AcceptedImage = Extract<CleanImage, { ok: true }>

/** What a member's avatar or the practice logo became: the answer and the bytes to delete. */
type Relinked<T> = { answer: T; dropped: string | null }

/**
 * Uploaded images: served by id and key, stored, deleted, and linked as the practice logo or a
 * member's avatar. Each change is audited in its transaction; stored bytes are deleted once the
 * row that named them is gone.
 */
export function uploadService(ctx: UploadContext) {
  const missingFile = () => notFound('File not found.', { field: 'id' })

  /** Runs `change` in a transaction, then deletes the bytes it dropped; answers its answer. */
  async function relink<T>(
    practiceId: number,
    change: (tx: Transaction) => Promise<Relinked<T>>,
  ): Promise<T> {
    const { answer, dropped } = await ctx.db.transaction(change)
    await deleteBytes(ctx, practiceId, dropped)
    return answer
  }

  return {
    /** The stored image `id` when `key` is its key: its type and bytes; not found otherwise. */
    async file(id: number, key: string) {
      const [row] = await ctx.db
        .select({
          storage_key: uploads.storage_key,
          mime: uploads.mime,
          practice_id: uploads.practice_id,
        })
        .from(uploads)
        .where(eq(uploads.id, id))
        .limit(1)
      const mime = UPLOAD_MEDIA_TYPES.find((type) => type === row?.mime)
      if (!row || !mime || !sameKey(row.storage_key, key)) throw missingFile()
      const bytes = await ctx.files.get(row.storage_key, row.practice_id)
      if (!bytes) throw missingFile()
      return { mime, bytes }
    },

    /**
     * Stores `image` (already checked) under a random key and its row with the audit event in
     * one transaction; the bytes are deleted again when the row could not be written.
     */
    async store(
      actor: Actor,
      input: { name: string; image: AcceptedImage; purpose: UploadPurpose },
    ): Promise<UploadedFile> {
      const { user } = actor
      const { image, purpose } = input
      const key = newStorageKey()
      await ctx.files.put(key, image.bytes, {
        practiceId: user.practice_id,
        mime: image.mime,
        width: image.width,
        height: image.height,
      })
      let row: UploadRow | undefined
      try {
        row = await ctx.db.transaction(async (tx) => {
          const [created] = await tx
            .insert(uploads)
            .values({
              practice_id: user.practice_id,
              uploaded_by: user.id,
              name: displayName(input.name),
              mime: image.mime,
              size: image.bytes.length,
              storage_key: key,
              purpose,
            })
            .returning(uploadColumns)
          if (!created) throw new Error('upload row missing')
          const details = {
            upload: created.id,
            purpose,
            mime: image.mime,
            size: image.bytes.length,
          }
          await recordWithin(tx, actorEvent(actor, 'file.uploaded', details), ctx.now())
          return created
        })
      } finally {
        if (!row) await deleteBytes(ctx, user.practice_id, key)
      }
      return answer(row, purpose)
    },

    /**
     * Deletes upload `id`: the uploader's own, or any with `personnel.manage`; a file shown as
     * the logo also needs `practice.settings` and stops being shown, as do avatars showing it.
     * Answers the removed file, or the permission that was missing (nothing changed).
     */
    async remove(
      actor: Actor,
      id: number,
    ): Promise<
      { refused: Permission } | { removed: Pick<UploadRow, 'id' | 'name' | 'mime' | 'size'> }
    > {
      const { user } = actor
      const outcome = await ctx.db.transaction(async (tx): Promise<Outcome> => {
        const [row] = await tx.select(uploadColumns).from(uploads).where(eq(uploads.id, id))
        const seen = ownRow(user, row, 'File')
        if (seen.uploaded_by !== user.id && !can(user.access_rights, 'personnel.manage')) {
          return { refused: 'personnel.manage' }
        }
        const url = fileUrl(seen)
        // The order of the logo and avatar changes (server/db/locks.ts): the practice, the users
        // showing the image, then the upload; locking the upload first could deadlock with them.
        const [practice] = await tx
          .select({ image_path: practices.image_path })
          .from(practices)
          .where(eq(practices.id, user.practice_id))
          .for('update')
        await lockUsers(
          tx,
          { id: users.id },
          and(eq(users.practice_id, user.practice_id), eq(users.image_path, url)) as SQL,
        )
        const [locked] = await tx
          .select(uploadColumns)
          .from(uploads)
          .where(eq(uploads.id, id))
          .for('update')
        // Deleted by another request while this one waited: gone alike.
        const found = ownRow(user, locked, 'File')
        if (practice?.image_path === url) {
          if (!can(user.access_rights, 'practice.settings')) {
            return { refused: 'practice.settings' }
          }
          await tx
            .update(practices)
            .set({ image_path: null })
            .where(eq(practices.id, user.practice_id))
        }
        await tx
          .update(users)
          .set({ image_path: null })
          .where(and(eq(users.practice_id, user.practice_id), eq(users.image_path, url)))
        await tx.delete(uploads).where(eq(uploads.id, found.id))
        await recordWithin(tx, actorEvent(actor, 'file.deleted', { upload: found.id }), ctx.now())
        return { upload: found }
      })
      if ('refused' in outcome) return outcome
      const { upload } = outcome
      await deleteBytes(ctx, user.practice_id, upload.storage_key)
      return {
        removed: { id: upload.id, name: upload.name, mime: upload.mime, size: upload.size },
      }
    },

    /**
     * Shows upload `uploadId` (of purpose `logo`) as the practice logo, or none for `null`; the
     * logo replaced is deleted. Answers the logo's address. Audited when it changed.
     */
    setLogo(actor: Actor, uploadId: number | null): Promise<string | null> {
      const { user } = actor
      return relink(user.practice_id, async (tx) => {
        const [practice] = await tx
          .select({ image_path: practices.image_path })
          .from(practices)
          .where(eq(practices.id, user.practice_id))
          .for('update')
        const before = practice?.image_path ?? null
        const upload = uploadId === null ? null : await uploadFor(tx, user, uploadId, 'logo')
        const next = upload ? fileUrl(upload) : null
        if (next === before) return { answer: before, dropped: null }
        await tx
          .update(practices)
          .set({ image_path: next })
          .where(eq(practices.id, user.practice_id))
        const dropped = await dropLinked(tx, user.practice_id, before, upload?.id)
        const action = next ? 'practice.logo_changed' : 'practice.logo_removed'
        const details: Record<string, AuditDetail> = uploadId ? { upload: uploadId } : {}
        await recordWithin(tx, actorEvent(actor, action, details), ctx.now())
        return { answer: next, dropped }
      })
    },

    /**
     * Shows upload `uploadId` (an avatar the member uploaded) as member `id`'s avatar, or none
     * for `null`: only the own. The avatar replaced is deleted. Answers the member; audited
     * when it changed.
     */
    setAvatar(actor: Actor, id: number, uploadId: number | null) {
      const { user } = actor
      return relink(user.practice_id, async (tx) => {
        const [row] = await tx
          .select(staffColumns)
          .from(users)
          .where(eq(users.id, id))
          .for('update')
        const found = ownRow(user, row, 'User')
        if (found.id !== user.id) throw notAllowed(SELF_SERVICE_MESSAGES.ownProfileOnly)
        const upload = uploadId === null ? null : await uploadFor(tx, user, uploadId, 'avatar')
        if (upload && upload.uploaded_by !== user.id) {
          throw invalid(UPLOAD_MESSAGES.wrongPurpose('avatar'), { field: 'upload_id' })
        }
        const next = upload ? fileUrl(upload) : null
        if (next === found.image_path) return { answer: found, dropped: null }
        const [updated] = await tx
          .update(users)
          .set({ image_path: next })
          .where(eq(users.id, id))
          .returning(staffColumns)
        if (!updated) throw new Error('member disappeared')
        const dropped = await dropLinked(tx, user.practice_id, found.image_path, upload?.id)
        const action = updated.image_path ? 'user.avatar_changed' : 'user.avatar_removed'
        const details: Record<string, AuditDetail> = uploadId ? { upload: uploadId } : {}
        await recordWithin(tx, actorEvent(actor, action, details), ctx.now())
        return { answer: updated, dropped }
      })
    },
  }
}

import { timingSafeEqual } from 'node:crypto'
import { and, eq, type SQL } from 'drizzle-orm'
import { type Context, Hono } from 'hono'
import { DeletedFileSchema } from '#domain/api-answers.ts'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { can, PERMISSION_REFUSALS, type Permission } from '#domain/permissions.ts'
import { StaffMemberSchema } from '#domain/practice-data.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import {
  ImageLinkPayloadSchema,
  PracticeLogoSchema,
  UPLOAD_MAX_BYTES,
  UPLOAD_MAX_DIMENSION,
  UPLOAD_MEDIA_TYPES,
  UPLOAD_MESSAGES,
  UPLOAD_PURPOSES,
  type UploadedFile,
  UploadedFileSchema,
  type UploadPurpose,
} from '#domain/uploads.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { lockUsers } from '#server/db/locks.ts'
import { practices, uploads, users } from '#server/db/schema.ts'
import { newStorageKey } from '#server/files/file-store.ts'
import { cleanImage, decodesToItsSize } from '#server/files/images.ts'
import { ApiError, badRequest, forbidden } from '#server/http/errors.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { staffColumns } from '#server/modules/personnel/index.ts'
import { operation } from '#server/openapi/operation.ts'
import { securedResponse, withSecurityHeaders } from '#server/security/headers.ts'

/** The path of `POST /upload/files`: the one API call whose body may be 2 MB (server/app.ts). */
export const UPLOAD_PATH = '/api/upload/files'

/** The most a whole multipart request may carry: the image and room for its form framing. */
const MAX_REQUEST_BYTES = UPLOAD_MAX_BYTES + 64 * 1024

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

/** A refusal inside a handler, audited as the route middleware audits its own (permissions.ts). */
async function refuse(ctx: ServerContext, c: Context<AppEnv>, permission: Permission) {
  const user = c.var.user
  await ctx.audit.record({
    action: 'permission.refused',
    userId: user.id,
    practiceId: user.practice_id,
    ip: ctx.clientIp(c),
    details: { permission, route: `${c.req.method} ${c.req.routePath}` },
  })
  return forbidden(PERMISSION_REFUSALS[permission])
}

const tooLarge = () =>
  new ApiError(413, API_ERROR_NAMES.payloadTooLarge, UPLOAD_MESSAGES.tooLarge, { field: 'file' })
const wrongType = () =>
  new ApiError(415, API_ERROR_NAMES.unsupportedMediaType, UPLOAD_MESSAGES.wrongType, {
    field: 'file',
    allowed: [...UPLOAD_MEDIA_TYPES],
  })

/**
 * The request body, read as it arrives and given up at {@link MAX_REQUEST_BYTES}: a declared
 * length over it is refused before reading, a streamed body as soon as it passes it.
 */
async function readBody(request: Request): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > MAX_REQUEST_BYTES) throw tooLarge()
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const parts: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > MAX_REQUEST_BYTES) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge()
    }
    parts.push(value)
  }
  const body = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    body.set(part, at)
    at += part.length
  }
  return body
}

/** The `file` and `purpose` of a multipart body, or a 4xx that says what is wrong. */
async function readUpload(
  request: Request,
): Promise<{ file: File; bytes: Uint8Array; purpose: UploadPurpose }> {
  const type = request.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new ApiError(415, API_ERROR_NAMES.unsupportedMediaType, UPLOAD_MESSAGES.notMultipart)
  }
  const body = await readBody(request)
  let form: FormData
  try {
    form = await new Response(body, { headers: { 'content-type': type } }).formData()
  } catch {
    throw badRequest(UPLOAD_MESSAGES.notMultipart, { field: 'file' })
  }
  const file = form.get('file')
  if (!(file instanceof File) || file.size === 0) {
    throw badRequest(UPLOAD_MESSAGES.fileRequired, { field: 'file' })
  }
  if (file.size > UPLOAD_MAX_BYTES) throw tooLarge()
  const purpose = form.get('purpose')
  if (typeof purpose !== 'string' || !(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) {
    throw badRequest(UPLOAD_MESSAGES.purposeRequired, { field: 'purpose' })
  }
  return {
    file,
    bytes: new Uint8Array(await file.arrayBuffer()),
    purpose: purpose as UploadPurpose,
  }
}

/** A file name fit to show back: no path, no control characters, at most 200 characters. */
function displayName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what goes.
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return clean.slice(0, 200) || 'image'
}

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
async function uploadFor(tx: Transaction, user: AuthUser, id: number, purpose: UploadPurpose) {
  const [row] = await tx.select(uploadColumns).from(uploads).where(eq(uploads.id, id)).for('update')
  const upload = ownRow(user, row, 'File')
  if (upload.purpose !== purpose) {
    throw badRequest(UPLOAD_MESSAGES.wrongPurpose(purpose), { field: 'upload_id' })
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
async function deleteBytes(ctx: ServerContext, practiceId: number, key: string | null) {
  if (!key) return
  try {
    await ctx.files.delete(key, practiceId)
  } catch (error) {
    ctx.log.error('An uploaded file could not be deleted', error)
  }
}

// Served images never run anything: no script, no style, no frame, opened directly or embedded.
const FILE_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"

/**
 * `GET /upload/files/{id}/{key}`: an uploaded image, public because an `<img>` sends no bearer
 * token; the random key in the address is what grants it (docs/decisions/011-uploads.md). It
 * answers with the type read from the content, `nosniff`, `inline` and a CSP that runs nothing,
 * and may be cached: a key's bytes never change.
 */
export function uploadFileRoutes(ctx: ServerContext) {
  const headers = Object.fromEntries(
    UPLOAD_MEDIA_TYPES.map((mime) => [
      mime,
      withSecurityHeaders(ctx.config, {
        'Content-Type': mime,
        'Content-Disposition': 'inline',
        'Content-Security-Policy': FILE_CSP,
        'Cache-Control': 'private, max-age=31536000, immutable',
      }),
    ]),
  )
  const missing = () =>
    new ApiError(404, API_ERROR_NAMES.notFound, 'File not found.', { field: 'id' })
  return new Hono<AppEnv>().get(
    '/files/:id/:key',
    operation({
      summary: 'Get an uploaded image',
      description:
        'The image as stored, with its type, `X-Content-Type-Options: nosniff`, `Content-Disposition: inline` and a Content-Security-Policy that runs nothing. No session: the random key in the address grants it (an `<img>` sends no token), as `url` of POST /upload/files and the image paths give it.',
      tag: 'Files',
      public: true,
      path: {
        key: {
          description: 'The random key of the file, from its `url`.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' },
        },
      },
      responses: {
        200: { description: 'The image.', media: [...UPLOAD_MEDIA_TYPES] },
        404: 'No file has this id and key.',
      },
    }),
    idParams('id'),
    async (c) => {
      const { id } = c.req.valid('param')
      const key = c.req.param('key')
      const [row] = await ctx.db
        .select({
          storage_key: uploads.storage_key,
          mime: uploads.mime,
          practice_id: uploads.practice_id,
        })
        .from(uploads)
        .where(eq(uploads.id, id))
        .limit(1)
      const fileHeaders = row ? headers[row.mime] : undefined
      if (!row || !fileHeaders || !sameKey(row.storage_key, key)) throw missing()
      const bytes = await ctx.files.get(row.storage_key, row.practice_id)
      if (!bytes) throw missing()
      return securedResponse(new Uint8Array(bytes), 200, fileHeaders)
    },
  )
}

/**
 * Uploaded files, mounted at `/upload` (spec section 7).
 *
 * `POST /upload/files` (multipart: `file`, `purpose` `logo` or `avatar`) takes one PNG, JPEG or
 * WebP image of at most 2 MB and 4,000 × 4,000 pixels (its headers read first, then a PNG's pixel
 * data inflated to check it), recognised by its content, stores it without its metadata under a
 * random key and answers `{ id, name, mime, size, purpose, url }`; a logo needs the practice
 * settings permission. `DELETE /upload/files/{id}` removes the row and the stored bytes and
 * answers `{ id, name, mime, size }`: the uploader's own file, or any for an Admin; a file in use
 * as the logo also needs the practice settings permission, and stops being shown.
 */
export function uploadRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .post(
      '/files',
      operation({
        summary: 'Upload an image',
        description: `One image as \`multipart/form-data\`: \`file\` (PNG, JPEG or WebP, at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB and ${UPLOAD_MAX_DIMENSION} × ${UPLOAD_MAX_DIMENSION} pixels, recognised by its content, not its name) and \`purpose\` (\`logo\` or \`avatar\`). The image is stored without its metadata (text, EXIF, XMP, comments) under a random key; \`url\` serves it. Link it with PUT /practice/logo or PUT /users/{id}/avatar. A logo needs the practice settings permission. Audited.`,
        tag: 'Files',
        multipart: {
          type: 'object',
          required: ['file', 'purpose'],
          properties: {
            file: { type: 'string', format: 'binary', description: 'The image.' },
            purpose: { type: 'string', enum: [...UPLOAD_PURPOSES], description: 'What it is for.' },
          },
        },
        responses: {
          201: { description: 'The stored image.', json: UploadedFileSchema },
          400: `No file, no purpose, a damaged image ("${UPLOAD_MESSAGES.damaged}", also when a PNG's pixel data does not hold the size its header declares), a picture over ${UPLOAD_MAX_DIMENSION} × ${UPLOAD_MAX_DIMENSION} pixels by its headers ("${UPLOAD_MESSAGES.tooManyPixels(20_000, 20_000)}"), or an animation whose frames together hold more: "${UPLOAD_MESSAGES.tooManyFramePixels}"`,
          403: `A logo without the practice settings permission: "${PERMISSION_REFUSALS['practice.settings']}"`,
          413: `"${UPLOAD_MESSAGES.tooLarge}"`,
          415: `Not multipart, or not a ${UPLOAD_MEDIA_TYPES.join(', ')} image: "${UPLOAD_MESSAGES.wrongType}"`,
        },
      }),
      anyStaffMember(),
      async (c) => {
        const user = c.var.user
        const { file, bytes, purpose } = await readUpload(c.req.raw)
        if (purpose === 'logo' && !can(user.access_rights, 'practice.settings')) {
          throw await refuse(ctx, c, 'practice.settings')
        }
        const image = cleanImage(bytes)
        if (!image.ok) {
          if (image.reason === 'type') throw wrongType()
          throw badRequest(UPLOAD_MESSAGES.damaged, { field: 'file' })
        }
        // The headers' size first, which costs nothing; then the pixel data must hold that size.
        if (image.width > UPLOAD_MAX_DIMENSION || image.height > UPLOAD_MAX_DIMENSION) {
          throw badRequest(UPLOAD_MESSAGES.tooManyPixels(image.width, image.height), {
            field: 'file',
          })
        }
        // An animation's frames together count as one picture: at most 4,000 × 4,000 pixels.
        if (image.framePixels > UPLOAD_MAX_DIMENSION ** 2) {
          throw badRequest(UPLOAD_MESSAGES.tooManyFramePixels, { field: 'file' })
        }
        if (!(await decodesToItsSize(image))) {
          throw badRequest(UPLOAD_MESSAGES.damaged, { field: 'file' })
        }
        const key = newStorageKey()
        await ctx.files.put(key, image.bytes, {
          practiceId: user.practice_id,
          mime: image.mime,
          width: image.width,
          height: image.height,
        })
        let row: UploadRow | undefined
        try {
          ;[row] = await ctx.db
            .insert(uploads)
            .values({
              practice_id: user.practice_id,
              uploaded_by: user.id,
              name: displayName(file.name),
              mime: image.mime,
              size: image.bytes.length,
              storage_key: key,
              purpose,
            })
            .returning(uploadColumns)
        } finally {
          if (!row) await deleteBytes(ctx, user.practice_id, key)
        }
        if (!row) throw new Error('upload row missing')
        await ctx.audit.record({
          action: 'file.uploaded',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { upload: row.id, purpose, mime: image.mime, size: image.bytes.length },
        })
        return c.json(answer(row, purpose), 201)
      },
    )
    .delete(
      '/files/:id',
      operation({
        summary: 'Delete an uploaded file',
        description:
          "Removes the file and its stored bytes: the uploader's own, or any for an Admin. A file shown as the practice logo or an avatar stops being shown; the logo needs the practice settings permission. Audited.",
        tag: 'Files',
        responses: {
          200: { description: 'The removed file.', json: DeletedFileSchema },
          403: `Another member's file: "${PERMISSION_REFUSALS['personnel.manage']}"; the practice logo: "${PERMISSION_REFUSALS['practice.settings']}"`,
          404: 'No file has this id.',
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const user = c.var.user
        // A refusal is audited after the transaction: PGlite has one connection, which it holds.
        type Outcome = { refused: Permission } | { upload: UploadRow }
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
          return { upload: found }
        })
        if ('refused' in outcome) throw await refuse(ctx, c, outcome.refused)
        const upload = outcome.upload
        await deleteBytes(ctx, user.practice_id, upload.storage_key)
        await ctx.audit.record({
          action: 'file.deleted',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { upload: upload.id },
        })
        return c.json({ id: upload.id, name: upload.name, mime: upload.mime, size: upload.size })
      },
    )
}

/**
 * `PUT /practice/logo {upload_id}` shows an uploaded logo in the header of everyone in the
 * practice; `DELETE /practice/logo` goes back to the product's logo. Admin (practice settings),
 * audited; the logo replaced or removed is deleted. Both answer `{ image_path }`.
 */
export function practiceLogoRoutes(ctx: ServerContext) {
  const settings = requirePermission(ctx, 'practice.settings')
  const change = async (c: Context<AppEnv>, uploadId: number | null) => {
    const user = c.var.user
    const { imagePath, dropped, changed } = await ctx.db.transaction(async (tx) => {
      const [practice] = await tx
        .select({ image_path: practices.image_path })
        .from(practices)
        .where(eq(practices.id, user.practice_id))
        .for('update')
      const before = practice?.image_path ?? null
      const upload = uploadId === null ? null : await uploadFor(tx, user, uploadId, 'logo')
      const next = upload ? fileUrl(upload) : null
      if (next === before) return { imagePath: before, dropped: null, changed: false }
      await tx.update(practices).set({ image_path: next }).where(eq(practices.id, user.practice_id))
      const dropped = await dropLinked(tx, user.practice_id, before, upload?.id)
      return { imagePath: next, dropped, changed: true }
    })
    await deleteBytes(ctx, user.practice_id, dropped)
    if (changed) {
      await ctx.audit.record({
        action: imagePath ? 'practice.logo_changed' : 'practice.logo_removed',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
        details: uploadId ? { upload: uploadId } : {},
      })
    }
    return c.json({ image_path: imagePath })
  }
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .put(
      '/',
      operation({
        summary: 'Set the practice logo',
        description:
          'Shows an image uploaded with `purpose` `logo` in the header of everyone in the practice; the logo it replaces is deleted. Audited.',
        tag: 'Settings',
        responses: {
          200: { description: "The logo's address.", json: PracticeLogoSchema },
          400: UPLOAD_MESSAGES.wrongPurpose('logo'),
          404: 'No file has this id in your practice.',
        },
      }),
      settings,
      jsonBody(ImageLinkPayloadSchema),
      (c) => change(c, c.req.valid('json').upload_id),
    )
    .delete(
      '/',
      operation({
        summary: 'Remove the practice logo',
        description:
          "The header shows the product's logo again; the practice's logo is deleted. Audited.",
        tag: 'Settings',
        responses: {
          200: { description: 'No logo: `image_path` null.', json: PracticeLogoSchema },
        },
      }),
      settings,
      (c) => change(c, null),
    )
}

/**
 * `PUT /users/{id}/avatar {upload_id}` and `DELETE /users/{id}/avatar`: a member's own avatar,
 * shown in the header and on their profile; nobody sets a colleague's. Audited; the avatar
 * replaced or removed is deleted. Both answer the member (`StaffMemberSchema`).
 */
export function avatarRoutes(ctx: ServerContext) {
  const change = async (c: Context<AppEnv>, id: number, uploadId: number | null) => {
    const user = c.var.user
    const { member, dropped, changed } = await ctx.db.transaction(async (tx) => {
      const [row] = await tx.select(staffColumns).from(users).where(eq(users.id, id)).for('update')
      const found = ownRow(user, row, 'User')
      if (found.id !== user.id) throw forbidden(SELF_SERVICE_MESSAGES.ownProfileOnly)
      const upload = uploadId === null ? null : await uploadFor(tx, user, uploadId, 'avatar')
      if (upload && upload.uploaded_by !== user.id) {
        throw badRequest(UPLOAD_MESSAGES.wrongPurpose('avatar'), { field: 'upload_id' })
      }
      const next = upload ? fileUrl(upload) : null
      if (next === found.image_path) return { member: found, dropped: null, changed: false }
      const [updated] = await tx
        .update(users)
        .set({ image_path: next })
        .where(eq(users.id, id))
        .returning(staffColumns)
      if (!updated) throw new Error('member disappeared')
      const dropped = await dropLinked(tx, user.practice_id, found.image_path, upload?.id)
      return { member: updated, dropped, changed: true }
    })
    await deleteBytes(ctx, user.practice_id, dropped)
    if (changed) {
      await ctx.audit.record({
        action: member.image_path ? 'user.avatar_changed' : 'user.avatar_removed',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
        details: uploadId ? { upload: uploadId } : {},
      })
    }
    return c.json(member)
  }
  return new Hono<AppEnv>()
    .put(
      '/:id/avatar',
      operation({
        summary: 'Set the own avatar',
        description:
          'Shows an image the member uploaded with `purpose` `avatar` as their avatar; the avatar it replaces is deleted. Only the own profile. Audited.',
        tag: 'Personnel',
        responses: {
          200: { description: 'The member.', json: StaffMemberSchema },
          400: UPLOAD_MESSAGES.wrongPurpose('avatar'),
          403: SELF_SERVICE_MESSAGES.ownProfileOnly,
          404: 'No member or file has this id in your practice.',
        },
      }),
      requireAuth(ctx),
      anyStaffMember(),
      idParams('id'),
      jsonBody(ImageLinkPayloadSchema),
      (c) => change(c, c.req.valid('param').id, c.req.valid('json').upload_id),
    )
    .delete(
      '/:id/avatar',
      operation({
        summary: 'Remove the own avatar',
        description:
          'The header shows the first initial again; the avatar is deleted. Only the own profile. Audited.',
        tag: 'Personnel',
        responses: {
          200: { description: 'The member.', json: StaffMemberSchema },
          403: SELF_SERVICE_MESSAGES.ownProfileOnly,
          404: 'No member has this id in your practice.',
        },
      }),
      requireAuth(ctx),
      anyStaffMember(),
      idParams('id'),
      (c) => change(c, c.req.valid('param').id, null),
    )
}

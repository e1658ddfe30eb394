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
  UploadedFileSchema,
  type UploadMediaType,
  type UploadPurpose,
} from '#domain/uploads.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, auditRefusal, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { cleanImage, decodesToItsSize } from '#server/files/images.ts'
import { ApiError, badRequest, forbidden } from '#server/http/errors.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { concatBytes } from '#server/lib/bytes.ts'
import { operation } from '#server/openapi/operation.ts'
import {
  type SecuredHeaders,
  securedResponse,
  withSecurityHeaders,
} from '#server/security/headers.ts'
import { uploadService } from './upload-service.ts'

/** The most a whole multipart request may carry: the image and room for its form framing. */
const MAX_REQUEST_BYTES = UPLOAD_MAX_BYTES + 64 * 1024

/**
 * A refusal inside a handler, audited as the route middleware audits its own (permissions.ts): a
 * refusal changes nothing, so its event is written on its own, outside any transaction.
 */
async function refuse(ctx: ServerContext, c: Context<AppEnv>, permission: Permission) {
  await auditRefusal(ctx, c, permission)
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
  return concatBytes(parts)
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

// Served images never run anything: no script, no style, no frame, opened directly or embedded.
const FILE_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"

/**
 * `GET /upload/files/{id}/{key}`: an uploaded image, public because an `<img>` sends no bearer
 * token; the random key in the address is what grants it (docs/decisions/011-uploads.md). It
 * answers with the type read from the content, `nosniff`, `inline` and a CSP that runs nothing,
 * and may be cached: a key's bytes never change.
 */
export function uploadFileRoutes(ctx: ServerContext) {
  const files = uploadService(ctx)
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
  ) as Record<UploadMediaType, SecuredHeaders>
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
      const { mime, bytes } = await files.file(c.req.valid('param').id, c.req.param('key'))
      return securedResponse(new Uint8Array(bytes), 200, headers[mime])
    },
  )
}

/**
 * Uploaded files, mounted at `/upload`.
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
  const files = uploadService(ctx)
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
        const stored = await files.store(actorOf(ctx, c), { name: file.name, image, purpose })
        return c.json(stored, 201)
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
        // A refusal is audited after the transaction: PGlite has one connection, which it holds.
        const outcome = await files.remove(actorOf(ctx, c), c.req.valid('param').id)
        if ('refused' in outcome) throw await refuse(ctx, c, outcome.refused)
        return c.json(outcome.removed)
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
  const files = uploadService(ctx)
  const change = async (c: Context<AppEnv>, uploadId: number | null) =>
    c.json({ image_path: await files.setLogo(actorOf(ctx, c), uploadId) })
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
  const files = uploadService(ctx)
  const change = async (c: Context<AppEnv>, id: number, uploadId: number | null) =>
    c.json(await files.setAvatar(actorOf(ctx, c), id, uploadId))
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

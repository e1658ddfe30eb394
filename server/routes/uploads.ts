import { rm } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { uploads } from '#server/db/schema.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams } from '#server/http/validate.ts'

/**
 * Uploaded files, mounted at `/upload` (spec section 7: `DELETE /upload/files/{id}`). Deleting
 * removes the row and, when an uploads folder is configured, the stored file; it answers the
 * removed file's `{ id, name, mime, size }`.
 */
export function uploadRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .delete('/files/:id', anyStaffMember(), idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      const [row] = await ctx.db.select().from(uploads).where(eq(uploads.id, id)).limit(1)
      const upload = ownRow(c.var.user, row, 'File')
      await ctx.db.delete(uploads).where(eq(uploads.id, upload.id))
      const folder = ctx.config.uploadsDir
      if (folder) {
        const root = resolve(folder)
        const path = resolve(root, upload.storage_key)
        // A key that escapes the folder is never followed.
        if (path.startsWith(root + sep)) await rm(path, { force: true })
      }
      return c.json({ id: upload.id, name: upload.name, mime: upload.mime, size: upload.size })
    })
}

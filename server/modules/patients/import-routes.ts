/**
 * The patient import (decision 010). The browser reads the
 * CSV, maps its columns and sends the rows in chunks of at most 200, each named by the file's
 * SHA-256 and its row numbers:
 *
 * - `POST /patients/import/preview` checks a chunk and writes nothing: the rows that would be
 *   created, those refused with the reason (the rules of `POST /patients`, a duplicate e-mail or
 *   phone of a patient of the practice or of an earlier row of the chunk), and those this file
 *   already created.
 * - `POST /patients/import` does the same and creates the rows that pass, in one transaction per
 *   chunk under the practice's row lock. Each created row is remembered (`patient_import_rows`,
 *   keyed by practice, file and row), so the same chunk again, or the same file again, creates
 *   nobody and reports those rows as already imported; two identical chunks at once create once.
 *   Each chunk is an audit event with its counts only, never a name or a contact.
 */
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import {
  IMPORT_CHUNK_ROWS,
  IMPORT_MAX_ROWS,
  IMPORT_MESSAGES,
  PatientImportAnswerSchema,
  PatientImportChunkSchema,
  PatientImportPreviewSchema,
} from '#domain/patient-import.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { createPatientImport } from './import-service.ts'
import { actorOf } from './routes.ts'

/**
 * The import's limits, enforced here and not only by the page: a chunk of more than
 * {@link IMPORT_CHUNK_ROWS} rows, or a row numbered beyond a file of {@link IMPORT_MAX_ROWS}
 * patient rows, is refused with 413 before anything else reads the body. Row numbers are unique
 * per file and bounded, so a file can never bring more than its limit of patients, however many
 * chunks it is sent in (a chunk sent again creates nobody).
 */
const importLimits = createMiddleware<AppEnv>(async (c, next) => {
  const body: unknown = await c.req.json().catch(() => null)
  const rows = (body as { rows?: unknown } | null)?.rows
  if (Array.isArray(rows)) {
    const tooLarge = (message: string) =>
      new ApiError(413, API_ERROR_NAMES.payloadTooLarge, message)
    if (rows.length > IMPORT_CHUNK_ROWS) throw tooLarge(IMPORT_MESSAGES.tooManyRowsInChunk)
    const beyond = rows.some(
      (r) =>
        typeof (r as { row?: unknown })?.row === 'number' &&
        (r as { row: number }).row > IMPORT_MAX_ROWS + 1,
    )
    if (beyond) throw tooLarge(IMPORT_MESSAGES.rowBeyondFile)
  }
  await next()
})

/** The 413 of the import's limits in the OpenAPI document, as {@link importLimits} refuses it. */
const IMPORT_LIMITS_ANSWER = `More rows than a chunk holds, or a row numbered beyond a file's limit: "${IMPORT_MESSAGES.tooManyRowsInChunk}" or "${IMPORT_MESSAGES.rowBeyondFile}" (or a body over 100 KB).`

/** `POST /patients/import/preview` and `POST /patients/import` (Manager, Admin). */
export function patientImportRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const importing = requirePermission(ctx, 'patients.import')
  const imports = createPatientImport(ctx)

  return new Hono<AppEnv>()
    .post(
      '/preview',
      operation({
        summary: 'Check rows of a patient import',
        description:
          "Up to 200 mapped rows of a CSV file, named by the file's SHA-256 and their row numbers, checked with the rules of POST /patients: the number that would be created, the rows refused with the reason (a field rule, a duplicate e-mail or phone of a patient of the practice, with that patient's id, or of an earlier row of the chunk), and the rows this file already created, with the sum of the opening balances (`points`) of the rows that would be created. Dates come as YYYY-MM-DD and phones in E.164, as the page reads them; a cell that is not one is refused with a sentence quoting it. Writes nothing. Manager, Admin.",
        tag: 'Patients',
        responses: {
          200: {
            description: 'What importing these rows would do.',
            json: PatientImportPreviewSchema,
          },
          413: IMPORT_LIMITS_ANSWER,
        },
      }),
      auth,
      importing,
      importLimits,
      jsonBody(PatientImportChunkSchema),
      async (c) => c.json(await imports.preview(c.var.user.practice_id, c.req.valid('json'))),
    )
    .post(
      '/',
      operation({
        summary: 'Import rows of a CSV file as patients',
        description:
          'Up to 200 mapped rows, checked as the preview does and created in one transaction under the practice\'s lock. Each created row is remembered by file and row number: the same chunk again, or the same file again, creates nobody and lists those rows in `already_imported`; two identical chunks at once create once. Each created row\'s `opening_balance` is one ledger entry ("Opening balance from import"), posted in the same transaction, so it is posted once per file row (`points_posted`) and logged as a ledger posting. Audited with the counts only. Manager, Admin.',
        tag: 'Patients',
        responses: {
          200: {
            description: 'Nothing was created: every row was refused or already imported.',
            json: PatientImportAnswerSchema,
          },
          201: {
            description: 'Patients were created; `skipped` counts the other rows.',
            json: PatientImportAnswerSchema,
          },
          413: IMPORT_LIMITS_ANSWER,
        },
      }),
      auth,
      importing,
      importLimits,
      jsonBody(PatientImportChunkSchema),
      async (c) => {
        const answer = await imports.importChunk(actorOf(ctx, c), c.req.valid('json'))
        return c.json(answer, answer.created > 0 ? 201 : 200)
      },
    )
}

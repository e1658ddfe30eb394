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
import { and, eq, inArray, or, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import {
  type CheckedImportRow,
  checkImportRow,
  duplicatesWithin,
  IMPORT_CHUNK_ROWS,
  IMPORT_MAX_ROWS,
  IMPORT_MESSAGES,
  type ImportRejection,
  type ImportRow,
  OPENING_BALANCE_REASON,
  type PatientImportAnswer,
  PatientImportAnswerSchema,
  type PatientImportChunk,
  PatientImportChunkSchema,
  type PatientImportPreview,
  PatientImportPreviewSchema,
} from '#domain/patient-import.ts'
import { DUPLICATE_PATIENT_MESSAGES } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patientImportRows, patients, practices } from '#server/db/schema.ts'
import { ApiError, badRequest } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, type LedgerEntryRow } from '#server/modules/ledger/index.ts'
import { operation } from '#server/openapi/operation.ts'

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

type Chunk = {
  fileId: string
  practiceId: number
  rows: ImportRow[]
  /** The importer's statement that every patient of the file agreed to marketing e-mail. */
  emailConsentForAll: boolean
  /** Today (UTC), the latest day a patient can have joined. */
  today: string
}

type Creatable = Extract<CheckedImportRow, { ok: true }>

/** What a chunk would do: the rows to create, the refused ones, those the file already created. */
type ChunkPlan = {
  create: Creatable[]
  rejected: ImportRejection[]
  alreadyImported: number[]
}

/** Checks a chunk against the rules, the practice's patients and the rows the file created. */
async function planChunk(db: Database | Transaction, chunk: Chunk): Promise<ChunkPlan> {
  const numbers = chunk.rows.map((r) => r.row)
  const imported = await db
    .select({ row: patientImportRows.row_number })
    .from(patientImportRows)
    .where(
      and(
        eq(patientImportRows.practice_id, chunk.practiceId),
        eq(patientImportRows.file_id, chunk.fileId),
        inArray(patientImportRows.row_number, numbers),
      ),
    )
  const alreadyImported = new Set(imported.map((r) => r.row))
  const checked: CheckedImportRow[] = chunk.rows
    .filter((r) => !alreadyImported.has(r.row))
    .map((r) =>
      checkImportRow(r, { emailConsentForAll: chunk.emailConsentForAll, today: chunk.today }),
    )
  const rejected: ImportRejection[] = []
  const valid: Creatable[] = []
  for (const result of checked) {
    if (result.ok) valid.push(result)
    else rejected.push({ row: result.row, reason: result.reason, patient_id: null })
  }

  // Duplicates of the practice's patients, by e-mail (any case) or phone as stored: the rule of
  // POST /patients, read for the whole chunk in one query.
  const emails = [
    ...new Set(valid.flatMap((r) => (r.input.email ? [r.input.email.toLowerCase()] : []))),
  ]
  const phones = [...new Set(valid.flatMap((r) => (r.input.phone ? [r.input.phone] : [])))]
  const existing =
    emails.length + phones.length === 0
      ? []
      : await db
          .select({ id: patients.id, email: patients.email, phone: patients.phone })
          .from(patients)
          .where(
            and(
              eq(patients.practice_id, chunk.practiceId),
              or(
                emails.length > 0 ? inArray(sql`lower(${patients.email})`, emails) : undefined,
                phones.length > 0 ? inArray(patients.phone, phones) : undefined,
              ),
            ),
          )
  const byEmail = new Map<string, number>()
  const byPhone = new Map<string, number>()
  for (const patient of existing) {
    if (patient.email) byEmail.set(patient.email.toLowerCase(), patient.id)
    if (patient.phone) byPhone.set(patient.phone, patient.id)
  }
  const fresh: Creatable[] = []
  for (const r of valid) {
    const emailOwner = r.input.email ? byEmail.get(r.input.email.toLowerCase()) : undefined
    const phoneOwner = r.input.phone ? byPhone.get(r.input.phone) : undefined
    if (emailOwner !== undefined) {
      rejected.push({
        row: r.row,
        reason: DUPLICATE_PATIENT_MESSAGES.email,
        patient_id: emailOwner,
      })
    } else if (phoneOwner !== undefined) {
      rejected.push({
        row: r.row,
        reason: DUPLICATE_PATIENT_MESSAGES.phone,
        patient_id: phoneOwner,
      })
    } else fresh.push(r)
  }
  const within = duplicatesWithin(fresh)
  const create: ChunkPlan['create'] = []
  for (const r of fresh) {
    const reason = within.get(r.row)
    if (reason) rejected.push({ row: r.row, reason, patient_id: null })
    else create.push(r)
  }
  rejected.sort((a, b) => a.row - b.row)
  return { create, rejected, alreadyImported: [...alreadyImported].sort((a, b) => a - b) }
}

/**
 * A chunk as the plan reads it. The statement for the whole file is refused (400) with a chunk
 * whose rows carry an e-mail consent column: each row's own answer is then the consent.
 */
function chunkOf(body: PatientImportChunk, practiceId: number, now: Date): Chunk {
  const emailConsentForAll = body.email_consent_for_all === true
  if (emailConsentForAll && body.rows.some((r) => r.email_subscription != null)) {
    throw badRequest(IMPORT_MESSAGES.consentColumn)
  }
  return {
    fileId: body.file_id,
    practiceId,
    rows: body.rows,
    emailConsentForAll,
    today: now.toISOString().slice(0, 10),
  }
}

/** `POST /patients/import/preview` and `POST /patients/import` (Manager, Admin). */
export function patientImportRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const importing = requirePermission(ctx, 'patients.import')

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
      async (c) => {
        const body = c.req.valid('json')
        const plan = await planChunk(ctx.db, chunkOf(body, c.var.user.practice_id, ctx.now()))
        const answer: PatientImportPreview = {
          ready: plan.create.length,
          points: plan.create.reduce((sum, r) => sum + r.openingBalance, 0),
          rejected: plan.rejected,
          already_imported: plan.alreadyImported,
        }
        return c.json(answer)
      },
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
        const body = c.req.valid('json')
        const user = c.var.user
        const now = ctx.now()
        // The transaction may run again after a deadlock (server/db/retry.ts): what it posted is
        // returned from the attempt that committed, never gathered across attempts.
        const { answer, openings } = await ctx.db.transaction(async (tx) => {
          const openings: LedgerEntryRow[] = []
          // One chunk at a time per practice: the duplicate checks and the file's rows are read
          // under this lock, so two identical chunks at once create once.
          await tx
            .select({ id: practices.id })
            .from(practices)
            .where(eq(practices.id, user.practice_id))
            .for('update')
          const plan = await planChunk(tx, chunkOf(body, user.practice_id, now))
          if (plan.create.length > 0) {
            const created = await tx
              .insert(patients)
              .values(
                plan.create.map((r) => ({
                  ...r.input,
                  // Consent is always written: the column's default never decides.
                  email_subscription: r.input.email_subscription,
                  sms_subscription: r.input.sms_subscription,
                  joined_on: r.joinedOn,
                  imported: true,
                  practice_id: user.practice_id,
                  unsubscribe_id: randomToken(),
                  created_at: now,
                })),
              )
              .returning({ id: patients.id })
            await tx.insert(patientImportRows).values(
              plan.create.map((r, i) => ({
                practice_id: user.practice_id,
                file_id: body.file_id,
                row_number: r.row,
                patient_id: created[i]?.id ?? 0,
                created_by: user.id,
                created_at: now,
              })),
            )
            // Each created row's opening balance, one ledger entry through the ledger
            // (its lot, expiry and cached balance), in this transaction: the row is created once
            // per file, so its balance is posted once; the key is the ledger's own second guard.
            openings.push(
              ...(await createLedger({ db: tx, now: ctx.now }).openingBalances(tx, {
                practiceId: user.practice_id,
                userId: user.id,
                reason: OPENING_BALANCE_REASON,
                entries: plan.create.flatMap((r, i) => {
                  const patientId = created[i]?.id
                  return patientId && r.openingBalance > 0
                    ? [
                        {
                          patientId,
                          points: r.openingBalance,
                          idempotencyKey: `import:${body.file_id}:${r.row}`,
                        },
                      ]
                    : []
                }),
              })),
            )
          }
          const result: PatientImportAnswer = {
            created: plan.create.length,
            points_posted: openings.reduce((sum, e) => sum + e.points, 0),
            skipped: plan.rejected.length + plan.alreadyImported.length,
            rejected: plan.rejected,
            already_imported: plan.alreadyImported,
          }
          return { answer: result, openings }
        })
        // Each opening balance is a ledger move, logged as every other one is.
        for (const entry of openings) {
          await ctx.audit.record({
            action: 'ledger.posted',
            userId: user.id,
            practiceId: user.practice_id,
            ip: ctx.clientIp(c),
            details: {
              patient_id: entry.patient_id,
              entry_id: entry.id,
              kind: entry.kind,
              points: entry.points,
            },
          })
        }
        // Counts only: the file's names and contacts never reach the audit trail.
        await ctx.audit.record({
          action: 'patients.imported',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: {
            rows: body.rows.length,
            created: answer.created,
            rejected: answer.rejected.length,
            already_imported: answer.already_imported.length,
            points_posted: answer.points_posted,
            // The importer's statement for the whole file: who and when are the event's own.
            ...(body.email_consent_for_all ? { email_consent_stated: true } : {}),
          },
        })
        return c.json(answer, answer.created > 0 ? 201 : 200)
      },
    )
}

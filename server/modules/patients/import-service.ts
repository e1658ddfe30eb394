/**
 * The patient import's use cases (decision 010): checking a chunk of mapped CSV rows against the
 * rules of `POST /patients`, the practice's patients and the rows the file already created, and
 * creating the rows that pass in one transaction per chunk under the practice's row lock, with
 * their opening balances and the chunk's audit events.
 */
import { and, eq, inArray, or, sql } from 'drizzle-orm'
import {
  type CheckedImportRow,
  checkImportRow,
  duplicatesWithin,
  IMPORT_MESSAGES,
  type ImportRejection,
  type ImportRow,
  OPENING_BALANCE_REASON,
  type PatientImportAnswer,
  type PatientImportChunk,
  type PatientImportPreview,
} from '#domain/patient-import.ts'
import { DUPLICATE_PATIENT_MESSAGES } from '#domain/practice-data.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { patientImportRows, patients, practices } from '#server/db/schema.ts'
import { invalid } from '#server/lib/domain-error.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, type LedgerEntryRow } from '#server/modules/ledger/index.ts'
import type { Executor } from './queries.ts'
import type { Actor, PatientDeps } from './service.ts'

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
async function planChunk(db: Executor, chunk: Chunk): Promise<ChunkPlan> {
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
 * A chunk as the plan reads it. The statement for the whole file is refused (invalid) with a chunk
 * whose rows carry an e-mail consent column: each row's own answer is then the consent.
 */
function chunkOf(body: PatientImportChunk, practiceId: number, now: Date): Chunk {
  const emailConsentForAll = body.email_consent_for_all === true
  if (emailConsentForAll && body.rows.some((r) => r.email_subscription != null)) {
    throw invalid(IMPORT_MESSAGES.consentColumn)
  }
  return {
    fileId: body.file_id,
    practiceId,
    rows: body.rows,
    emailConsentForAll,
    today: now.toISOString().slice(0, 10),
  }
}

/** The import of one practice's CSV files, chunk by chunk, over one database. */
export function createPatientImport({ db, now }: PatientDeps) {
  return {
    /** What importing the chunk would do; writes nothing. */
    async preview(practiceId: number, body: PatientImportChunk): Promise<PatientImportPreview> {
      const plan = await planChunk(db, chunkOf(body, practiceId, now()))
      return {
        ready: plan.create.length,
        points: plan.create.reduce((sum, r) => sum + r.openingBalance, 0),
        rejected: plan.rejected,
        already_imported: plan.alreadyImported,
      }
    },

    /**
     * Creates the chunk's rows that pass, with their opening balances, in one transaction under
     * the practice's lock, and records in it each opening balance as a ledger posting and the
     * chunk with its counts only. A chunk that creates nobody still records its counts.
     */
    importChunk(actor: Actor, body: PatientImportChunk): Promise<PatientImportAnswer> {
      const at = now()
      // The transaction may run again after a deadlock (server/db/retry.ts): what it posted is
      // returned from the attempt that committed, never gathered across attempts.
      return db.transaction(async (tx) => {
        const openings: LedgerEntryRow[] = []
        // One chunk at a time per practice: the duplicate checks and the file's rows are read
        // under this lock, so two identical chunks at once create once.
        await tx
          .select({ id: practices.id })
          .from(practices)
          .where(eq(practices.id, actor.practiceId))
          .for('update')
        const plan = await planChunk(tx, chunkOf(body, actor.practiceId, at))
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
                practice_id: actor.practiceId,
                unsubscribe_id: randomToken(),
                created_at: at,
              })),
            )
            .returning({ id: patients.id })
          await tx.insert(patientImportRows).values(
            plan.create.map((r, i) => ({
              practice_id: actor.practiceId,
              file_id: body.file_id,
              row_number: r.row,
              patient_id: created[i]?.id ?? 0,
              created_by: actor.userId,
              created_at: at,
            })),
          )
          // Each created row's opening balance, one ledger entry through the ledger
          // (its lot, expiry and cached balance), in this transaction: the row is created once
          // per file, so its balance is posted once; the key is the ledger's own second guard.
          openings.push(
            ...(await createLedger({ db: tx, now }).openingBalances(tx, {
              practiceId: actor.practiceId,
              userId: actor.userId,
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
        const answer: PatientImportAnswer = {
          created: plan.create.length,
          points_posted: openings.reduce((sum, e) => sum + e.points, 0),
          skipped: plan.rejected.length + plan.alreadyImported.length,
          rejected: plan.rejected,
          already_imported: plan.alreadyImported,
        }
        // The audit events come last, so the audit trail's turn is held only until the commit.
        const who = { userId: actor.userId, practiceId: actor.practiceId, ip: actor.ip }
        // Each opening balance is a ledger move, logged as every other one is.
        for (const entry of openings) {
          await recordWithin(
            tx,
            {
              action: 'ledger.posted',
              ...who,
              details: {
                patient_id: entry.patient_id,
                entry_id: entry.id,
                kind: entry.kind,
                points: entry.points,
              },
            },
            at,
          )
        }
        // Counts only: the file's names and contacts never reach the audit trail.
        await recordWithin(
          tx,
          {
            action: 'patients.imported',
            ...who,
            details: {
              rows: body.rows.length,
              created: answer.created,
              rejected: answer.rejected.length,
              already_imported: answer.already_imported.length,
              points_posted: answer.points_posted,
              // The importer's statement for the whole file: who and when are the event's own.
              ...(body.email_consent_for_all ? { email_consent_stated: true } : {}),
            },
          },
          at,
        )
        return answer
      })
    },
  }
}

/**
 * Nextech patients and appointments in Glow (NEXTECH.md section 2, "Mapping"). A Nextech patient
 * is linked to a Glow patient by its Nextech id. One not linked yet is matched by e-mail or
 * phone: no candidate creates the patient, one whose name agrees links it, and several, or one
 * whose name disagrees, wait in the review queue; the sync never guesses. For a linked patient
 * Nextech is the source of truth for the name and contact details; `exclude-from-mailings`
 * turns marketing e-mail off (and never back on).
 */
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { NEXTECH_SYNC_MESSAGES, type NextechCounts } from '#domain/nextech.ts'
import { toE164 } from '#domain/phone.ts'
import { recordWithin, safeDetails } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import {
  appointments,
  auditEvents,
  nextechPatients,
  nextechReviews,
  nextechWaitingAppointments,
  patients,
} from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, readProgrammeRules } from '#server/modules/ledger/index.ts'
import type { NextechAppointment, NextechPatient } from '#server/nextech/resources.ts'
import { createReferrals } from './referrals.ts'

type Context = Pick<ServerContext, 'db' | 'now'>

/** Nextech's appointment statuses in Glow's three. */
export function glowAppointmentStatus(status: string): 'scheduled' | 'completed' | 'cancelled' {
  if (status === 'fulfilled') return 'completed'
  if (status === 'cancelled' || status === 'noshow' || status === 'entered-in-error') {
    return 'cancelled'
  }
  return 'scheduled'
}

/** Letters only, lower-cased: "O'Brien" and "obrien" agree. */
const letters = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z]/g, '')

/** Whether two people's names agree: the same last name and the same first initial. */
export function namesAgree(
  a: { first_name: string; last_name: string },
  b: { first_name: string; last_name: string },
): boolean {
  return (
    letters(a.last_name) === letters(b.last_name) &&
    letters(a.first_name).slice(0, 1) === letters(b.first_name).slice(0, 1)
  )
}

/** The Glow fields of a Nextech patient. */
function fieldsOf(patient: NextechPatient) {
  return {
    first_name: patient.firstName.trim() || '(no first name)',
    last_name: patient.lastName.trim() || '(no last name)',
    email: patient.email?.trim().toLowerCase() || null,
    phone: patient.phone ? toE164(patient.phone) : null,
    birth_date: patient.birthDate,
  }
}

/** The Nextech record as the review queue keeps and shows it. */
export function reviewRecord(patient: NextechPatient) {
  const fields = fieldsOf(patient)
  return {
    id: patient.id,
    first_name: fields.first_name,
    last_name: fields.last_name,
    email: fields.email,
    phone: fields.phone,
    birth_date: fields.birth_date,
    exclude_from_mailings: patient.excludeFromMailings,
    referring_patient_id: patient.referringPatientId,
  }
}
export type ReviewRecord = ReturnType<typeof reviewRecord>

export function createPatientSync(ctx: Context) {
  const { db, now } = ctx
  const ledger = createLedger({ db, now })
  const referrals = createReferrals({ db, now })

  /** Creates the Glow patient of a Nextech record, with the joining bonus, in `tx`. */
  async function createFrom(
    tx: Transaction,
    practiceId: number,
    record: ReviewRecord,
    userId: number | null,
  ): Promise<number> {
    const at = now()
    const [row] = await tx
      .insert(patients)
      .values({
        practice_id: practiceId,
        first_name: record.first_name,
        last_name: record.last_name,
        email: record.email,
        phone: record.phone,
        birth_date: record.birth_date,
        email_subscription: !record.exclude_from_mailings,
        unsubscribe_id: randomToken(),
        created_at: at,
      })
      .returning({ id: patients.id, points: patients.points })
    if (!row) throw new Error('The patient was not stored')
    const { joining_bonus } = await readProgrammeRules(tx, practiceId)
    if (joining_bonus > 0) {
      await ledger.locked(tx, { practiceId, patientId: row.id, balance: row.points }).credit({
        userId,
        kind: 'bonus',
        points: joining_bonus,
        sourceType: 'joining',
        idempotencyKey: `joining-bonus:${row.id}`,
      })
    }
    await recordWithin(
      tx,
      {
        action: 'nextech.patient_created',
        userId,
        practiceId,
        details: { patient_id: row.id, nextech_id: record.id },
      },
      at,
    )
    return row.id
  }

  /**
   * Nextech's details on linked patients, in `tx`: their rows read in one query, and only those
   * that differ written. Answers how many changed.
   */
  async function refreshMany(
    tx: Transaction,
    items: { patientId: number; record: ReviewRecord }[],
  ): Promise<number> {
    if (items.length === 0) return 0
    const rows = await tx
      .select({
        id: patients.id,
        first_name: patients.first_name,
        last_name: patients.last_name,
        email: patients.email,
        phone: patients.phone,
        birth_date: patients.birth_date,
        email_subscription: patients.email_subscription,
      })
      .from(patients)
      .where(
        inArray(
          patients.id,
          items.map((item) => item.patientId),
        ),
      )
    const currentOf = new Map(rows.map((row) => [row.id, row]))
    let changed = 0
    for (const { patientId, record } of items) {
      const current = currentOf.get(patientId)
      if (!current) continue
      const changes: Partial<typeof patients.$inferInsert> = {}
      if (current.first_name !== record.first_name) changes.first_name = record.first_name
      if (current.last_name !== record.last_name) changes.last_name = record.last_name
      // An empty field in Nextech does not erase what the desk knows.
      if (record.email && current.email !== record.email) changes.email = record.email
      if (record.phone && current.phone !== record.phone) changes.phone = record.phone
      if (record.birth_date && String(current.birth_date) !== record.birth_date) {
        changes.birth_date = record.birth_date
      }
      if (record.exclude_from_mailings && current.email_subscription) {
        changes.email_subscription = false
      }
      if (Object.keys(changes).length === 0) continue
      changed += 1
      await tx.update(patients).set(changes).where(eq(patients.id, patientId))
      await recordWithin(
        tx,
        {
          action: 'patient.updated',
          userId: null,
          details: { patient_id: patientId, source: 'nextech' },
        },
        now(),
      )
    }
    return changed
  }

  /** Nextech's details on a linked patient; answers whether anything changed. */
  async function refresh(tx: Transaction, patientId: number, record: ReviewRecord) {
    return (await refreshMany(tx, [{ patientId, record }])) > 0
  }

  /** Links a Nextech patient to a Glow patient in `tx`. */
  async function link(
    tx: Transaction,
    practiceId: number,
    record: ReviewRecord,
    patientId: number,
    userId: number | null,
  ) {
    const at = now()
    await tx
      .insert(nextechPatients)
      .values({
        practice_id: practiceId,
        nextech_id: record.id,
        patient_id: patientId,
        state: 'linked',
        referring_nextech_id: record.referring_patient_id,
        updated_at: at,
      })
      .onConflictDoUpdate({
        target: [nextechPatients.practice_id, nextechPatients.nextech_id],
        set: { patient_id: patientId, state: 'linked', updated_at: at },
      })
    await recordWithin(
      tx,
      {
        action: 'nextech.patient_linked',
        userId,
        practiceId,
        details: { patient_id: patientId, nextech_id: record.id },
      },
      at,
    )
    // Patients this one referred, whose bills came first, now have their referrer.
    await referrals.awardIn(tx, practiceId, { referrers: [record.id] }, null)
  }

  /**
   * Creates the Glow patients of Nextech records in `tx`, in one statement, with the joining
   * bonus; answers their ids in the order of `records`.
   */
  async function createMany(
    tx: Transaction,
    practiceId: number,
    records: ReviewRecord[],
  ): Promise<number[]> {
    if (records.length === 0) return []
    const at = now()
    const tokens = records.map(() => randomToken())
    const rows = await tx
      .insert(patients)
      .values(
        records.map((record, index) => ({
          practice_id: practiceId,
          first_name: record.first_name,
          last_name: record.last_name,
          email: record.email,
          phone: record.phone,
          birth_date: record.birth_date,
          email_subscription: !record.exclude_from_mailings,
          unsubscribe_id: tokens[index] as string,
          created_at: at,
        })),
      )
      .returning({ id: patients.id, unsubscribe_id: patients.unsubscribe_id })
    const idOf = new Map(rows.map((row) => [row.unsubscribe_id, row.id]))
    const ids = tokens.map((token) => idOf.get(token) as number)
    const { joining_bonus } = await readProgrammeRules(tx, practiceId)
    if (joining_bonus > 0) {
      await ledger.creditMany(
        tx,
        practiceId,
        new Map(ids.map((id) => [id, 0])),
        ids.map((id) => ({
          patientId: id,
          userId: null,
          kind: 'bonus' as const,
          points: joining_bonus,
          sourceType: 'joining' as const,
          idempotencyKey: `joining-bonus:${id}`,
        })),
      )
    }
    await tx.insert(auditEvents).values(
      records.map((record, index) => ({
        action: 'nextech.patient_created' as const,
        user_id: null,
        practice_id: practiceId,
        ip: null,
        details: safeDetails({ patient_id: ids[index] as number, nextech_id: record.id }),
        created_at: at,
      })),
    )
    return ids
  }

  return {
    createFrom,
    link,
    refresh,

    /**
     * A page of Nextech patients in one transaction: linked ones refreshed, the others matched
     * by e-mail or phone (one query for the page) and created, linked or queued for review.
     * Answers the Nextech ids linked by this page (created or matched), whose waiting bills may
     * now earn.
     */
    async applyPage(
      practiceId: number,
      list: NextechPatient[],
      counts: NextechCounts,
    ): Promise<string[]> {
      // The last version of a patient a page carries twice.
      const records = [...new Map(list.map((patient) => [patient.id, patient])).values()].map(
        reviewRecord,
      )
      if (records.length === 0) return []
      const ids = records.map((record) => record.id)
      return db.transaction(async (tx) => {
        const at = now()
        await tx
          .insert(nextechPatients)
          .values(
            records.map((record) => ({
              practice_id: practiceId,
              nextech_id: record.id,
              patient_id: null,
              state: 'review',
              referring_nextech_id: record.referring_patient_id,
              updated_at: at,
            })),
          )
          .onConflictDoNothing()
        // The link rows are the Nextech patients' locks: a second walk of them waits its turn.
        const links = await tx
          .select()
          .from(nextechPatients)
          .where(
            and(
              eq(nextechPatients.practice_id, practiceId),
              inArray(nextechPatients.nextech_id, ids),
            ),
          )
          .orderBy(nextechPatients.nextech_id)
          .for('update')
        const linkOf = new Map(links.map((link) => [link.nextech_id, link]))
        const open = await tx
          .select({ id: nextechReviews.id, subject: nextechReviews.subject })
          .from(nextechReviews)
          .where(
            and(
              eq(nextechReviews.practice_id, practiceId),
              eq(nextechReviews.kind, 'patient'),
              inArray(nextechReviews.subject, ids),
              isNull(nextechReviews.resolved_at),
            ),
          )
        const openOf = new Map(open.map((item) => [item.subject, item.id]))

        const linked: ReviewRecord[] = []
        const unlinked: ReviewRecord[] = []
        for (const record of records) {
          const link = linkOf.get(record.id)
          if (!link || link.state === 'ignored') continue
          if (link.state === 'linked' && link.patient_id !== null) linked.push(record)
          else if (openOf.has(record.id)) {
            // Waiting for a person: keep what they will see up to date, decide nothing.
            await tx
              .update(nextechReviews)
              .set({
                details: sql`${nextechReviews.details} || ${JSON.stringify({ nextech: record })}::jsonb`,
              })
              .where(eq(nextechReviews.id, openOf.get(record.id) as number))
          } else unlinked.push(record)
        }
        counts.patients_updated += await refreshMany(
          tx,
          linked.map((record) => ({
            patientId: linkOf.get(record.id)?.patient_id as number,
            record,
          })),
        )
        if (unlinked.length === 0) return []

        const emails = unlinked.map((record) => record.email).filter((e): e is string => !!e)
        const phones = unlinked.map((record) => record.phone).filter((p): p is string => !!p)
        const found =
          emails.length + phones.length === 0
            ? []
            : await tx
                .select({
                  id: patients.id,
                  first_name: patients.first_name,
                  last_name: patients.last_name,
                  email: sql<string | null>`lower(${patients.email})`,
                  phone: patients.phone,
                })
                .from(patients)
                .where(
                  and(
                    eq(patients.practice_id, practiceId),
                    isNull(patients.archived_at),
                    or(
                      emails.length > 0
                        ? inArray(sql`lower(${patients.email})`, emails)
                        : sql`false`,
                      phones.length > 0 ? inArray(patients.phone, phones) : sql`false`,
                    ),
                    // A patient already linked to another Nextech record is not this one.
                    sql`not exists (select 1 from ${nextechPatients} l where l.practice_id = ${practiceId} and l.patient_id = ${patients.id} and l.state = 'linked')`,
                  ),
                )
        const toCreate: ReviewRecord[] = []
        const toLink: { record: ReviewRecord; patientId: number }[] = []
        const claimed = new Set<number>()
        for (const record of unlinked) {
          const candidates = found.filter(
            (candidate) =>
              !claimed.has(candidate.id) &&
              ((record.email && candidate.email === record.email) ||
                (record.phone && candidate.phone === record.phone)),
          )
          const [only] = candidates
          if (candidates.length === 0) {
            toCreate.push(record)
          } else if (candidates.length === 1 && only && namesAgree(only, record)) {
            claimed.add(only.id)
            toLink.push({ record, patientId: only.id })
          } else {
            await tx.insert(nextechReviews).values({
              practice_id: practiceId,
              kind: 'patient',
              subject: record.id,
              message:
                candidates.length === 1 && only
                  ? NEXTECH_SYNC_MESSAGES.nameDisagrees(
                      `${record.first_name} ${record.last_name}`,
                      `${only.first_name} ${only.last_name}`,
                    )
                  : NEXTECH_SYNC_MESSAGES.several(candidates.length),
              details: { nextech: record, candidates: candidates.map((candidate) => candidate.id) },
            })
            counts.patients_to_review += 1
          }
        }
        const created = await createMany(tx, practiceId, toCreate)
        const now_linked = [
          ...toLink,
          ...toCreate.map((record, index) => ({ record, patientId: created[index] as number })),
        ]
        if (now_linked.length > 0) {
          await tx.execute(
            sql`update ${nextechPatients} set patient_id = v.patient_id, state = 'linked', updated_at = ${at.toISOString()}::timestamptz from (values ${sql.join(
              now_linked.map((item) => sql`(${item.record.id}::text, ${item.patientId}::int)`),
              sql`, `,
            )}) as v(nextech_id, patient_id) where ${nextechPatients.practice_id} = ${practiceId} and ${nextechPatients.nextech_id} = v.nextech_id`,
          )
          await tx.insert(auditEvents).values(
            now_linked.map((item) => ({
              action: 'nextech.patient_linked' as const,
              user_id: null,
              practice_id: practiceId,
              ip: null,
              details: safeDetails({ patient_id: item.patientId, nextech_id: item.record.id }),
              created_at: at,
            })),
          )
        }
        await refreshMany(tx, toLink)
        // Patients these referred, whose bills came first, now have their referrer.
        await referrals.awardIn(
          tx,
          practiceId,
          { referrers: now_linked.map((item) => item.record.id) },
          counts,
        )
        counts.patients_linked += toLink.length
        counts.patients_created += toCreate.length
        return now_linked.map((item) => item.record.id)
      })
    },

    /**
     * A page of Nextech appointments, on their linked patients' records (one not linked yet is
     * skipped): one read of the links, one upsert.
     */
    async applyAppointments(
      practiceId: number,
      list: NextechAppointment[],
      counts: NextechCounts,
    ): Promise<void> {
      const usable = list.filter((appointment) => appointment.patientId && appointment.start)
      const ids = [...new Set(usable.map((appointment) => appointment.patientId as string))]
      if (ids.length === 0) return
      const linkOf = await linkedPatients(db, practiceId, ids)
      // One row per appointment: a page may, in principle, carry one twice (the last one counts).
      const linked = new Map<string, { appointment: NextechAppointment; patientId: number }>()
      const waiting = new Map<string, NextechAppointment>()
      for (const appointment of usable) {
        const patientId = linkOf.get(appointment.patientId as string)
        if (patientId) linked.set(appointment.id, { appointment, patientId })
        else waiting.set(appointment.id, appointment)
      }
      await db.transaction(async (tx) => {
        if (waiting.size > 0) {
          // Kept until the patient is linked (a person resolves the review, or Nextech sends them).
          const at = now()
          await tx
            .insert(nextechWaitingAppointments)
            .values(
              [...waiting.values()].map((appointment) => ({
                practice_id: practiceId,
                nextech_id: appointment.id,
                nextech_patient_id: appointment.patientId as string,
                record: appointment,
                updated_at: at,
              })),
            )
            .onConflictDoUpdate({
              target: [
                nextechWaitingAppointments.practice_id,
                nextechWaitingAppointments.nextech_id,
              ],
              set: {
                nextech_patient_id: sql`excluded.nextech_patient_id`,
                record: sql`excluded.record`,
                updated_at: sql`excluded.updated_at`,
              },
            })
        }
        counts.appointments += await upsertAppointments(tx, practiceId, [...linked.values()], now())
      })
    },

    /**
     * The appointments that waited for any of these Nextech patients, now that they are linked,
     * in the Appointments area (in `tx`, or a transaction of their own).
     */
    async applyWaitingAppointments(
      practiceId: number,
      nextechIds: string[],
      counts: NextechCounts | null,
      within?: Transaction,
    ): Promise<void> {
      if (nextechIds.length === 0) return
      const apply = async (tx: Transaction) => {
        const held = await tx
          .delete(nextechWaitingAppointments)
          .where(
            and(
              eq(nextechWaitingAppointments.practice_id, practiceId),
              inArray(nextechWaitingAppointments.nextech_patient_id, nextechIds),
            ),
          )
          .returning()
        if (held.length === 0) return
        const linkOf = await linkedPatients(tx, practiceId, nextechIds)
        const items = held.flatMap((row) => {
          const patientId = linkOf.get(row.nextech_patient_id)
          return patientId ? [{ appointment: row.record as NextechAppointment, patientId }] : []
        })
        const added = await upsertAppointments(tx, practiceId, items, now())
        if (counts) counts.appointments += added
      }
      await (within ? apply(within) : db.transaction(apply))
    },

    /** Forgets the appointments that waited for a Nextech patient a person chose to ignore. */
    async dropWaitingAppointments(tx: Transaction, practiceId: number, nextechId: string) {
      await tx
        .delete(nextechWaitingAppointments)
        .where(
          and(
            eq(nextechWaitingAppointments.practice_id, practiceId),
            eq(nextechWaitingAppointments.nextech_patient_id, nextechId),
          ),
        )
    },
  }
}

/** The Glow patients these Nextech patients are linked to, by Nextech id (unlinked ones absent). */
export async function linkedPatients(
  ex: Transaction | Pick<ServerContext, 'db'>['db'],
  practiceId: number,
  nextechIds: string[],
): Promise<Map<string, number>> {
  if (nextechIds.length === 0) return new Map()
  const links = await ex
    .select({ nextech_id: nextechPatients.nextech_id, patient_id: nextechPatients.patient_id })
    .from(nextechPatients)
    .where(
      and(
        eq(nextechPatients.practice_id, practiceId),
        inArray(nextechPatients.nextech_id, nextechIds),
        eq(nextechPatients.state, 'linked'),
      ),
    )
  return new Map(
    links.flatMap((link) =>
      link.patient_id === null ? [] : [[link.nextech_id, link.patient_id] as const],
    ),
  )
}

/** Nextech appointments on their linked Glow patients, upserted by Nextech id; answers how many. */
async function upsertAppointments(
  tx: Transaction,
  practiceId: number,
  items: { appointment: NextechAppointment; patientId: number }[],
  at: Date,
): Promise<number> {
  if (items.length === 0) return 0
  await tx
    .insert(appointments)
    .values(
      items.map(({ appointment, patientId }) => ({
        practice_id: practiceId,
        nextech_id: appointment.id,
        patient_id: patientId,
        starts_at: new Date(appointment.start as string),
        status: glowAppointmentStatus(appointment.status),
        nextech_status: appointment.status,
        notes: (appointment.type ?? '').slice(0, 1000),
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflictDoUpdate({
      target: [appointments.practice_id, appointments.nextech_id],
      targetWhere: sql`${appointments.nextech_id} is not null`,
      set: {
        patient_id: sql`excluded.patient_id`,
        starts_at: sql`excluded.starts_at`,
        status: sql`excluded.status`,
        nextech_status: sql`excluded.nextech_status`,
        notes: sql`excluded.notes`,
        updated_at: sql`excluded.updated_at`,
      },
    })
  return items.length
}

/** The patients half of the sync. */
export type PatientSync = ReturnType<typeof createPatientSync>

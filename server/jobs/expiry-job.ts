/**
 * The daily points job (rule 6, and section 6): posts the `expire` entries
 * of lapsed lots, marks claims of ended offers expired (promotions.ts `expireClaims`), and queues the reminder e-mails 30 and 7 days before points lapse. Both halves
 * are idempotent: an expiry entry's key is `expire:<lot>:<day>` and a lot with nothing left is
 * not open, and a reminder is queued in the transaction that writes its `points_reminders` row
 * (one per lot and threshold, `on conflict do nothing`). Running it twice, or on several
 * instances at once, posts and queues nothing new (docs/decisions/012-patient-email.md).
 */
import { and, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm'
import { DAY_MS } from '#domain/time.ts'
import type { Database } from '#server/db/client.ts'
import {
  ledgerAllocations,
  ledgerEntries,
  patients,
  pointsReminders,
  practices,
} from '#server/db/schema.ts'
import type { Logger } from '#server/lib/log.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'
import { createLedger } from '#server/modules/ledger/index.ts'
import {
  MAIL_PRACTICE_COLUMNS,
  mailPracticeOf,
  patientTemplateMail,
  pointsReminderEmail,
} from '#server/modules/patient-mail/index.ts'
import { expireClaims } from '#server/modules/promotions/index.ts'

/** The reminders, nearest first: a lot already inside 7 days gets that one only. */
export const REMINDER_DAYS = [7, 30] as const

/** What one run did. */
export type ExpiryRun = { expired: number; reminders: number }

type OpenLot = {
  lot_id: number
  practice_id: number
  patient_id: number
  remaining: number
  expires_at: Date
}

export function createExpiryJob({
  db,
  outbound,
  publicUrl,
  now,
  log,
}: {
  db: Database
  outbound: Pick<OutboundQueue, 'enqueue' | 'kick'>
  publicUrl: string
  now: () => Date
  log: Logger
}) {
  const ledger = createLedger({ db, now })

  /** Lots with points left that lapse within `days`, of patients marketing e-mail may reach. */
  async function lotsWithin(days: number, at: Date): Promise<OpenLot[]> {
    const allocated = sql<number>`coalesce((select sum(${ledgerAllocations.points}) from ${ledgerAllocations} where ${ledgerAllocations.lot_entry_id} = ${ledgerEntries.id}), 0)`
    const rows = await db
      .select({
        lot_id: ledgerEntries.id,
        practice_id: ledgerEntries.practice_id,
        patient_id: ledgerEntries.patient_id,
        remaining: sql<number>`(${ledgerEntries.points} - ${allocated})::int`,
        expires_at: ledgerEntries.expires_at,
      })
      .from(ledgerEntries)
      .innerJoin(patients, eq(patients.id, ledgerEntries.patient_id))
      .where(
        and(
          inArray(ledgerEntries.kind, ['earn', 'bonus', 'adjust']),
          gt(ledgerEntries.points, 0),
          gt(ledgerEntries.expires_at, at),
          lte(ledgerEntries.expires_at, new Date(at.getTime() + days * DAY_MS)),
          sql`${ledgerEntries.points} - ${allocated} > 0`,
          // The gate of marketing e-mail, in SQL so that the rest are not even read.
          eq(patients.email_subscription, true),
          isNull(patients.archived_at),
          sql`coalesce(${patients.email}, '') <> ''`,
          sql`not exists (select 1 from ${pointsReminders} where ${pointsReminders.lot_entry_id} = ${ledgerEntries.id} and ${pointsReminders.days_before} = ${days})`,
        ),
      )
    return rows.flatMap((row) =>
      row.expires_at
        ? [{ ...row, remaining: Number(row.remaining), expires_at: row.expires_at }]
        : [],
    )
  }

  /**
   * Queues one reminder per patient and lapse day for the lots of `days`, each in the
   * transaction that records its lots; a lot another run recorded first is left to it.
   */
  async function remind(days: number, at: Date): Promise<number> {
    const lots = await lotsWithin(days, at)
    const groups = new Map<string, OpenLot[]>()
    for (const lot of lots) {
      const key = `${lot.patient_id}:${lot.expires_at.toISOString().slice(0, 10)}`
      groups.set(key, [...(groups.get(key) ?? []), lot])
    }
    let queued = 0
    for (const group of groups.values()) {
      const first = group[0]
      if (!first) continue
      const sent = await db.transaction(async (tx) => {
        // The nearer reminder stands for the farther ones too: a lot first seen inside 7 days
        // never gets the 30-day one afterwards.
        const thresholds = REMINDER_DAYS.filter((threshold) => threshold >= days)
        const written = await tx
          .insert(pointsReminders)
          .values(
            group.flatMap((lot) =>
              thresholds.map((threshold) => ({
                lot_entry_id: lot.lot_id,
                days_before: threshold,
                practice_id: lot.practice_id,
                patient_id: lot.patient_id,
                created_at: at,
              })),
            ),
          )
          .onConflictDoNothing()
          .returning({ lot: pointsReminders.lot_entry_id, days: pointsReminders.days_before })
        const mine = group.filter((lot) =>
          written.some((row) => row.lot === lot.lot_id && row.days === days),
        )
        if (mine.length === 0) return false
        const [row] = await tx
          .select({
            first_name: patients.first_name,
            email: patients.email,
            email_subscription: patients.email_subscription,
            archived_at: patients.archived_at,
            unsubscribe_id: patients.unsubscribe_id,
            points: patients.points,
            ...MAIL_PRACTICE_COLUMNS,
          })
          .from(patients)
          .innerJoin(practices, eq(practices.id, patients.practice_id))
          .where(eq(patients.id, first.patient_id))
        if (!row) return false
        const message = patientTemplateMail(pointsReminderEmail, row, {
          publicUrl,
          practice: mailPracticeOf(row, publicUrl),
          firstName: row.first_name,
          points: mine.reduce((sum, lot) => sum + lot.remaining, 0),
          expiresAt: first.expires_at.toISOString(),
          balance: row.points,
        })
        if (!message) return false
        await outbound.enqueue(tx, message)
        return true
      })
      if (sent) queued++
    }
    return queued
  }

  return {
    /** One run: expiries first (a lapsed lot is never reminded of), then the reminders. */
    async run(): Promise<ExpiryRun> {
      const at = now()
      const expired = (await ledger.expireDue()).length
      // Claims whose offer ended before they were redeemed become expired (the funnel's step).
      await expireClaims(db, at)
      let reminders = 0
      for (const days of REMINDER_DAYS) reminders += await remind(days, at)
      if (reminders > 0) outbound.kick()
      // Every run says so, also one that found nothing: on several instances each runs it, and
      // the operator (and the two-process check) can see that each one did, and what it did.
      log.info(`Points job: ${expired} lots expired, ${reminders} reminders queued`)
      return { expired, reminders }
    },
  }
}

/** The next run after `at`: the next UTC midnight, plus a few minutes for the day to settle. */
export function nextDailyRun(at: Date): Date {
  const next = new Date(at)
  next.setUTCHours(24, 5, 0, 0)
  return next
}

/**
 * Runs the job once now and then every day at 00:05 UTC, in the server process, until the
 * returned stop is called. A failed run is logged and retried the next day (or at the next start).
 */
export function scheduleExpiryJob(
  job: { run(): Promise<ExpiryRun> },
  { log, now = () => new Date() }: { log: Logger; now?: () => Date },
): () => Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<unknown> = Promise.resolve()
  let stopped = false
  const tick = () => {
    running = job
      .run()
      .catch((error: unknown) => log.error('The daily points job failed', error))
      .finally(() => {
        if (stopped) return
        timer = setTimeout(tick, Math.max(1000, nextDailyRun(now()).getTime() - now().getTime()))
        timer.unref()
      })
  }
  tick()
  return async () => {
    stopped = true
    if (timer) clearTimeout(timer)
    await running
  }
}

import { randomUUID } from 'node:crypto'
import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm'
import type { Database, Transaction } from '#server/db/client.ts'
import { outboundMessages } from '#server/db/schema.ts'
import { type Logger, maskEmail, maskPhone } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/services/mail.ts'
import type { SmsMessage, SmsService } from '#server/services/sms.ts'

/** A message to send later: an e-mail or an SMS, as the transports take them. */
export type OutboundMessage =
  | ({ channel: 'email' } & MailMessage)
  | ({ channel: 'sms' } & SmsMessage)

/** How the worker retries (docs/decisions/006-durable-outbound-queue.md). */
export const OUTBOUND_RULES = {
  /** Attempts before a message is given up and kept with `failed_at`. */
  maxAttempts: 8,
  /** The first retry waits this long; each further one twice as long, up to `maxBackoffMs`. */
  firstBackoffMs: 5_000,
  maxBackoffMs: 60 * 60 * 1000,
  /** A claimed row is someone else's for this long; a worker that died leaves it claimable again. */
  leaseMs: 2 * 60 * 1000,
  /** Rows one claim takes. */
  batchSize: 10,
  /** How often a started worker looks for due retries when nobody kicks it. */
  pollMs: 5_000,
} as const

/** The error written for an attempt whose worker stopped before it ended (its claim lapsed). */
export const LAPSED_CLAIM = 'The worker stopped during this attempt (its claim ran out).'

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number): number {
  return Math.min(
    OUTBOUND_RULES.firstBackoffMs * 2 ** Math.max(0, attempts - 1),
    OUTBOUND_RULES.maxBackoffMs,
  )
}

/**
 * Writes a message into the queue with `executor`: pass the transaction of what caused it, so the
 * message exists exactly when that change committed. Call {@link OutboundQueue.kick} after the
 * commit to send it at once.
 */
export async function enqueueMessage(
  executor: Database | Transaction,
  message: OutboundMessage,
  now: Date,
  options: EnqueueOptions = {},
): Promise<void> {
  await executor.insert(outboundMessages).values({
    channel: message.channel,
    to: message.to,
    subject: message.channel === 'email' ? message.subject : null,
    text: message.text,
    html: message.channel === 'email' ? (message.html ?? null) : null,
    headers: message.channel === 'email' ? (message.headers ?? {}) : {},
    code: message.channel === 'sms' ? message.code : null,
    link: message.channel === 'email' ? (message.link ?? null) : null,
    next_attempt_at: options.sendAt ?? now,
    visit_id: options.visitId ?? null,
    created_at: now,
  })
}

/**
 * When a queued message leaves: `sendAt` holds it until then (the worker claims only what is
 * due); `visitId` names the visit it is about, whose undo deletes it before it leaves.
 */
export type EnqueueOptions = { sendAt?: Date | undefined; visitId?: number | undefined }

/** The queue of e-mail and SMS and its worker. */
export type OutboundQueue = {
  /** {@link enqueueMessage} with the queue's clock. */
  enqueue(
    executor: Database | Transaction,
    message: OutboundMessage,
    options?: EnqueueOptions,
  ): Promise<void>
  /** Asks the worker to send what is due now, without waiting (call it after a commit). */
  kick(): void
  /**
   * Runs `work` (which queues messages in its own transaction) after the current answer has left,
   * then kicks the worker: for requests whose answer must not depend on what the work finds
   * (forgot-password takes as long for an unknown address as for a known one). A failure is
   * logged. {@link OutboundQueue.drain} waits for such work first.
   */
  later(work: () => Promise<void>): void
  /** Sends everything due now and resolves when none is left to try (tests, the dev outbox). */
  drain(): Promise<void>
  /** Polls for due retries every {@link OUTBOUND_RULES.pollMs} until {@link OutboundQueue.stop}. */
  start(): void
  /** Stops polling and waits for deferred work and a send in progress. */
  stop(): Promise<void>
}

type Row = typeof outboundMessages.$inferSelect

function describe(row: Pick<Row, 'channel' | 'to' | 'subject'>): string {
  return row.channel === 'email'
    ? `E-mail "${row.subject ?? ''}" to ${maskEmail(row.to)}`
    : `SMS to ${maskPhone(row.to)}`
}

/**
 * The outbound queue over the `outbound_messages` table, sending e-mail through `mail` and SMS
 * through `sms`. Rows are claimed with `FOR UPDATE SKIP LOCKED`, so several instances sharing a
 * PostgreSQL server never send one row twice; a claim pushes `next_attempt_at` a lease ahead and
 * marks the row with its token, a failure writes the attempt with its error and the backoff, a
 * delivery deletes the row; both only while the row still carries the claim's token.
 */
export function createOutboundQueue({
  db,
  mail,
  sms,
  log,
  now = () => new Date(),
}: {
  db: Database
  mail: MailService
  sms: SmsService
  log: Logger
  now?: () => Date
}): OutboundQueue {
  let running: Promise<void> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false
  const pending = new Set<Promise<void>>()

  async function claim(): Promise<Row[]> {
    const at = now()
    const token = randomUUID()
    return db.transaction(async (tx) => {
      const due = await tx
        .select({ id: outboundMessages.id })
        .from(outboundMessages)
        .where(and(isNull(outboundMessages.failed_at), lte(outboundMessages.next_attempt_at, at)))
        .orderBy(asc(outboundMessages.id))
        .limit(OUTBOUND_RULES.batchSize)
        .for('update', { skipLocked: true })
      if (due.length === 0) return []
      // A row still claimed by someone else is one whose lease ran out: that worker stopped during
      // its attempt, which counts as a failed one, written in this same update.
      const lapsed = sql`${outboundMessages.claimed_at} is not null`
      return tx
        .update(outboundMessages)
        .set({
          attempts: sql`${outboundMessages.attempts} + case when ${lapsed} then 1 else 0 end`,
          last_error: sql`case when ${lapsed} then ${LAPSED_CLAIM} else ${outboundMessages.last_error} end`,
          claim_token: token,
          claimed_at: at,
          next_attempt_at: new Date(at.getTime() + OUTBOUND_RULES.leaseMs),
        })
        .where(
          sql`${outboundMessages.id} in (${sql.join(
            due.map((row) => sql`${row.id}`),
            sql`, `,
          )})`,
        )
        .returning()
    })
  }

  /** Only the claim that holds the row may finish it. */
  const ours = (row: Row) =>
    and(eq(outboundMessages.id, row.id), eq(outboundMessages.claim_token, row.claim_token ?? ''))

  async function deliver(row: Row): Promise<void> {
    try {
      if (row.channel === 'sms') {
        await sms.send({ to: row.to, text: row.text, code: row.code ?? '' })
      } else {
        await mail.send({
          to: row.to,
          subject: row.subject ?? '',
          text: row.text,
          link: row.link ?? undefined,
          html: row.html ?? undefined,
          headers: row.headers,
        })
      }
      const deleted = await db
        .delete(outboundMessages)
        .where(ours(row))
        .returning({ id: outboundMessages.id })
      if (deleted.length === 0) {
        log.warn(`${describe(row)} was sent after its claim ran out; another worker holds it now`)
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      const attempts = row.attempts + 1
      const giveUp = attempts >= OUTBOUND_RULES.maxAttempts
      const at = now()
      // The attempt and its error in one update: nobody ever reads one without the other.
      await db
        .update(outboundMessages)
        .set({
          attempts: sql`${outboundMessages.attempts} + 1`,
          last_error: reason.slice(0, 1000),
          next_attempt_at: new Date(at.getTime() + backoffMs(attempts)),
          failed_at: giveUp ? at : null,
          claim_token: null,
          claimed_at: null,
        })
        .where(ours(row))
      if (giveUp) {
        log.error(`${describe(row)} given up after ${attempts} attempts: ${reason}`)
      } else {
        log.warn(`${describe(row)} failed (attempt ${attempts}), retried later: ${reason}`)
      }
    }
  }

  async function work(): Promise<void> {
    do {
      again = false
      for (;;) {
        const rows = await claim()
        if (rows.length === 0) break
        // One after another: a clinic's volume is small, and a slow provider is not hammered.
        for (const row of rows) await deliver(row)
      }
    } while (again && !stopped)
  }

  function run(): Promise<void> {
    if (running) {
      // Something was queued while a pass was under way: look once more when it ends.
      again = true
      return running
    }
    running = work()
      .catch((error: unknown) => {
        log.error('The outbound worker stopped on an error; it resumes on the next kick', error)
      })
      .finally(() => {
        running = undefined
      })
    return running
  }

  return {
    enqueue: (executor, message, options) => enqueueMessage(executor, message, now(), options),
    kick() {
      if (stopped) return
      // After the current tick, so the answer that caused the message leaves first.
      setImmediate(() => void run())
    },
    later(work) {
      const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .then(
          () => run(),
          (error: unknown) => log.error('Work queued after an answer failed', error),
        )
        .finally(() => pending.delete(done))
      pending.add(done)
    },
    async drain() {
      while (pending.size > 0) await Promise.all([...pending])
      // A pass already under way may have started before the newest rows committed.
      await running
      await run()
    },
    start() {
      stopped = false
      timer ??= setInterval(() => void run(), OUTBOUND_RULES.pollMs)
      timer.unref()
      void run()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      timer = undefined
      // Work deferred past an answer still writes its rows; then the pass under way ends.
      while (pending.size > 0) await Promise.all([...pending])
      await running
    },
  }
}

import { randomUUID } from 'node:crypto'
import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm'
import type { Database, Transaction } from '#server/db/client.ts'
import { outboundMessages } from '#server/db/schema.ts'
import { type Logger, maskEmail, maskPhone } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/messaging/mail.ts'
import type { SmsMessage, SmsService } from '#server/messaging/sms.ts'
import {
  type MailTemplate,
  type MailTemplates,
  mailTemplates,
  renderQueued,
} from '#server/messaging/templates.ts'

/** A message to send later: an e-mail or an SMS, as the transports take them. */
export type OutboundMessage =
  | ({ channel: 'email' } & MailMessage)
  | ({ channel: 'sms' } & SmsMessage)

/** How the worker retries and holds its claims (docs/decisions/006-durable-outbound-queue.md). */
export const OUTBOUND_RULES = {
  /** Attempts before a message is given up and kept with `failed_at`. */
  maxAttempts: 8,
  /** The first retry waits this long; each further one twice as long, up to `maxBackoffMs`. */
  firstBackoffMs: 5_000,
  maxBackoffMs: 60 * 60 * 1000,
  /**
   * A claim holds one row for this long unless its worker renews it: a worker that died (kill -9,
   * a lost machine) holds at most its one message in flight, for at most this long.
   */
  leaseMs: 30_000,
  /** While a send is under way its worker renews the lease this often (a third of the lease). */
  renewMs: 10_000,
  /**
   * A send still unanswered after this long is no longer renewed, so its lease runs out and another
   * worker may retry it: the transports give up long before (SMTP 20 s idle, Twilio 10 s), so only
   * a send that hangs for good gets here.
   */
  sendCeilingMs: 10 * 60 * 1000,
  /** How often a started worker looks for due retries when nobody kicks it. */
  pollMs: 5_000,
} as const

/** The timings a test may shorten; production uses {@link OUTBOUND_RULES}. */
export type LeaseTimings = { leaseMs: number; renewMs: number; sendCeilingMs: number }

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

/** The e-mail `template` makes of `props`, to `to`, rendered now: for a message queued on its own. */
export function templateMail<Props>(
  template: MailTemplate<Props>,
  to: string,
  props: Props,
): OutboundMessage {
  return { channel: 'email', to, ...template.render(props) }
}

/**
 * Writes an e-mail into the queue as `template` and its `props`, rendered by the worker when it
 * first claims the row (docs/decisions/018-email-templates.md); the worker's registry must hold
 * the template. Bulk sends write such rows with one `INSERT … SELECT` of their own.
 */
export async function enqueueTemplated<Props>(
  executor: Database | Transaction,
  template: MailTemplate<Props>,
  to: string,
  props: Props,
  now: Date,
  options: EnqueueOptions = {},
): Promise<void> {
  await executor.insert(outboundMessages).values({
    channel: 'email',
    to,
    template: template.name,
    data: props,
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
  /**
   * Stops polling and waits for deferred work and the send in progress; no further message is
   * claimed, so every other one stays free for another instance (a clean shutdown holds nothing).
   */
  stop(): Promise<void>
}

type Row = typeof outboundMessages.$inferSelect

function describe(row: Pick<Row, 'channel' | 'to' | 'subject' | 'template'>): string {
  return row.channel === 'email'
    ? `E-mail "${row.subject ?? row.template ?? ''}" to ${maskEmail(row.to)}`
    : `SMS to ${maskPhone(row.to)}`
}

/**
 * The `Message-ID` of a queued e-mail: its row's random `message_key` at the host of `publicUrl`,
 * the same on every attempt, so a copy sent again after a crash is recognisably the same message
 * and a provider that drops duplicates by Message-ID drops it.
 */
export function outboundMessageId(messageKey: string, publicUrl: string): string {
  let host = 'localhost'
  try {
    host = new URL(publicUrl).hostname || host
  } catch {
    // Not a URL (a test's placeholder): the default host still makes a valid Message-ID.
  }
  return `<${messageKey}@${host.replace(/^\[|\]$/g, '')}>`
}

/**
 * The outbound queue over the `outbound_messages` table, sending e-mail through `mail` and SMS
 * through `sms`. Several instances may share one PostgreSQL server, so:
 *
 * - a worker claims one due row at a time (`FOR UPDATE SKIP LOCKED`), marking it with a random
 *   claim token and a short lease ({@link OUTBOUND_RULES}.leaseMs), and renews that lease every
 *   `renewMs` while the send is under way: however slow the provider, a live worker never loses a
 *   row to another one, and a worker that dies holds only the one row in flight, for one lease;
 * - every later write of the row (the renewal, the delete after delivery, the failed attempt) is
 *   `where id = ? and claim_token = ?`: a worker whose claim was taken over writes nothing;
 * - each e-mail carries a stable `Message-ID` ({@link outboundMessageId});
 * - an e-mail queued as a template (`template`, `data`) is rendered with `templates` once, when its
 *   first claim sends it: the rendered subject, text, HTML, link and headers are written into the
 *   row (by that claim only) before the send, and every attempt delivers what was written.
 */
export function createOutboundQueue({
  db,
  mail,
  sms,
  log,
  now = () => new Date(),
  publicUrl = 'http://localhost',
  timings = OUTBOUND_RULES,
  templates = mailTemplates(),
}: {
  db: Database
  mail: MailService
  sms: SmsService
  log: Logger
  /** The e-mail templates of the modules, for rows queued as a template. */
  templates?: MailTemplates
  now?: () => Date
  /** PUBLIC_URL: its host names the Message-IDs. */
  publicUrl?: string
  /** Shorter leases for tests; {@link OUTBOUND_RULES} otherwise. */
  timings?: LeaseTimings
}): OutboundQueue {
  let running: Promise<void> | undefined
  let again = false
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false
  const pending = new Set<Promise<void>>()

  const leaseEnd = (at: Date) => new Date(at.getTime() + timings.leaseMs)

  /** Claims the oldest due row nobody holds, or answers undefined when none is left. */
  async function claim(): Promise<Row | undefined> {
    const at = now()
    const token = randomUUID()
    return db.transaction(async (tx) => {
      const [due] = await tx
        .select({ id: outboundMessages.id })
        .from(outboundMessages)
        .where(and(isNull(outboundMessages.failed_at), lte(outboundMessages.next_attempt_at, at)))
        .orderBy(asc(outboundMessages.id))
        .limit(1)
        .for('update', { skipLocked: true })
      if (!due) return undefined
      // A row still claimed by someone else is one whose lease ran out: that worker stopped during
      // its attempt, which counts as a failed one, written in this same update.
      const lapsed = sql`${outboundMessages.claimed_at} is not null`
      const [row] = await tx
        .update(outboundMessages)
        .set({
          attempts: sql`${outboundMessages.attempts} + case when ${lapsed} then 1 else 0 end`,
          last_error: sql`case when ${lapsed} then ${LAPSED_CLAIM} else ${outboundMessages.last_error} end`,
          claim_token: token,
          claimed_at: at,
          next_attempt_at: leaseEnd(at),
        })
        .where(eq(outboundMessages.id, due.id))
        .returning()
      return row
    })
  }

  /** Only the claim that holds the row may renew or finish it. */
  const ours = (row: Row) =>
    and(eq(outboundMessages.id, row.id), eq(outboundMessages.claim_token, row.claim_token ?? ''))

  /**
   * Renews the row's lease every `renewMs` until the returned function is called (which waits for
   * a renewal under way, so it never lands after the row's last write). A renewal that finds the
   * row no longer ours stops renewing and says so; one the database refuses is tried again on
   * the next beat.
   */
  function holdLease(row: Row): () => Promise<void> {
    const started = performance.now()
    let renewing: Promise<void> = Promise.resolve()
    // One renewal at a time: a beat that comes while the last one is still waiting on a busy
    // database is skipped rather than queued, and nothing runs once the claim is lost or released.
    let busy = false
    let stopped = false
    const stop = () => {
      stopped = true
      clearInterval(beat)
    }
    const beat = setInterval(() => {
      if (stopped || busy) return
      if (performance.now() - started > timings.sendCeilingMs) {
        stop()
        log.warn(
          `${describe(row)} has waited on its provider for ${Math.round(timings.sendCeilingMs / 1000)} s; its claim is left to run out`,
        )
        return
      }
      busy = true
      renewing = (async () => {
        try {
          const renewed = await db
            .update(outboundMessages)
            .set({ next_attempt_at: leaseEnd(now()) })
            .where(ours(row))
            .returning({ id: outboundMessages.id })
          if (renewed.length === 0 && !stopped) {
            stop()
            log.warn(`${describe(row)} lost its claim during the send; another worker holds it now`)
          }
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error)
          log.warn(
            `${describe(row)}: its claim could not be renewed, tried again shortly: ${reason}`,
          )
        } finally {
          busy = false
        }
      })()
    }, timings.renewMs)
    beat.unref()
    return async () => {
      stop()
      await renewing
    }
  }

  /**
   * The row with its e-mail rendered: a row queued as a template and not yet rendered is rendered
   * now and the result written into it under our claim; undefined when the claim was lost.
   */
  async function rendered(row: Row): Promise<Row | undefined> {
    if (row.text !== null || row.template === null) return row
    const mail = renderQueued(templates, row.template, row.data)
    const [stored] = await db
      .update(outboundMessages)
      .set({
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        link: mail.link ?? null,
        headers: mail.headers ?? {},
      })
      .where(ours(row))
      .returning()
    return stored
  }

  async function deliver(claimed: Row): Promise<void> {
    const release = holdLease(claimed)
    let row = claimed
    let failure: unknown
    let sent = false
    try {
      const ready = await rendered(claimed)
      if (!ready) {
        log.warn(
          `${describe(claimed)} lost its claim before it was sent; another worker holds it now`,
        )
        return
      }
      row = ready
      if (row.channel === 'sms') {
        // Twilio documents no idempotency key for sending a message (decision record 006).
        await sms.send({ to: row.to, text: row.text ?? '', code: row.code ?? '' })
      } else {
        await mail.send({
          to: row.to,
          subject: row.subject ?? '',
          text: row.text ?? '',
          link: row.link ?? undefined,
          html: row.html ?? undefined,
          headers: row.headers,
          messageId: outboundMessageId(row.message_key, publicUrl),
        })
      }
      sent = true
    } catch (error) {
      failure = error
    } finally {
      await release()
    }
    if (sent) {
      const deleted = await db
        .delete(outboundMessages)
        .where(ours(row))
        .returning({ id: outboundMessages.id })
      if (deleted.length === 0) {
        log.warn(`${describe(row)} was sent after its claim ran out; another worker holds it now`)
      }
      return
    }
    const reason = failure instanceof Error ? failure.message : String(failure)
    const attempts = row.attempts + 1
    const giveUp = attempts >= OUTBOUND_RULES.maxAttempts
    const at = now()
    // The attempt and its error in one update: nobody ever reads one without the other.
    const written = await db
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
      .returning({ id: outboundMessages.id })
    if (written.length === 0) {
      log.warn(`${describe(row)} failed after its claim ran out; another worker holds it now`)
    } else if (giveUp) {
      log.error(`${describe(row)} given up after ${attempts} attempts: ${reason}`)
    } else {
      log.warn(`${describe(row)} failed (attempt ${attempts}), retried later: ${reason}`)
    }
  }

  async function work(): Promise<void> {
    do {
      again = false
      // One message at a time, one claim each: a slow provider is not hammered, and a crash
      // leaves every message but the one in flight free for another worker at once.
      while (!stopped) {
        const row = await claim()
        if (!row) break
        await deliver(row)
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

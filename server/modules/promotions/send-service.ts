/**
 * "Send to patients": one request queues the offer's e-mail for
 * every patient marketing e-mail may reach, set-based. One `INSERT … SELECT` writes a
 * `promotion_sends` row (the personal link's random token) per patient not yet sent the offer,
 * and, from what it returns, one `outbound_messages` row per send, with the text, the HTML part
 * and the headers the builder (patient-mail.ts) makes: the builder renders the message once with
 * markers where the patient's name, link and unsubscribe token go, and the database fills them in
 * per row (the name HTML-escaped in the HTML part). The request never waits for the sending: the
 * worker delivers the rows after the commit (docs/decisions/012-patient-email.md).
 */
import { type SQL, sql } from 'drizzle-orm'
import { SEND_MESSAGES } from '#domain/offers.ts'
import { promotionStatus } from '#domain/promotions.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { conflict } from '#server/http/errors.ts'
import {
  type MailPractice,
  offerContent,
  patientMail,
  readMailPractice,
} from '#server/modules/patient-mail/index.ts'
import { offerValueText, promotionOf } from './service.ts'

/** Marks in the rendered message where a patient's own values go (private-use characters). */
const MARK = {
  name: '\uE000NAME\uE000',
  token: '\uE000TOKEN\uE000',
  unsubscribe: '\uE000UNSUB\uE000',
} as const

/** A 256-bit random token per row (two v4 UUIDs: 244 random bits), base64url. */
const RANDOM_TOKEN = sql`rtrim(translate(encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/', '-_'), '=')`

/** `value` HTML-escaped in SQL, as escapeHtml does in JavaScript. */
const htmlEscaped = (value: SQL) =>
  sql`replace(replace(replace(replace(replace(${value}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')`

/**
 * `template` as a SQL expression: its text as parameters, each mark replaced by its column.
 */
function filled(template: string, columns: { name: SQL; token: SQL; unsubscribe: SQL }): SQL {
  const parts = template.split(/(\uE000(?:NAME|TOKEN|UNSUB)\uE000)/)
  const pieces = parts
    .filter((part) => part !== '')
    .map((part) => {
      if (part === MARK.name) return columns.name
      if (part === MARK.token) return columns.token
      if (part === MARK.unsubscribe) return columns.unsubscribe
      return sql`${part}::text`
    })
  return pieces.length === 0 ? sql`''` : sql.join(pieces, sql` || `)
}

/**
 * Queues the offer for every patient of the practice with an e-mail, subscribed and not
 * archived, who was not sent it before; answers how many. Call inside the transaction that
 * checked the offer is live.
 */
export async function queueOfferSends(
  tx: Transaction,
  input: {
    practiceId: number
    promotionId: number
    /** The practice as its e-mails show it: name, postal address, logo (readMailPractice). */
    practice: MailPractice
    /** The offer; `value` its value in words, or null. */
    offer: { title: string; description: string; value?: string | null }
    publicUrl: string
    now: Date
  },
): Promise<number> {
  const base = input.publicUrl.replace(/\/+$/, '')
  const message = patientMail(
    base,
    input.practice,
    {
      first_name: MARK.name,
      email: 'marker@example.invalid',
      email_subscription: true,
      archived_at: null,
      unsubscribe_id: MARK.unsubscribe,
    },
    offerContent(
      input.practice,
      { first_name: MARK.name },
      {
        ...input.offer,
        link: `${base}/offers/${MARK.token}`,
      },
    ),
  )
  if (message?.channel !== 'email') return 0
  // unsubscribeLinks URI-encodes the token: the marks come back encoded in the URLs.
  const encoded = (text: string) =>
    text
      .split(encodeURIComponent(MARK.unsubscribe))
      .join(MARK.unsubscribe)
      .split(encodeURIComponent(MARK.token))
      .join(MARK.token)
  const text = encoded(message.text)
  const html = encoded(message.html ?? '')
  const headers = Object.entries(message.headers ?? {}).map(([name, value]) => [
    name,
    encoded(value),
  ])
  const raw = { name: sql`p.first_name`, token: sql`s.token`, unsubscribe: sql`p.unsubscribe_id` }
  const escaped = { ...raw, name: htmlEscaped(sql`p.first_name`) }
  const headersSql = sql`jsonb_build_object(${sql.join(
    headers.map(([name, value]) => sql`${name}::text, ${filled(value ?? '', raw)}`),
    sql`, `,
  )})`
  const result = (await tx.execute(sql`
    with sent as (
      insert into promotion_sends (practice_id, promotion_id, patient_id, token, created_at, sent_at)
      select p.practice_id, ${input.promotionId}, p.id, ${RANDOM_TOKEN}, ${input.now}, ${input.now}
      from patients p
      where p.practice_id = ${input.practiceId}
        and p.email_subscription
        and p.archived_at is null
        and coalesce(p.email, '') <> ''
        -- Unsubscribe tokens are base64url (randomToken): they go into URLs as they are.
        and p.unsubscribe_id ~ '^[A-Za-z0-9_-]+$'
        and not exists (
          select 1 from promotion_sends earlier
          where earlier.promotion_id = ${input.promotionId} and earlier.patient_id = p.id
        )
      returning patient_id, token
    ),
    queued as (
      insert into outbound_messages (channel, "to", subject, text, html, headers, link, next_attempt_at, created_at)
      select 'email', p.email, ${message.subject}, ${filled(text, raw)}, ${filled(html, escaped)},
        ${headersSql}, ${filled(encoded(message.link ?? ''), raw)}, ${input.now}, ${input.now}
      from sent s join patients p on p.id = s.patient_id
      returning 1
    )
    select count(*)::int as queued from queued
  `)) as unknown as { rows: { queued: number }[] }
  return Number(result.rows[0]?.queued ?? 0)
}

/**
 * "Send to patients" of a live offer: in one transaction holding the offer's row lock (two
 * clicks never send twice), queues its e-mail with {@link queueOfferSends}; answers how many it
 * queued and the offer's title. 409 when the offer is not live.
 */
export async function sendOffer(
  db: Database,
  input: { practiceId: number; promotionId: number; publicUrl: string; now: Date },
): Promise<{ queued: number; title: string }> {
  return db.transaction(async (tx) => {
    const promotion = await promotionOf(tx, input.practiceId, input.promotionId, true)
    if (promotionStatus(promotion, input.now) !== 'live') throw conflict(SEND_MESSAGES.notLive)
    const practice = await readMailPractice(tx, input.practiceId, input.publicUrl)
    const queued = await queueOfferSends(tx, {
      practiceId: input.practiceId,
      promotionId: promotion.id,
      practice,
      offer: {
        title: promotion.title,
        description: promotion.description,
        value: await offerValueText(tx, promotion),
      },
      publicUrl: input.publicUrl,
      now: input.now,
    })
    return { queued, title: promotion.title }
  })
}

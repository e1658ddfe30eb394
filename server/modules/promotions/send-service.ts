/**
 * "Send to patients": one request queues the offer's e-mail for every patient marketing e-mail
 * may reach, set-based. One `INSERT … SELECT` writes a `promotion_sends` row (the personal link's
 * random token) per patient not yet sent the offer, and, from what it returns, one
 * `outbound_messages` row per send naming the {@link offerEmail} template, with its props as
 * `jsonb`: what the send shares (the practice, the offer, the public URL) as one parameter, and
 * the patient's first name, link token and unsubscribe token from the columns. Nothing is written
 * or escaped in SQL: the worker renders each message once when it delivers it, after the commit
 * (docs/decisions/012-patient-email.md, 018-email-templates.md). The request never waits for it.
 */
import { sql } from 'drizzle-orm'
import { SEND_MESSAGES } from '#domain/offers.ts'
import { promotionStatus } from '#domain/promotions.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { conflict } from '#server/lib/domain-error.ts'
import { type MailPractice, readMailPractice } from '#server/modules/patient-mail/index.ts'
import { type OfferEmailProps, offerEmail } from './offer-email.ts'
import { offerValueText, promotionOf } from './service.ts'

/** A 256-bit random token per row (two v4 UUIDs: 244 random bits), base64url. */
const RANDOM_TOKEN = sql`rtrim(translate(encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/', '-_'), '=')`

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
  // The props every row shares; each row adds the patient's own (the rest of OfferEmailProps).
  const shared: Omit<OfferEmailProps, 'firstName' | 'token' | 'unsubscribeId'> = {
    publicUrl: input.publicUrl,
    practice: input.practice,
    offer: {
      title: input.offer.title,
      description: input.offer.description,
      value: input.offer.value ?? null,
    },
  }
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
      insert into outbound_messages (channel, "to", template, data, next_attempt_at, created_at)
      select 'email', p.email, ${offerEmail.name},
        ${JSON.stringify(shared)}::jsonb || jsonb_build_object(
          'firstName', p.first_name, 'token', s.token, 'unsubscribeId', p.unsubscribe_id),
        ${input.now}, ${input.now}
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

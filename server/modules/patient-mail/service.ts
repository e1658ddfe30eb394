/**
 * E-mail to patients: offers, points-expiry reminders and the points
 * statement after a visit. {@link patientMail} is the single gate of marketing e-mail: it answers
 * nothing for a patient without an e-mail, unsubscribed or archived, and every message it builds
 * carries the practice's name, a plain-text and an escaped HTML part, and the RFC 8058 headers
 * (`List-Unsubscribe` with the unsubscribe page and the one-click URL, `List-Unsubscribe-Post`).
 * Both parts also carry the practice's postal address (CAN-SPAM asks a commercial e-mail for one)
 * and the HTML part its logo, when Settings has them ({@link mailPracticeOf}).
 */

import { eq } from 'drizzle-orm'
import { pointsText } from '#domain/points.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { practices } from '#server/db/schema.ts'
import { type OutboundMessage, templateMail } from '#server/messaging/outbound.ts'
import { type MailTemplate, mailTemplate } from '#server/messaging/templates.ts'
import {
  type MailPractice,
  type PatientMailContent,
  type PatientMailProps,
  renderPatientMail,
} from './layout.tsx'

export { type MailPractice, type PatientMailContent, unsubscribeLinks } from './layout.tsx'

/** What a patient e-mail needs of the patient. */
export type MailPatient = {
  first_name: string
  email: string | null
  email_subscription: boolean
  archived_at: Date | null
  unsubscribe_id: string
}

/** The practice's columns a patient e-mail reads. */
export const MAIL_PRACTICE_COLUMNS = {
  practice_name: practices.practice_name,
  practice_address: practices.practice_address,
  practice_address_2: practices.practice_address_2,
  city: practices.city,
  state: practices.state,
  practice_zip: practices.practice_zip,
  image_path: practices.image_path,
}

type MailPracticeRow = {
  practice_name: string
  practice_address: string | null
  practice_address_2: string | null
  city: string | null
  state: string | null
  practice_zip: string | null
  image_path: string | null
}

/** The practice's postal address on one line ("12 Main St, Suite 4, Springfield, IL 62704"). */
export function postalAddress(row: Omit<MailPracticeRow, 'practice_name' | 'image_path'>): string {
  const clean = (part: string | null) => (part ?? '').trim()
  const region = [clean(row.state), clean(row.practice_zip)].filter(Boolean).join(' ')
  return [clean(row.practice_address), clean(row.practice_address_2), clean(row.city), region]
    .filter(Boolean)
    .join(', ')
}

/** A practice row as the e-mails need it: the address on one line, the logo's absolute URL. */
export function mailPracticeOf(row: MailPracticeRow, publicUrl: string): MailPractice {
  const base = publicUrl.replace(/\/+$/, '')
  const logo = row.image_path?.trim()
  return {
    practice_name: row.practice_name,
    postal_address: postalAddress(row) || null,
    logo_url: logo
      ? /^https?:\/\//.test(logo)
        ? logo
        : `${base}${logo.startsWith('/') ? '' : '/'}${logo}`
      : null,
  }
}

/** The practice's patient wallet, where a patient signs in with a code and sees all their points. */
export function walletLink(publicUrl: string, practiceId: number): string {
  return `${publicUrl.replace(/\/+$/, '')}/wallet/${practiceId}`
}

/** Reads the practice as its patient e-mails need it, with the link to its wallet. */
export async function readMailPractice(
  db: Database | Transaction,
  practiceId: number,
  publicUrl: string,
): Promise<MailPractice> {
  const [row] = await db
    .select(MAIL_PRACTICE_COLUMNS)
    .from(practices)
    .where(eq(practices.id, practiceId))
  if (!row) throw new Error('The practice was not found')
  return { ...mailPracticeOf(row, publicUrl), wallet_url: walletLink(publicUrl, practiceId) }
}

/** Whether marketing e-mail may reach the patient: an e-mail, subscribed, not archived. */
export function mayEmail(patient: MailPatient): patient is MailPatient & { email: string } {
  return Boolean(patient.email) && patient.email_subscription && patient.archived_at === null
}

/**
 * The patient's e-mail, ready for the queue, or `null` when marketing e-mail may not reach them
 * ({@link mayEmail}). The text part ends with the unsubscribe page; the HTML part escapes every
 * value (names, titles and descriptions are typed by people).
 */
export function patientMail(
  publicUrl: string,
  practice: MailPractice,
  patient: MailPatient,
  content: PatientMailContent,
): OutboundMessage | null {
  if (!mayEmail(patient)) return null
  return {
    channel: 'email',
    to: patient.email,
    ...patientMailTemplate.render({
      publicUrl,
      practice,
      unsubscribeId: patient.unsubscribe_id,
      content,
    }),
  }
}

/**
 * The e-mail `template` makes of `props` for the patient, rendered now, with the patient's
 * unsubscribe token; `null` when marketing e-mail may not reach them ({@link mayEmail}).
 */
export function patientTemplateMail<Props extends PatientMailProps>(
  template: MailTemplate<Props>,
  patient: MailPatient,
  props: Omit<Props, 'unsubscribeId'>,
): OutboundMessage | null {
  if (!mayEmail(patient)) return null
  return templateMail(template, patient.email, {
    ...props,
    unsubscribeId: patient.unsubscribe_id,
  } as Props)
}

/**
 * The generic patient e-mail: `content` in the shared layout. The points e-mails and the offer
 * are templates of their own whose props are the facts, not the finished paragraphs.
 */
export const patientMailTemplate = mailTemplate<PatientMailProps & { content: PatientMailContent }>(
  'patient-mail',
  ({ content, ...props }) => renderPatientMail(props, content),
)

const dateFormat = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'long',
  timeZone: 'UTC',
})

/** The points-expiry reminder (30 or 7 days ahead). */
export function reminderContent(
  practice: MailPractice,
  patient: Pick<MailPatient, 'first_name'>,
  { points, expiresAt, balance }: { points: number; expiresAt: Date; balance: number },
): PatientMailContent {
  return {
    subject: `${pointsText(points)} expire on ${dateFormat.format(expiresAt)}`,
    paragraphs: [
      `Hello ${patient.first_name},`,
      `${pointsText(points)} of your ${practice.practice_name} rewards expire on ${dateFormat.format(expiresAt)}. Your balance is ${pointsText(balance)}.`,
      'Use them at your next visit before they lapse.',
    ],
  }
}

/** The short points statement after a visit. */
export function statementContent(
  practice: MailPractice,
  patient: Pick<MailPatient, 'first_name'>,
  { earned, balance, visitedAt }: { earned: number; balance: number; visitedAt: Date },
): PatientMailContent {
  return {
    subject: `Your points statement from ${practice.practice_name}`,
    paragraphs: [
      `Hello ${patient.first_name},`,
      `Thank you for your visit on ${dateFormat.format(visitedAt)}. You earned ${pointsText(earned)}.`,
      `Your balance is now ${pointsText(balance)}.`,
      ...(practice.wallet_url
        ? [
            'Your wallet shows all your points, your history and the offers you can claim: sign in with a code we send you, no password.',
          ]
        : []),
    ],
    ...(practice.wallet_url
      ? { action: { label: 'See all my points', href: practice.wallet_url } }
      : {}),
  }
}

/** The e-mail of an offer, with the patient's personal link to claim it. */
export function offerContent(
  practice: MailPractice,
  patient: Pick<MailPatient, 'first_name'>,
  offer: { title: string; description: string; link: string; value?: string | null },
): PatientMailContent {
  return {
    subject: `${practice.practice_name}: ${offer.title}`,
    paragraphs: [
      `Hello ${patient.first_name},`,
      `${practice.practice_name} has an offer for you: ${offer.title}`,
      // Its value: "$50.00 off HydraFacial at your visit."
      ...(offer.value ? [`${offer.value} at your visit.`] : []),
      ...(offer.description.trim() ? [offer.description.trim()] : []),
      'Claim it with the button below and show this e-mail at your next visit.',
      ...(practice.wallet_url
        ? [`See all your points and offers in your wallet: ${practice.wallet_url}`]
        : []),
    ],
    action: { label: 'Claim offer', href: offer.link },
  }
}

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
import { escapeHtml } from '#server/lib/html.ts'
import type { OutboundMessage } from '#server/messaging/outbound.ts'

/** What a patient e-mail needs of the patient. */
export type MailPatient = {
  first_name: string
  email: string | null
  email_subscription: boolean
  archived_at: Date | null
  unsubscribe_id: string
}

/**
 * What a patient e-mail needs of the practice: its name, and for the footer its postal address
 * (one line) and the absolute address of its logo.
 */
export type MailPractice = {
  practice_name: string
  postal_address?: string | null
  logo_url?: string | null
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

/** Reads the practice as its patient e-mails need it. */
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
  return mailPracticeOf(row, publicUrl)
}

/** The content of one patient e-mail: paragraphs of plain text and, optionally, one button. */
export type PatientMailContent = {
  subject: string
  paragraphs: string[]
  action?: { label: string; href: string } | undefined
}

/** Whether marketing e-mail may reach the patient: an e-mail, subscribed, not archived. */
export function mayEmail(patient: MailPatient): patient is MailPatient & { email: string } {
  return Boolean(patient.email) && patient.email_subscription && patient.archived_at === null
}

/** The two unsubscribe addresses of a patient: the spec's page and the RFC 8058 one-click URL. */
export function unsubscribeLinks(publicUrl: string, unsubscribeId: string) {
  const base = publicUrl.replace(/\/+$/, '')
  const id = encodeURIComponent(unsubscribeId)
  return { page: `${base}/unsubscribe/${id}`, oneClick: `${base}/api/unsubscribe/${id}` }
}

/** The headers every marketing e-mail carries (RFC 2369 and RFC 8058). */
export function unsubscribeHeaders(publicUrl: string, unsubscribeId: string) {
  const { page, oneClick } = unsubscribeLinks(publicUrl, unsubscribeId)
  return {
    'List-Unsubscribe': `<${oneClick}>, <${page}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  }
}

function html(
  practice: MailPractice,
  content: PatientMailContent,
  unsubscribePage: string,
): string {
  const name = practice.practice_name
  const paragraphs = content.paragraphs
    .map(
      (paragraph) =>
        `<p style="margin:0 0 16px">${escapeHtml(paragraph).split('\n').join('<br>\n')}</p>`,
    )
    .join('\n')
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.href)}" style="background:#7b2d59;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p>\n`
    : ''
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#222222;line-height:1.5">',
    ...(practice.logo_url
      ? [
          `<p style="margin:0 0 16px"><img src="${escapeHtml(practice.logo_url)}" alt="${escapeHtml(name)} logo" style="max-height:64px;max-width:240px"></p>`,
        ]
      : []),
    `<h1 style="font-size:20px;margin:0 0 24px">${escapeHtml(name)}</h1>`,
    paragraphs,
    action,
    ...(practice.postal_address
      ? [
          `<p style="margin:32px 0 0;font-size:13px;color:#555555">${escapeHtml(name)}<br>\n${escapeHtml(practice.postal_address)}</p>`,
        ]
      : []),
    `<p style="margin:${practice.postal_address ? '8px' : '32px'} 0 0;font-size:13px;color:#555555">You receive this e-mail from ${escapeHtml(name)}'s rewards programme. <a href="${escapeHtml(unsubscribePage)}" style="color:#555555">Unsubscribe</a></p>`,
    '</body></html>',
    '',
  ].join('\n')
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
  const links = unsubscribeLinks(publicUrl, patient.unsubscribe_id)
  const text = [
    ...content.paragraphs,
    ...(content.action ? [`${content.action.label}: ${content.action.href}`] : []),
    [
      practice.practice_name,
      ...(practice.postal_address ? [practice.postal_address] : []),
      ...(practice.logo_url ? [`Logo: ${practice.logo_url}`] : []),
      `You receive this e-mail from ${practice.practice_name}'s rewards programme. Unsubscribe: ${links.page}`,
    ].join('\n'),
  ].join('\n\n')
  return {
    channel: 'email',
    to: patient.email,
    // A subject is one line, whatever a title typed by staff holds.
    subject: content.subject.replace(/\s*[\r\n]+\s*/g, ' '),
    text,
    html: html(practice, content, links.page),
    link: content.action?.href,
    headers: unsubscribeHeaders(publicUrl, patient.unsubscribe_id),
  }
}

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
    ],
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
    ],
    action: { label: 'Claim offer', href: offer.link },
  }
}

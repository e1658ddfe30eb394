/**
 * The layout every patient e-mail shares, as a React component (docs/decisions/018-email-templates.md):
 * the practice's logo and name, the paragraphs, one button, the postal address and the unsubscribe
 * line, with inline styles as mail clients need them. React escapes every value; the plain-text
 * part is built from the same content, so both parts say the same.
 */
import { Fragment } from 'react'
import { htmlDocument, type RenderedMail } from '#server/messaging/templates.ts'

/**
 * What a patient e-mail needs of the practice: its name, and for the footer its postal address
 * (one line) and the absolute address of its logo.
 */
export type MailPractice = {
  practice_name: string
  postal_address?: string | null
  logo_url?: string | null
  /** The practice's patient wallet (`/wallet/{practiceId}`), absolute; where "See all my points" goes. */
  wallet_url?: string | null
}

/** The content of one patient e-mail: paragraphs of plain text and, optionally, one button. */
export type PatientMailContent = {
  subject: string
  paragraphs: string[]
  action?: { label: string; href: string } | undefined
}

/** What every patient e-mail's props carry besides its own: where links go, the practice, the patient's unsubscribe token. */
export type PatientMailProps = {
  /** PUBLIC_URL, where the unsubscribe page and the offers' links live. */
  publicUrl: string
  practice: MailPractice
  unsubscribeId: string
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

const FOOTER = { fontSize: '13px', color: '#555555' } as const

/** A paragraph whose line breaks stay line breaks. */
function Lines({ text }: { text: string }) {
  return text.split('\n').map((line, index, lines) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one fixed paragraph
    <Fragment key={index}>
      {line}
      {index < lines.length - 1 ? <br /> : null}
    </Fragment>
  ))
}

/** The HTML part of a patient e-mail. */
export function PatientMailHtml({
  practice,
  content,
  unsubscribePage,
}: {
  practice: MailPractice
  content: PatientMailContent
  unsubscribePage: string
}) {
  const name = practice.practice_name
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width" />
        <title>{content.subject}</title>
      </head>
      <body
        style={{
          margin: 0,
          padding: '24px',
          fontFamily: 'Arial,Helvetica,sans-serif',
          color: '#222222',
          lineHeight: 1.5,
        }}
      >
        {practice.logo_url ? (
          <p style={{ margin: '0 0 16px' }}>
            {/* Lazy: else React adds a preload link for the image to the head, which a mail has no use for. */}
            <img
              src={practice.logo_url}
              alt={`${name} logo`}
              style={{ maxHeight: '64px', maxWidth: '240px' }}
              loading="lazy"
            />
          </p>
        ) : null}
        <h1 style={{ fontSize: '20px', margin: '0 0 24px' }}>{name}</h1>
        {content.paragraphs.map((paragraph, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the paragraphs of one message, in order
          <p key={index} style={{ margin: '0 0 16px' }}>
            <Lines text={paragraph} />
          </p>
        ))}
        {content.action ? (
          <p style={{ margin: '24px 0' }}>
            <a
              href={content.action.href}
              style={{
                background: '#7b2d59',
                color: '#ffffff',
                padding: '12px 20px',
                borderRadius: '6px',
                textDecoration: 'none',
                display: 'inline-block',
              }}
            >
              {content.action.label}
            </a>
          </p>
        ) : null}
        {practice.postal_address ? (
          <p style={{ margin: '32px 0 0', ...FOOTER }}>
            {name}
            <br />
            {practice.postal_address}
          </p>
        ) : null}
        <p style={{ margin: `${practice.postal_address ? '8px' : '32px'} 0 0`, ...FOOTER }}>
          {`You receive this e-mail from ${name}'s rewards programme. `}
          <a href={unsubscribePage} style={{ color: '#555555' }}>
            Unsubscribe
          </a>
        </p>
      </body>
    </html>
  )
}

/** The plain-text part: the paragraphs, the button as `label: link`, then the footer. */
export function patientMailText(
  practice: MailPractice,
  content: PatientMailContent,
  unsubscribePage: string,
): string {
  return [
    ...content.paragraphs,
    ...(content.action ? [`${content.action.label}: ${content.action.href}`] : []),
    [
      practice.practice_name,
      ...(practice.postal_address ? [practice.postal_address] : []),
      ...(practice.logo_url ? [`Logo: ${practice.logo_url}`] : []),
      `You receive this e-mail from ${practice.practice_name}'s rewards programme. Unsubscribe: ${unsubscribePage}`,
    ].join('\n'),
  ].join('\n\n')
}

/**
 * A patient e-mail of `content`: subject, text, the HTML of {@link PatientMailHtml}, the button's
 * link and the unsubscribe headers.
 */
export function renderPatientMail(
  { publicUrl, practice, unsubscribeId }: PatientMailProps,
  content: PatientMailContent,
): RenderedMail {
  const links = unsubscribeLinks(publicUrl, unsubscribeId)
  return {
    subject: content.subject,
    text: patientMailText(practice, content, links.page),
    html: htmlDocument(
      <PatientMailHtml practice={practice} content={content} unsubscribePage={links.page} />,
    ),
    link: content.action?.href,
    headers: unsubscribeHeaders(publicUrl, unsubscribeId),
  }
}

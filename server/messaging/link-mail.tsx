/**
 * The plain e-mail the product sends its users (password reset, welcome, invitation): lines of
 * text in paragraphs, one of which carries the link to follow (docs/decisions/018-email-templates.md).
 * The text part is the lines as they are; the HTML part the same words with the link an anchor,
 * escaped by React.
 */
import { Fragment } from 'react'
import { htmlDocument, type RenderedMail } from '#server/messaging/templates.ts'

/** A line of a link mail: text, or text followed by the link. */
export type LinkMailLine = string | { text: string; link: string }

/** Paragraphs of lines; the text part separates paragraphs with a blank line. */
export type LinkMailParagraphs = LinkMailLine[][]

const lineText = (line: LinkMailLine) => (typeof line === 'string' ? line : line.text + line.link)

/** The HTML part of a link mail. */
export function LinkMailHtml({
  subject,
  paragraphs,
}: {
  subject: string
  paragraphs: LinkMailParagraphs
}) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>{subject}</title>
      </head>
      <body style={{ fontFamily: 'Arial,Helvetica,sans-serif', color: '#222222', lineHeight: 1.5 }}>
        {paragraphs.map((lines, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the paragraphs of one message, in order
          <p key={index}>
            {lines.map((line, at) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one paragraph, in order
              <Fragment key={at}>
                {at > 0 ? <br /> : null}
                {typeof line === 'string' ? (
                  line
                ) : (
                  <>
                    {line.text}
                    <a href={line.link}>{line.link}</a>
                  </>
                )}
              </Fragment>
            ))}
          </p>
        ))}
      </body>
    </html>
  )
}

/**
 * A link mail of `paragraphs`: the text part their lines (paragraphs apart by a blank line), the
 * HTML part {@link LinkMailHtml}, and the first link as the message's link.
 */
export function linkMail(subject: string, paragraphs: LinkMailParagraphs): RenderedMail {
  const link = paragraphs.flat().find((line) => typeof line !== 'string')
  return {
    subject,
    text: paragraphs.map((lines) => lines.map(lineText).join('\n')).join('\n\n'),
    html: htmlDocument(<LinkMailHtml subject={subject} paragraphs={paragraphs} />),
    link: typeof link === 'object' ? link.link : undefined,
  }
}

/** Test support for the e-mail templates: one check of what every greeting e-mail renders. */
import { expect } from 'vitest'
import type { RenderedMail } from '#server/messaging/templates.ts'

/** A first name that HTML must escape: tags, an ampersand and quotes. */
export const TRICKY_NAME = '<b>Ann & "Jo"</b>'

/**
 * Checks an e-mail rendered for {@link TRICKY_NAME}: its subject and link, its text (the greeting,
 * a blank line, then the `body` lines), and that its HTML holds the greeting escaped and each of
 * `html`.
 */
export function expectGreetingMail(
  mail: RenderedMail,
  expected: { subject: string; link: string; body: string[]; html: string[] },
): void {
  expect(mail.subject).toBe(expected.subject)
  expect(mail.link).toBe(expected.link)
  expect(mail.text).toBe([`Hello ${TRICKY_NAME},`, '', ...expected.body].join('\n'))
  expect(mail.html).toContain('<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>')
  for (const part of expected.html) expect(mail.html).toContain(part)
}

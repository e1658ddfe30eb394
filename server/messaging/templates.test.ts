import { createElement } from 'react'
import { describe, expect, it } from 'vitest'
import { htmlDocument, mailTemplate, mailTemplates, renderQueued } from './templates.ts'

const note = mailTemplate<{ title: string }>('note', ({ title }) => ({
  subject: `Note:\r\n${title}`,
  text: title,
  html: htmlDocument(createElement('h1', { title }, title)),
}))

describe('e-mail templates', () => {
  it('escapes every value in the HTML through React, keeps the text verbatim and the subject on one line', () => {
    const mail = note.render({ title: `<b>Ann & "Jo"</b>` })
    expect(mail).toEqual({
      subject: 'Note: <b>Ann & "Jo"</b>',
      text: '<b>Ann & "Jo"</b>',
      html: '<!doctype html>\n<h1 title="&lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;">&lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;</h1>\n',
    })
  })

  it('renders a queued row by its template name, and refuses an unknown name or two templates of one name', () => {
    const registry = mailTemplates(note)
    expect(renderQueued(registry, 'note', { title: 'Hi' }).subject).toBe('Note: Hi')
    expect(() => renderQueued(registry, 'gone', {})).toThrow('No e-mail template is named "gone"')
    expect(() => mailTemplates(note, note)).toThrow('Two e-mail templates are named "note"')
  })
})

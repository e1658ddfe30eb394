import { describe, expect, it } from 'vitest'
import { linkMail } from './link-mail.tsx'

describe('a link mail', () => {
  it('keeps the lines verbatim in the text, escapes them in the HTML and makes the link an anchor', () => {
    const mail = linkMail('Hi <b>Ann & "Jo"</b>', [
      ['Hello <b>Ann & "Jo"</b>,'],
      ['First line', { text: 'Open: ', link: 'https://glow.example/a?b=1&c="2"' }],
      ['Bye'],
    ])
    expect(mail.subject).toBe('Hi <b>Ann & "Jo"</b>')
    expect(mail.link).toBe('https://glow.example/a?b=1&c="2"')
    expect(mail.text).toBe(
      'Hello <b>Ann & "Jo"</b>,\n\nFirst line\nOpen: https://glow.example/a?b=1&c="2"\n\nBye',
    )
    expect(mail.html).toBe(
      '<!doctype html>\n<html lang="en"><head><meta charSet="utf-8"/><title>Hi &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;</title></head>' +
        '<body style="font-family:Arial,Helvetica,sans-serif;color:#222222;line-height:1.5">' +
        '<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>' +
        '<p>First line<br/>Open: <a href="https://glow.example/a?b=1&amp;c=&quot;2&quot;">https://glow.example/a?b=1&amp;c=&quot;2&quot;</a></p>' +
        '<p>Bye</p></body></html>\n',
    )
  })

  it('has no link when no line carries one', () => {
    expect(linkMail('Hi', [['Hello']]).link).toBeUndefined()
  })
})

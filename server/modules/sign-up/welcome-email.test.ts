import { describe, expect, it } from 'vitest'
import { welcomeEmail } from './welcome-email.ts'

describe('the welcome e-mail', () => {
  it('names the practice, links the sign-in page and escapes the names in the HTML', () => {
    const link = 'https://glow.example/signin'
    const mail = welcomeEmail.render({
      firstName: '<b>Ann & "Jo"</b>',
      practiceName: 'Glow & Co',
      link,
    })
    expect(mail.subject).toBe('Welcome to Glow Rewards')
    expect(mail.link).toBe(link)
    expect(mail.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        '',
        'Glow & Co is set up on Glow Rewards and you are its admin.',
        `Sign in with this e-mail address and the password you chose: ${link}`,
        '',
        'Welcome aboard!',
      ].join('\n'),
    )
    expect(mail.html).toContain('<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>')
    expect(mail.html).toContain(
      `<p>Glow &amp; Co is set up on Glow Rewards and you are its admin.<br/>Sign in with this e-mail address and the password you chose: <a href="${link}">${link}</a></p>`,
    )
  })
})

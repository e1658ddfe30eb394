import { describe, expect, it } from 'vitest'
import { invitationEmail } from './invitation-email.ts'

describe('the invitation e-mail', () => {
  it('names the practice and the inviter, links the registration page and escapes the names', () => {
    const link = 'https://glow.example/signup/personnel/abc'
    const mail = invitationEmail.render({
      firstName: '<b>Ann & "Jo"</b>',
      practiceName: 'Glow & Co',
      inviter: 'Ada Admin',
      link,
      days: 7,
    })
    expect(mail.subject).toBe('You are invited to join Glow & Co on Glow Rewards')
    expect(mail.link).toBe(link)
    expect(mail.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        '',
        'Ada Admin invited you to join Glow & Co on Glow Rewards. Register here:',
        link,
        '',
        'The link works for 7 days.',
      ].join('\n'),
    )
    expect(mail.html).toContain(
      '<title>You are invited to join Glow &amp; Co on Glow Rewards</title>',
    )
    expect(mail.html).toContain('<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>')
    expect(mail.html).toContain(`Register here:<br/><a href="${link}">${link}</a></p>`)
  })
})

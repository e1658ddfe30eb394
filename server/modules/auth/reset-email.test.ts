import { describe, expect, it } from 'vitest'
import { passwordResetEmail } from './reset-email.ts'

const link = 'https://glow.example/reset?code=abc'

describe('the password reset e-mail', () => {
  it('asked for: its subject, its text, the link an anchor and the name escaped', () => {
    const mail = passwordResetEmail.render({
      firstName: '<b>Ann & "Jo"</b>',
      link,
      reason: 'asked',
    })
    expect(mail.subject).toBe('Reset your Glow Rewards password')
    expect(mail.link).toBe(link)
    expect(mail.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        '',
        'Someone asked to reset the password of your Glow Rewards account. To choose a new password, open this link within one hour:',
        '',
        link,
        '',
        'If it was not you, ignore this e-mail: your password stays as it is.',
      ].join('\n'),
    )
    expect(mail.html).toContain('<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>')
    expect(mail.html).toContain(`<p><a href="${link}">${link}</a></p>`)
  })

  it('after failed sign-ins: its own subject and text', () => {
    const mail = passwordResetEmail.render({ firstName: 'Dana', link, reason: 'failures' })
    expect(mail.subject).toBe('Failed sign-ins to your Glow Rewards account')
    expect(mail.text).toBe(
      [
        'Hello Dana,',
        '',
        'Someone tried to sign in to your Glow Rewards account with a wrong password several times. If it was not you, your password is still safe; to choose a new one anyway, open this link within one hour:',
        '',
        link,
        '',
        'If it was you, you can ignore this e-mail; you can always sign in from your usual device with your password.',
      ].join('\n'),
    )
  })
})

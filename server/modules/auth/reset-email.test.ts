import { describe, expect, it } from 'vitest'
import { expectGreetingMail, TRICKY_NAME } from '#server/testing/mail-checks.ts'
import { passwordResetEmail } from './reset-email.ts'

const link = 'https://glow.example/reset?code=abc'

describe('the password reset e-mail', () => {
  it('asked for: its subject, its text, the link an anchor and the name escaped', () => {
    const mail = passwordResetEmail.render({ firstName: TRICKY_NAME, link, reason: 'asked' })
    expectGreetingMail(mail, {
      subject: 'Reset your Glow Rewards password',
      link,
      body: [
        'Someone asked to reset the password of your Glow Rewards account. To choose a new password, open this link within one hour:',
        '',
        link,
        '',
        'If it was not you, ignore this e-mail: your password stays as it is.',
      ],
      html: [`<p><a href="${link}">${link}</a></p>`],
    })
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

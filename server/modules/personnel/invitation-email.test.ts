import { describe, it } from 'vitest'
import { expectGreetingMail, TRICKY_NAME } from '#server/testing/mail-checks.ts'
import { invitationEmail } from './invitation-email.ts'

describe('the invitation e-mail', () => {
  it('names the practice and the inviter, links the registration page and escapes the names', () => {
    const link = 'https://glow.example/signup/personnel/abc'
    const mail = invitationEmail.render({
      firstName: TRICKY_NAME,
      practiceName: 'Glow & Co',
      inviter: 'Ada Admin',
      link,
      days: 7,
    })
    expectGreetingMail(mail, {
      subject: 'You are invited to join Glow & Co on Glow Rewards',
      link,
      body: [
        'Ada Admin invited you to join Glow & Co on Glow Rewards. Register here:',
        link,
        '',
        'The link works for 7 days.',
      ],
      html: [
        '<title>You are invited to join Glow &amp; Co on Glow Rewards</title>',
        `Register here:<br/><a href="${link}">${link}</a></p>`,
      ],
    })
  })
})

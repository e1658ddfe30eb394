import { describe, it } from 'vitest'
import { expectGreetingMail, TRICKY_NAME } from '#server/testing/mail-checks.ts'
import { welcomeEmail } from './welcome-email.ts'

describe('the welcome e-mail', () => {
  it('names the practice, links the sign-in page and escapes the names in the HTML', () => {
    const link = 'https://glow.example/signin'
    const mail = welcomeEmail.render({ firstName: TRICKY_NAME, practiceName: 'Glow & Co', link })
    expectGreetingMail(mail, {
      subject: 'Welcome to Glow Rewards',
      link,
      body: [
        'Glow & Co is set up on Glow Rewards and you are its admin.',
        `Sign in with this e-mail address and the password you chose: ${link}`,
        '',
        'Welcome aboard!',
      ],
      html: [
        `<p>Glow &amp; Co is set up on Glow Rewards and you are its admin.<br/>Sign in with this e-mail address and the password you chose: <a href="${link}">${link}</a></p>`,
      ],
    })
  })
})

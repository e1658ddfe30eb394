/** The e-mail a new practice's Admin receives when the account is created. */
import { linkMail } from '#server/messaging/link-mail.tsx'
import { mailTemplate } from '#server/messaging/templates.ts'

export type WelcomeEmailProps = {
  firstName: string
  practiceName: string
  /** The sign-in page. */
  link: string
}

export const welcomeEmail = mailTemplate<WelcomeEmailProps>(
  'welcome',
  ({ firstName, practiceName, link }) =>
    linkMail('Welcome to Glow Rewards', [
      [`Hello ${firstName},`],
      [
        `${practiceName} is set up on Glow Rewards and you are its admin.`,
        { text: 'Sign in with this e-mail address and the password you chose: ', link },
      ],
      ['Welcome aboard!'],
    ]),
)

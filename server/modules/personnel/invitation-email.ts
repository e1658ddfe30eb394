/** The e-mail inviting a person to register as personnel of a practice. */
import { linkMail } from '#server/messaging/link-mail.tsx'
import { mailTemplate } from '#server/messaging/templates.ts'

export type InvitationEmailProps = {
  firstName: string
  practiceName: string
  /** Who invited: "Ada Admin", or "Your practice". */
  inviter: string
  /** The registration page of the invitation. */
  link: string
  /** How many days the link works. */
  days: number
}

export const invitationEmail = mailTemplate<InvitationEmailProps>(
  'personnel-invitation',
  ({ firstName, practiceName, inviter, link, days }) =>
    linkMail(`You are invited to join ${practiceName} on Glow Rewards`, [
      [`Hello ${firstName},`],
      [
        `${inviter} invited you to join ${practiceName} on Glow Rewards. Register here:`,
        { text: '', link },
      ],
      [`The link works for ${days} days.`],
    ]),
)

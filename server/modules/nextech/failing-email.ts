/** The e-mail to a practice's Admins when its Nextech sync has failed for an hour (once). */
import { linkMail } from '#server/messaging/link-mail.tsx'
import { mailTemplate } from '#server/messaging/templates.ts'

export type NextechFailingEmailProps = {
  firstName: string
  practiceName: string
  /** Since when every sync failed, in words ("Nov 27, 2026, 3:05 AM UTC"). */
  since: string
  /** The last failure, in words. */
  error: string
  /** Settings → Integrations. */
  link: string
}

export const nextechFailingEmail = mailTemplate<NextechFailingEmailProps>(
  'nextech-failing',
  ({ firstName, practiceName, since, error, link }) =>
    linkMail(`Nextech sync has been failing for an hour: ${practiceName}`, [
      [`Hello ${firstName},`],
      [
        `Glow Rewards has not been able to sync ${practiceName} with Nextech since ${since}. The last attempt said: ${error}`,
      ],
      [
        'Glow keeps trying on its schedule and goes on from where it stopped, so no bill is lost or counted twice. Bills made in Nextech meanwhile earn their points once the sync works again.',
      ],
      ['Check the connection in Settings → Integrations:'],
      [{ text: '', link }],
      [
        'You get this e-mail once; the next comes only if the sync works again and then fails again.',
      ],
    ]),
)

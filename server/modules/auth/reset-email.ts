/** The e-mail with a reset link: asked for, or sent after repeated failed sign-ins. */
import { linkMail } from '#server/messaging/link-mail.tsx'
import { mailTemplate } from '#server/messaging/templates.ts'

export type PasswordResetEmailProps = {
  firstName: string
  /** The reset page with its one-hour code. */
  link: string
  /** `asked`: forgot-password; `failures`: sent to the owner after repeated failed sign-ins. */
  reason: 'asked' | 'failures'
}

export const passwordResetEmail = mailTemplate<PasswordResetEmailProps>(
  'password-reset',
  ({ firstName, link, reason }) =>
    linkMail(
      reason === 'asked'
        ? 'Reset your Glow Rewards password'
        : 'Failed sign-ins to your Glow Rewards account',
      [
        [`Hello ${firstName},`],
        [
          reason === 'asked'
            ? 'Someone asked to reset the password of your Glow Rewards account. To choose a new password, open this link within one hour:'
            : 'Someone tried to sign in to your Glow Rewards account with a wrong password several times. If it was not you, your password is still safe; to choose a new one anyway, open this link within one hour:',
        ],
        [{ text: '', link }],
        [
          reason === 'asked'
            ? 'If it was not you, ignore this e-mail: your password stays as it is.'
            : 'If it was you, you can ignore this e-mail; you can always sign in from your usual device with your password.',
        ],
      ],
    ),
)

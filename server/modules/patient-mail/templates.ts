/**
 * The points e-mails as templates (docs/decisions/018-email-templates.md): typed props in, the
 * patient e-mail layout out. Dates are ISO strings, so the props survive JSON should a row ever
 * be queued by template name.
 */
import { mailTemplate } from '#server/messaging/templates.ts'
import { type PatientMailProps, renderPatientMail } from './layout.tsx'
import { reminderContent, statementContent } from './service.ts'

/** The points statement after a visit. */
export type PointsStatementProps = PatientMailProps & {
  firstName: string
  earned: number
  /** The balance after the visit. */
  balance: number
  /** When the visit was recorded, ISO 8601. */
  visitedAt: string
}

export const pointsStatementEmail = mailTemplate<PointsStatementProps>(
  'points-statement',
  (props) =>
    renderPatientMail(
      props,
      statementContent(
        props.practice,
        { first_name: props.firstName },
        { earned: props.earned, balance: props.balance, visitedAt: new Date(props.visitedAt) },
      ),
    ),
)

/** The reminder 30 or 7 days before points lapse. */
export type PointsReminderProps = PatientMailProps & {
  firstName: string
  /** The points that lapse. */
  points: number
  /** When they lapse, ISO 8601. */
  expiresAt: string
  balance: number
}

export const pointsReminderEmail = mailTemplate<PointsReminderProps>('points-reminder', (props) =>
  renderPatientMail(
    props,
    reminderContent(
      props.practice,
      { first_name: props.firstName },
      { points: props.points, expiresAt: new Date(props.expiresAt), balance: props.balance },
    ),
  ),
)

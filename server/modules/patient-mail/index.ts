export { type PatientMailProps, renderPatientMail } from './layout.tsx'
export {
  MAIL_PRACTICE_COLUMNS,
  type MailPractice,
  mailPracticeOf,
  offerContent,
  patientTemplateMail,
  readMailPractice,
  walletLink,
} from './service.ts'
export {
  type PointsReminderProps,
  type PointsStatementProps,
  pointsReminderEmail,
  pointsStatementEmail,
} from './templates.ts'

export { type PatientMailProps, renderPatientMail } from './layout.tsx'
export {
  MAIL_PRACTICE_COLUMNS,
  type MailPractice,
  mailPracticeOf,
  offerContent,
  patientMail,
  patientMailTemplate,
  readMailPractice,
  reminderContent,
  statementContent,
} from './service.ts'

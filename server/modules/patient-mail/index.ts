export {
  MAIL_PRACTICE_COLUMNS,
  type MailPractice,
  mailPracticeOf,
  offerContent,
  patientMail,
  readMailPractice,
  reminderContent,
  statementContent,
} from './service.ts'

/**
 * Every e-mail template the outbound worker may find named in a queued row
 * (docs/decisions/018-email-templates.md). The platform's queue names none; the composition
 * (start.ts, app.ts, the test app) hands it this registry. A template whose rows may still wait
 * in the queue stays listed under its name.
 */
import { mailTemplates } from '#server/messaging/templates.ts'
import { pointsReminderEmail, pointsStatementEmail } from '#server/modules/patient-mail/index.ts'
import { offerEmail } from '#server/modules/promotions/index.ts'

export const MAIL_TEMPLATES = mailTemplates(offerEmail, pointsStatementEmail, pointsReminderEmail)

import { ActivityPageSchema, ActivityQuerySchema } from '#domain/activity-log.ts'
import { UnsubscribeAnswerSchema } from '#domain/api-answers.ts'
import { LedgerPageSchema, LedgerPostingSchema, ProgrammeRulesSchema } from '#domain/ledger.ts'
import {
  OFFER_MESSAGES,
  OfferAnswerSchema,
  PromotionSendAnswerSchema,
  SEND_MESSAGES,
} from '#domain/offers.ts'
import {
  IMPORT_MESSAGES,
  PatientImportAnswerSchema,
  PatientImportPreviewSchema,
} from '#domain/patient-import.ts'
import {
  DuplicatePageSchema,
  MERGE_MESSAGES,
  MergeAnswerSchema,
  MergePreviewSchema,
} from '#domain/patient-merge.ts'
import {
  ActivitySchema,
  PageQuerySchema,
  PatientListQuerySchema,
  PatientPageSchema,
  PatientPromotionSchema,
  PatientSchema,
  PatientSummarySchema,
  WholeListQuerySchema,
} from '#domain/practice-data.ts'
import {
  PROMOTION_MESSAGES,
  PromotionDetailSchema,
  PromotionListQuerySchema,
  PromotionPageSchema,
  PromotionRedemptionSchema,
} from '#domain/promotions.ts'
import {
  LiabilityReportSchema,
  REPORT_MAX_DAYS,
  ReportPeriodQuerySchema,
  ReportSummarySchema,
  WorklistPageSchema,
  WorklistQuerySchema,
} from '#domain/reports.ts'
import { type OperationDoc, OTHER_PRACTICE, TOO_MANY, tokenParam } from './operation.ts'

/** The import's limits, enforced by the server (issue 29). */
const IMPORT_LIMITS_ANSWER = `More rows than a chunk holds, or a row numbered beyond a file's limit: "${IMPORT_MESSAGES.tooManyRowsInChunk}" or "${IMPORT_MESSAGES.rowBeyondFile}" (or a body over 100 KB).`

/**
 * Every operation of the API, keyed `METHOD /api/path` as Hono writes the route. A route the app
 * serves that is missing here, or an entry the app does not serve, fails
 * server/openapi/coverage.test.ts: a new route cannot ship undocumented.
 */
export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/patients/by-practice/:id': {
    summary: 'List a page of patients',
    description: "One page of the practice's patients, ordered by last name, first name and id.",
    tag: 'Patients',
    query: PageQuerySchema,
    responses: {
      200: { description: 'The page of patients.', json: PatientSchema, array: true },
      400: 'The practice id, `limit` or `offset` is not valid.',
      404: OTHER_PRACTICE,
    },
  },
  'GET /api/patients/all/by-practice/:id': {
    summary: 'List every patient, a page at a time',
    description:
      'The patients of the practice, ordered by name. An answer holds at most 500 (`limit`, default and most 500; `offset`), so it never grows with the practice; when more follow, the `Link` header names the next page (`rel="next"`).',
    tag: 'Patients',
    query: WholeListQuerySchema,
    responses: {
      200: { description: 'The patients.', json: PatientSchema, array: true },
      400: 'The practice id, `limit` or `offset` is not valid.',
      404: OTHER_PRACTICE,
    },
  },
  'GET /api/patients/all/by-practice/converted/:id': {
    summary: 'List converted patients, a page at a time',
    description:
      'The patients of the practice who became clients, ordered by name, at most 500 an answer (`limit`, `offset`) with a `Link` header to the next page as for every patient.',
    tag: 'Patients',
    query: WholeListQuerySchema,
    responses: {
      200: { description: 'The converted patients.', json: PatientSchema, array: true },
      400: 'The practice id, `limit` or `offset` is not valid.',
      404: OTHER_PRACTICE,
    },
  },
  'GET /api/patients/summary': {
    summary: "Count the practice's patients",
    description:
      'How many patients the practice has (archived ones left out), how many receive e-mail and how many became clients: counted in the database, for the dashboard.',
    tag: 'Patients',
    responses: {
      200: { description: 'The counts.', json: PatientSummarySchema },
    },
  },
  'GET /api/patients/promotions/:id': {
    summary: "List a patient's promotions",
    description: 'The promotions the patient claimed or redeemed, latest claim first.',
    tag: 'Patients',
    responses: {
      200: { description: "The patient's promotions.", json: PatientPromotionSchema, array: true },
      404: 'No patient has this id.',
    },
  },
  'PUT /api/patients/unsubscribe/:token': {
    summary: 'Unsubscribe a patient from e-mails',
    description:
      'The link of a patient e-mail. The random token of the link is the key: no session is needed. A well-formed token is answered alike whether or not it names a patient, so the call tells nobody which links exist.',
    tag: 'Patients',
    public: true,
    path: { token: tokenParam('The unsubscribe token of the e-mailed link.') },
    responses: {
      200: {
        description: 'The patient (if any) is unsubscribed.',
        json: UnsubscribeAnswerSchema,
      },
      404: 'This unsubscribe link is not valid: the token does not have the shape of one.',
    },
  },
  'POST /api/unsubscribe/:token': {
    summary: 'Unsubscribe a patient in one click (RFC 8058)',
    description:
      "The one-click URL of a patient e-mail's `List-Unsubscribe` header. A mail client posts the form body `List-Unsubscribe=One-Click`, without a session or the XSRF header; the random token is the key. It does what the unsubscribe page does, and answers 200 whether or not the token names a patient.",
    tag: 'Patients',
    public: true,
    path: { token: tokenParam('The unsubscribe token of the e-mailed link.') },
    responses: {
      200: { description: 'The patient (if any) is unsubscribed.', json: UnsubscribeAnswerSchema },
      400: 'The body must be List-Unsubscribe=One-Click (RFC 8058), sent as a form.',
      429: 'Too many unsubscribe requests from this address.',
    },
  },
  'GET /api/patients': {
    summary: 'Search patients, a page at a time',
    description:
      "One page of the practice's patients (archived ones with `archived=true`), searched by name, e-mail or phone digits and sorted on the server. Each has `points`, the ledger's balance.",
    tag: 'Patients',
    query: PatientListQuerySchema,
    responses: {
      200: { description: 'The page and the total that match.', json: PatientPageSchema },
      400: 'A query parameter is not valid (page from 1, pageSize 1 to 100, a known sort).',
    },
  },
  'GET /api/practice/rules': {
    summary: 'Read the programme rules',
    description:
      "The practice's programme rules: what a point is worth (cents), points per dollar for items without their own points, the joining bonus, the months until earned points lapse (0 = never), the redemption size above which the patient's code is needed (0 = always) and the most points one line of a visit earns without a manager's approval.",
    tag: 'Settings',
    responses: { 200: { description: 'The rules as they stand.', json: ProgrammeRulesSchema } },
  },
  'PUT /api/practice/rules': {
    summary: 'Change the programme rules',
    description:
      'Replaces the six rules. A change applies from then on: points already posted keep the expiry they were posted with, and the joining bonus goes to patients added afterwards. Each change is an audit event with the values before and after.',
    tag: 'Settings',
    responses: { 200: { description: 'The rules as saved.', json: ProgrammeRulesSchema } },
  },
  'POST /api/patients/:id/archive': {
    summary: 'Archive a patient',
    description:
      'Hides the patient from lists and marketing e-mail; the ledger and history stay. Manager or Admin.',
    tag: 'Patients',
    responses: {
      200: { description: 'The archived patient.', json: PatientSchema },
      404: OTHER_PRACTICE,
    },
  },
  'POST /api/patients/:id/restore': {
    summary: 'Restore an archived patient',
    description: 'Lists the patient again. Manager or Admin. A merged patient cannot be restored.',
    tag: 'Patients',
    responses: {
      200: { description: 'The restored patient.', json: PatientSchema },
      404: OTHER_PRACTICE,
      409: `The patient was merged into another: "${MERGE_MESSAGES.restoreMerged}"`,
    },
  },
  'GET /api/patients/duplicates': {
    summary: 'List possible duplicate patients',
    description:
      "Pairs of the practice's active patients who share a phone (stored in E.164, so equal numbers are equal text) or an e-mail (compared without case), each with the reasons, computed when asked so the list is always current; ordered by the first patient's name, paged (`pageSize` up to 100, default 25). Manager, Admin.",
    tag: 'Patients',
    query: {
      page: {
        description: 'Page number, from 1.',
        schema: { type: 'string', pattern: '^\\d{1,6}$' },
      },
      pageSize: {
        description: 'Pairs per page, 1 to 100 (default 25).',
        schema: { type: 'string', pattern: '^\\d{1,3}$' },
      },
    },
    responses: {
      200: { description: 'The page of pairs.', json: DuplicatePageSchema },
    },
  },
  'GET /api/patients/:id/merge/:mergedId': {
    summary: 'Preview merging two patients',
    description:
      'What merging patient `mergedId` into patient `id` (the one kept) would do, changing nothing: how many ledger entries, visits, appointments, claimed offers, sent offers and other rows would move, the balance after (the sum of both ledgers), the contact fields filled from the merged patient (only where the kept one has none) and the consents after (each on only when both records had it on). Manager, Admin.',
    tag: 'Patients',
    responses: {
      200: { description: 'The preview.', json: MergePreviewSchema },
      400: `The two ids are the same patient: "${MERGE_MESSAGES.samePatient}"`,
      404: `Either id is not a patient of your practice: "${MERGE_MESSAGES.notFound}"`,
      409: 'Either patient is archived or was already merged (the sentence names them).',
    },
  },
  'POST /api/patients/:id/merge/:mergedId': {
    summary: 'Merge two patients',
    description:
      'Merges patient `mergedId` into patient `id`, in one transaction holding both patients: every row of the merged patient (ledger entries with their allocations, visits, appointments, claims, sent offers, codes, reminders, import rows…) moves to the kept patient, whose balance becomes the sum of both ledgers and whose empty e-mail, phone and birth date are filled from the merged one; a consent stays on only when both records had it on. The merged patient is archived with `merged_into_id` and leaves every list. Idempotent: the same pair again, or the same `idempotencyKey` (or `Idempotency-Key` header), answers the recorded merge with `replayed` and moves nothing. Manager, Admin. Audited, naming both patients.',
    tag: 'Patients',
    responses: {
      200: { description: 'This merge was already done: what it did.', json: MergeAnswerSchema },
      201: { description: 'The merge and what it moved.', json: MergeAnswerSchema },
      400: `The two ids are the same patient: "${MERGE_MESSAGES.samePatient}"`,
      404: `Either id is not a patient of your practice: "${MERGE_MESSAGES.notFound}"`,
      409: `Either patient is archived or was already merged into another, or the key was used for another merge: "${MERGE_MESSAGES.keyReused}"`,
    },
  },
  'GET /api/patients/:id/ledger': {
    summary: "Read a patient's points ledger",
    description:
      'A page of the ledger entries, newest first, each with the staff member who made it and the entry that reversed it; the balance, its worth at the programme point value, and the points that lapse within 60 days.',
    tag: 'Points',
    query: {
      page: {
        description: 'Page number, from 1.',
        schema: { type: 'string', pattern: '^\\d{1,6}$' },
      },
      pageSize: {
        description: 'Entries per page, 1 to 100 (default 25).',
        schema: { type: 'string', pattern: '^\\d{1,3}$' },
      },
    },
    responses: {
      200: { description: 'The page of entries and the balance.', json: LedgerPageSchema },
      404: OTHER_PRACTICE,
    },
  },
  'POST /api/patients/:id/adjustments': {
    summary: "Adjust a patient's points",
    description:
      'Adds or takes points with a reason (Manager, Admin). The idempotency key makes a retry or a double click answer the entry already written. Taking points spends the oldest first and never below 0.',
    tag: 'Points',
    responses: {
      201: { description: 'The entry and the balance after it.', json: LedgerPostingSchema },
      404: OTHER_PRACTICE,
      409: 'Not enough points: the balance is N. (or the idempotency key was used for another change)',
    },
  },
  'POST /api/ledger/:entryId/reverse': {
    summary: 'Reverse a ledger entry',
    description:
      'Cancels one entry, once, with a reason (Manager, Admin). An award whose points were spent is refused until the redemption is reversed; a reversed redemption gives its points back to the lots it took them from.',
    tag: 'Points',
    responses: {
      201: {
        description: 'The reversing entry and the balance after it.',
        json: LedgerPostingSchema,
      },
      404: 'No ledger entry has this id in your practice.',
      409: 'Already reversed, an expiry or reversal, already redeemed, or already expired.',
    },
  },
  'GET /api/patients/:id': {
    summary: 'Read a patient',
    description: "One patient of the signed-in user's practice.",
    tag: 'Patients',
    responses: {
      200: { description: 'The patient.', json: PatientSchema },
      404: 'No patient has this id.',
    },
  },
  'PUT /api/patients/:id': {
    summary: 'Update a patient',
    description:
      'Changes the fields sent; an empty body changes nothing and answers the patient. A phone written any common way is stored in E.164 (`+14085554743`) and compared in that form.',
    tag: 'Patients',
    responses: {
      200: { description: 'The updated patient.', json: PatientSchema },
      404: 'No patient has this id.',
      409: 'Another patient of the practice has this e-mail or phone (`details.patient_id` names them).',
    },
  },
  'POST /api/patients': {
    summary: 'Add a patient',
    description:
      "Adds a patient to the signed-in user's practice, with a new unsubscribe token. A phone written any common way (`(408) 555-4743`, `+1 408 555 4743`) is stored in E.164 (`+14085554743`) and compared in that form; one that is not a possible number (7 digits without the area code) answers 400.",
    tag: 'Patients',
    responses: {
      201: { description: 'The new patient.', json: PatientSchema },
      409: 'Another patient of the practice has this e-mail or phone (`details.patient_id` names them).',
    },
  },
  'GET /api/activities/patient/:id': {
    summary: "List a patient's activity",
    description: "The patient's activity (claims, redemptions, visits), newest first.",
    tag: 'Patients',
    responses: {
      200: { description: 'The activity.', json: ActivitySchema, array: true },
      404: 'No patient has this id.',
    },
  },
  'PUT /api/promotions/claimed/:promo': {
    summary: 'Claim an offer for a patient',
    description:
      "The claimed step of the funnel: a live offer, within its total and per-patient limits (checked under the offer's row lock, so concurrent claims cannot pass them), with its `code` when the offer is code-only. A patient who already holds an open claim gets it back. The claim keeps the offer's terms as they are now (`title`, `points_cost`, `bonus_points`, `ends_at`). `promo` in the body, when given, must be the promotion of the path. Audited.",
    tag: 'Promotions',
    responses: {
      200: { description: 'The claim.', json: PatientPromotionSchema },
      403: PROMOTION_MESSAGES.codeNeeded,
      404: 'No promotion or patient has this id.',
      409: 'The offer is not live, has reached its limit, or the patient reached the limit per patient.',
      422: PROMOTION_MESSAGES.codeWrong,
    },
  },
  'PUT /api/promotions/redeemed/:promo': {
    summary: "Redeem a patient's claimed offer",
    description:
      "The redeemed step of the funnel, through the ledger exactly once: the claim's points cost is taken and its bonus given, as `POST /patients/{id}/redemptions` does (the patient's code above the programme's threshold, or a manager's override with a reason). `idempotencyKey` defaults to one per claim, so a repeat answers the same redemption. Audited.",
    tag: 'Promotions',
    responses: {
      200: { description: 'The redeemed claim and its entries.', json: PromotionRedemptionSchema },
      403: "The patient's code is needed, or an override needs a manager.",
      404: 'No promotion or patient has this id.',
      409: 'The offer is not claimed, already redeemed, its claim has expired, the balance is too low, or the patient was merged into another record.',
      422: 'The code is wrong, used or expired.',
      429: TOO_MANY,
    },
  },
  'GET /api/promotions': {
    summary: 'List offers',
    description:
      "A page of the practice's offers (one `status`, or all), latest start first, each with its funnel: sent, claimed, redeemed, expired, the redemption rate and the revenue of the visits where it was redeemed (cents).",
    tag: 'Promotions',
    query: PromotionListQuerySchema,
    responses: {
      200: { description: 'The page and the total.', json: PromotionPageSchema },
      400: 'A query parameter is not valid.',
    },
  },
  'POST /api/promotions': {
    summary: 'Create an offer',
    description:
      "A new draft: title, description, points cost (0 = free), bonus points, start and end, total and per-patient limits, a code for a code-only offer, and its value (issue 28): `discount_cents` (an amount off a visit, once, never below $0) or `discount_percent` (1 to 100, off each matching line), not both, for `procedure_ids` (the practice's procedures; empty = any procedure). Manager, Admin. Audited.",
    tag: 'Promotions',
    responses: {
      201: { description: 'The draft.', json: PromotionDetailSchema },
    },
  },
  'GET /api/promotions/:id': {
    summary: 'Read an offer',
    description: 'The offer, its status and its funnel.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
    },
  },
  'PUT /api/promotions/:id': {
    summary: 'Change an offer',
    description:
      'A draft or scheduled offer changes freely; a live one only its title, description, end and limits. Claims keep the terms they were made with. Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
      409: 'The offer is ended or archived, or the field cannot change while it is live.',
    },
  },
  'DELETE /api/promotions/:id': {
    summary: 'Delete a draft',
    description:
      'Only a draft nobody claimed; a claimed offer is archived instead, so that its history stays. Answers the deleted offer. Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The deleted offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
      409: PROMOTION_MESSAGES.deleteClaimed,
    },
  },
  'POST /api/promotions/:id/publish': {
    summary: 'Publish an offer',
    description: 'A draft becomes Scheduled (before its start) or Live. Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
      409: 'Only a draft whose end has not passed can be published.',
    },
  },
  'POST /api/promotions/:id/end': {
    summary: 'End an offer',
    description:
      'A scheduled or live offer ends now: no more claims; open claims expire. Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
      409: PROMOTION_MESSAGES.endNotRunning,
    },
  },
  'POST /api/promotions/:id/duplicate': {
    summary: 'Duplicate an offer',
    description:
      'A new draft with the same terms (dates that have passed are left empty). Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      201: { description: 'The new draft.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
    },
  },
  'POST /api/promotions/:id/archive': {
    summary: 'Archive an offer',
    description:
      'A draft or an ended offer is put away; its claims and funnel stay. Manager, Admin. Audited.',
    tag: 'Promotions',
    responses: {
      200: { description: 'The offer.', json: PromotionDetailSchema },
      404: 'No promotion has this id.',
      409: PROMOTION_MESSAGES.archiveRunning,
    },
  },
  'POST /api/promotions/:id/send': {
    summary: 'Send a live offer to patients',
    description:
      "Send to patients: queues the offer's e-mail, with a personal link to the public offer page, for every patient of the practice with an e-mail, subscribed and not archived, who was not sent it before. The request queues them in one transaction and answers at once; the worker sends them. `queued` says how many this send reached. Manager, Admin. Audited.",
    tag: 'Promotions',
    responses: {
      200: {
        description: 'The offer with its funnel, and `queued`.',
        json: PromotionSendAnswerSchema,
      },
      404: 'No promotion has this id.',
      409: SEND_MESSAGES.notLive,
    },
  },
  'GET /api/offers/:token': {
    summary: "Read the offer of a patient's personal link",
    description:
      "The public offer page's call: the offer an e-mailed link names, the practice's name and logo, the patient's first name, and where it stands for the patient (`open`, `claimed`, `redeemed`, `ended`, `unavailable`, with the reason). The random token of the link is the key: no session is needed. Rate-limited per client address.",
    tag: 'Promotions',
    public: true,
    path: { token: tokenParam("The token of the patient's personal offer link.") },
    responses: {
      200: { description: 'The offer.', json: OfferAnswerSchema },
      404: OFFER_MESSAGES.notFound,
      429: OFFER_MESSAGES.tooMany,
    },
  },
  'POST /api/offers/:token/claim': {
    summary: "Claim the offer of a patient's personal link",
    description:
      "The funnel's claimed step, by the patient from the e-mail: claims the offer for the link's patient under the same rules as a claim at the desk (live, total and per-patient limits); a code-only offer needs no code here, the practice sent it to this patient. Claiming again answers the same claimed offer. No session is needed.",
    tag: 'Promotions',
    public: true,
    path: { token: tokenParam("The token of the patient's personal offer link.") },
    responses: {
      200: { description: 'The offer, now claimed.', json: OfferAnswerSchema },
      404: OFFER_MESSAGES.notFound,
      409: 'The offer has ended, reached its limit, or the patient is archived.',
      429: OFFER_MESSAGES.tooMany,
    },
  },
  // Issue 17, the front desk (server/modules/visits/routes.ts, server/modules/reports/routes.ts).
  'GET /api/reports/patients.csv': {
    summary: 'Export the patients as CSV',
    description:
      'Every patient of the practice (archived ones too), streamed a page at a time: contact details (phones formatted for their country, e.g. (408) 555-4743), balance, subscriptions, last visit. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Manager, Admin.',
    tag: 'Reports',
    responses: { 200: { description: 'The CSV file (attachment).', media: ['text/csv'] } },
  },
  'GET /api/reports/ledger.csv': {
    summary: 'Export the points ledger as CSV',
    description:
      "Every ledger entry of the practice, oldest first, streamed a page at a time, with the patient's name and the staff member. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Manager, Admin.",
    tag: 'Reports',
    responses: { 200: { description: 'The CSV file (attachment).', media: ['text/csv'] } },
  },

  // Issue 20, the dashboard and the liability report (server/modules/reports/routes.ts).
  'GET /api/reports/summary': {
    summary: "The dashboard's numbers",
    description: `The tiles for the period \`from\`..\`to\` (UTC days, both included; by default this month so far, at most ${REPORT_MAX_DAYS} days), each with the same figure for the period of the same length just before: patients and new patients, points outstanding, earned (earn and bonus), redeemed, expired and adjusted, each net of the reversals posted in the period (an undone visit is not earned), so that outstanding at the start + earned − redeemed − expired + adjusted = outstanding at the end; offers claimed and redeemed, today's appointments booked and completed (against yesterday). Then the 12 months ending with the period's month (points earned, redeemed, expired, net of reversals; new patients) and the funnel (claimed, redeemed) of each live offer. Computed in the database. The money fields (\`liability_cents\`, \`point_value_cents\`) only for a Manager or an Admin; absent for Staff.`,
    tag: 'Reports',
    query: ReportPeriodQuerySchema,
    responses: {
      200: { description: 'The tiles, the months and the live offers.', json: ReportSummarySchema },
      400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
    },
  },
  'GET /api/reports/worklist': {
    summary: "A page of the dashboard's worklist",
    description:
      "One of four lists, paged (`pageSize` up to 100, default 10) with its total: `expiring` (patients whose points lapse in the next 30 days: the points and the first day), `lapsing` (patients with points and no visit for 90 days: the balance and the last visit), `offers-ending` (claimed offers that end within 7 days: the offer and its end), `appointments` (today's appointments not yet completed: the time and the procedure). Archived patients are left out.",
    tag: 'Reports',
    query: WorklistQuerySchema,
    responses: {
      200: { description: 'The page.', json: WorklistPageSchema },
      400: 'The list is unknown, or the page or page size is not a whole number in range.',
    },
  },
  'GET /api/reports/liability': {
    summary: 'The points liability report',
    description: `For \`from\`..\`to\` (UTC days, both included; by default this month so far, at most ${REPORT_MAX_DAYS} days): the opening balance of all patients, the points earned, given as bonus, adjusted, redeemed, expired and reversed in the period and the closing balance, each also in cents at the programme's point value. Every movement carries its effect on the balance (redeemed and expired negative, adjusted and reversed either way), so opening + earned + bonus + adjusted + redeemed + expired + reversed = closing, exactly; the closing balance of a period ending today is the sum of all balances. Manager, Admin.`,
    tag: 'Reports',
    query: ReportPeriodQuerySchema,
    responses: {
      200: { description: 'The report.', json: LiabilityReportSchema },
      400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
    },
  },
  'GET /api/reports/liability.csv': {
    summary: 'Export the liability report as CSV',
    description:
      'The liability report of `from`..`to` as the lines `line, points, dollars`, for the accountant. Audited. Manager, Admin.',
    tag: 'Reports',
    query: ReportPeriodQuerySchema,
    responses: {
      200: { description: 'The CSV file (attachment).', media: ['text/csv'] },
      400: 'A day is not a calendar date, the period ends before it starts, or it is too long.',
    },
  },

  // Issue 17, the patient import (server/modules/patients/import-routes.ts, decision 010).
  'POST /api/patients/import/preview': {
    summary: 'Check rows of a patient import',
    description:
      "Up to 200 mapped rows of a CSV file, named by the file's SHA-256 and their row numbers, checked with the rules of POST /patients: the number that would be created, the rows refused with the reason (a field rule, a duplicate e-mail or phone of a patient of the practice, with that patient's id, or of an earlier row of the chunk), and the rows this file already created, with the sum of the opening balances (`points`) of the rows that would be created. Dates come as YYYY-MM-DD and phones in E.164, as the page reads them; a cell that is not one is refused with a sentence quoting it. Writes nothing. Manager, Admin.",
    tag: 'Patients',
    responses: {
      200: { description: 'What importing these rows would do.', json: PatientImportPreviewSchema },
      413: IMPORT_LIMITS_ANSWER,
    },
  },
  'POST /api/patients/import': {
    summary: 'Import rows of a CSV file as patients',
    description:
      'Up to 200 mapped rows, checked as the preview does and created in one transaction under the practice\'s lock. Each created row is remembered by file and row number: the same chunk again, or the same file again, creates nobody and lists those rows in `already_imported`; two identical chunks at once create once. Each created row\'s `opening_balance` is one ledger entry ("Opening balance from import"), posted in the same transaction, so it is posted once per file row (`points_posted`) and logged as a ledger posting. Audited with the counts only. Manager, Admin.',
    tag: 'Patients',
    responses: {
      200: {
        description: 'Nothing was created: every row was refused or already imported.',
        json: PatientImportAnswerSchema,
      },
      201: {
        description: 'Patients were created; `skipped` counts the other rows.',
        json: PatientImportAnswerSchema,
      },
      413: IMPORT_LIMITS_ANSWER,
    },
  },
  'GET /api/audit': {
    summary: 'Read the activity log',
    description:
      "A page of the practice's audit events, newest first, each in words (`summary`), filtered by the person who acted (`actor`, a user id), the `action`, and `from` and `to` (a day `YYYY-MM-DD` in UTC, `to` inclusive; or an ISO instant, `to` exclusive, for the bounds of a local day). Names are read when the log is shown: the trail itself keeps ids only. Opening the log (its first page) is itself recorded; turning pages is not, so pages do not shift. Admin.",
    tag: 'Settings',
    query: ActivityQuerySchema,
    responses: {
      200: { description: 'The page and the total that match.', json: ActivityPageSchema },
      400: 'A query parameter is not valid (a known action, dates as YYYY-MM-DD, the start not after the end).',
    },
  },
  'GET /api/audit/export.csv': {
    summary: 'Export the activity log as CSV',
    description:
      'The events the same filter selects, newest first, streamed a page at a time, each with its sentence. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Admin.',
    tag: 'Settings',
    query: ActivityQuerySchema,
    responses: {
      200: { description: 'The CSV file (attachment).', media: ['text/csv'] },
      400: 'A query parameter is not valid.',
    },
  },
}

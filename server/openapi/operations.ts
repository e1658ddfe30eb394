import type * as v from 'valibot'
import { ActivityPageSchema, ActivityQuerySchema } from '#domain/activity-log.ts'
import {
  DeletedFileSchema,
  OkAnswerSchema,
  RegisteredUserAnswerSchema,
  TestTokenAnswerSchema,
  UnsubscribeAnswerSchema,
} from '#domain/api-answers.ts'
import {
  APPOINTMENT_MESSAGES,
  APPOINTMENT_RANGE_MAX_DAYS,
  AppointmentDetailSchema,
  AppointmentRangeQuerySchema,
} from '#domain/appointments.ts'
import {
  ForgotPasswordAnswerSchema,
  InitPermissionsAnswerSchema,
  ResetCodeStatusAnswerSchema,
} from '#domain/auth.ts'
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
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { PersonnelInvitationSchema } from '#domain/personnel.ts'
import { CouponSchema, PlansAnswerSchema } from '#domain/plans.ts'
import {
  ActivitySchema,
  AppointmentSchema,
  DevUnsubscribeIdSchema,
  InvitationPreviewSchema,
  OutboxAnswerSchema,
  PageQuerySchema,
  PatientListQuerySchema,
  PatientPageSchema,
  PatientPromotionSchema,
  PatientSchema,
  PatientSummarySchema,
  ProcedureSchema,
  ProductSchema,
  StaffMemberSchema,
  WholeListQuerySchema,
} from '#domain/practice-data.ts'
import { PracticeAnswerSchema } from '#domain/practice-settings.ts'
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
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { SessionSchema } from '#domain/session.ts'
import {
  AVAILABILITY_MESSAGES,
  GetCodeAnswerSchema,
  PayAnswerSchema,
  SignUpAnswerSchema,
  SignUpPayloadSchema,
  VerifyCodeAnswerSchema,
} from '#domain/sign-up/api.ts'
import { SubscriptionAnswerSchema } from '#domain/subscription.ts'
import {
  PracticeLogoSchema,
  UPLOAD_MAX_BYTES,
  UPLOAD_MAX_DIMENSION,
  UPLOAD_MEDIA_TYPES,
  UPLOAD_MESSAGES,
  UPLOAD_PURPOSES,
  UploadedFileSchema,
} from '#domain/uploads.ts'
import { NAME_TAKEN, type OperationDoc, OTHER_PRACTICE, TOO_MANY, tokenParam } from './operation.ts'

/** The import's limits, enforced by the server (issue 29). */
const IMPORT_LIMITS_ANSWER = `More rows than a chunk holds, or a row numbered beyond a file's limit: "${IMPORT_MESSAGES.tooManyRowsInChunk}" or "${IMPORT_MESSAGES.rowBeyondFile}" (or a body over 100 KB).`

/** The six operations of one half of the catalogue (`procedures` or `products`). */
function catalogueOperations(
  kind: string,
  plural: string,
  schema: v.GenericSchema,
): Record<string, OperationDoc> {
  return {
    [`GET /api/${plural}`]: {
      summary: `List ${plural}`,
      description: `The practice's ${plural} that are not archived, by name (\`archived=true\`: the archived ones). \`practice\` must be the user's own practice. \`points\` is what one unit earns now: \`own_points\`, or the price times the programme's points per dollar when \`own_points\` is null.`,
      tag: 'Catalogue',
      query: {
        practice: {
          description: "The practice id: the signed-in user's own.",
          required: true,
          schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 },
        },
        archived: {
          description: `\`true\` lists the archived ${plural} instead.`,
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      },
      responses: {
        200: { description: `The ${plural}.`, json: schema, array: true },
        400: '`practice` is missing or not a positive whole number.',
        404: OTHER_PRACTICE,
      },
    },
    [`POST /api/${plural}`]: {
      summary: `Add a ${kind}`,
      description: `Adds a ${kind} to the catalogue: name, price in cents, points per unit (null: from the price) and the days that must pass between two awards of it to one patient.`,
      tag: 'Catalogue',
      responses: { 201: { description: `The new ${kind}.`, json: schema }, 409: NAME_TAKEN },
    },
    [`PUT /api/${plural}/:id`]: {
      summary: `Change a ${kind}`,
      description: 'Replaces the name, price, points per unit and days between awards.',
      tag: 'Catalogue',
      responses: {
        200: { description: `The ${kind} as saved.`, json: schema },
        404: OTHER_PRACTICE,
        409: NAME_TAKEN,
      },
    },
    [`POST /api/${plural}/:id/archive`]: {
      summary: `Archive a ${kind}`,
      description: `Takes the ${kind} out of the catalogue; visits that used it keep it in their history. Archiving twice keeps the first date.`,
      tag: 'Catalogue',
      responses: {
        200: { description: `The archived ${kind}.`, json: schema },
        404: OTHER_PRACTICE,
      },
    },
    [`POST /api/${plural}/:id/restore`]: {
      summary: `Restore a ${kind}`,
      description: `Puts an archived ${kind} back in the catalogue, unless an active item now has its name.`,
      tag: 'Catalogue',
      responses: {
        200: { description: `The restored ${kind}.`, json: schema },
        404: OTHER_PRACTICE,
        409: NAME_TAKEN,
      },
    },
  }
}

/**
 * Every operation of the API, keyed `METHOD /api/path` as Hono writes the route. A route the app
 * serves that is missing here, or an entry the app does not serve, fails
 * server/openapi/coverage.test.ts: a new route cannot ship undocumented.
 */
export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/health': {
    summary: 'Health check',
    description: 'Answers while the server runs; for load balancers and uptime checks.',
    tag: 'Operations',
    public: true,
    responses: { 200: { description: 'The server is up.', json: OkAnswerSchema } },
  },
  'GET /api/practice/plans': {
    summary: 'List plans and public coupons',
    description:
      'The active subscription plans and the coupons marked public, in Stripe list shape. Public: the sign-up wizard needs them before an account exists. Private coupons are never listed.',
    tag: 'Sign-up',
    public: true,
    responses: { 200: { description: 'Plans and public coupons.', json: PlansAnswerSchema } },
  },
  'GET /api/practice/coupons/:code': {
    summary: 'Look up a promo code',
    description: 'Finds any coupon, public or private, by its exact code.',
    tag: 'Sign-up',
    public: true,
    path: {
      code: { description: 'The promo code, as typed.', schema: { type: 'string', maxLength: 64 } },
    },
    responses: {
      200: { description: 'The coupon.', json: CouponSchema },
      404: 'Invalid promo code',
      429: TOO_MANY,
    },
  },
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
  'GET /api/practice/subscription': {
    summary: 'Read the subscription',
    description:
      "Admin. The plans and term chosen at sign-up, the card on file (brand, last four digits, expiry), the end of the term already paid, the next renewal and its amount in cents after the coupon (a coupon of duration `once` applied to the first term only), and whether it is set to end (`cancels_at`). `status: 'none'` when the payment service has no subscription for the practice.",
    tag: 'Settings',
    responses: {
      200: { description: 'The subscription.', json: SubscriptionAnswerSchema },
      502: 'The payment service could not be reached.',
    },
  },
  'POST /api/practice/subscription/cancel': {
    summary: 'End the subscription at the end of the term',
    description:
      'Admin. The subscription ends when the term already paid ends, as the Terms say; nothing is refunded and nothing more is charged. Audited; a repeat changes nothing and answers the same.',
    tag: 'Settings',
    responses: {
      200: { description: 'The subscription, with `cancels_at`.', json: SubscriptionAnswerSchema },
      409: 'The practice has no subscription, or it has already ended.',
      502: 'The payment service could not be reached.',
    },
  },
  'POST /api/practice/subscription/resume': {
    summary: 'Keep the subscription',
    description:
      'Admin. Undoes the end at the term end while the term lasts: the subscription renews again. Audited; a repeat changes nothing and answers the same.',
    tag: 'Settings',
    responses: {
      200: { description: 'The subscription, with `renews_at`.', json: SubscriptionAnswerSchema },
      409: 'The practice has no subscription, or it has already ended.',
      502: 'The payment service could not be reached.',
    },
  },
  'PUT /api/practice/subscription/card': {
    summary: 'Change the card on file',
    description:
      'Admin. `token` is a one-time card token, made as at sign-up (Stripe.js, or `POST /payments/test-tokens` with the test gateway). The card is checked by the payment service and becomes the one the next renewals are charged to. Audited with the brand and last four digits.',
    tag: 'Settings',
    responses: {
      200: { description: 'The subscription with the new card.', json: SubscriptionAnswerSchema },
      400: 'The token is not valid, or was used already.',
      402: "The card was refused: the provider's message.",
      409: 'The practice has no subscription.',
      502: 'The payment service could not be reached.',
    },
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
  ...catalogueOperations('procedure', 'procedures', ProcedureSchema),
  ...catalogueOperations('product', 'products', ProductSchema),
  'GET /api/appointments/:practiceId/:date': {
    summary: "List a day's appointments",
    description:
      "The practice's appointments starting on `date` in UTC (00:00 inclusive to the next 00:00 exclusive), earliest first.",
    tag: 'Appointments',
    path: {
      date: {
        description: 'A calendar day written `YYYY-MM-DD`.',
        schema: { type: 'string', format: 'date', maxLength: 10 },
      },
    },
    responses: {
      200: { description: 'The appointments.', json: AppointmentSchema, array: true },
      400: 'The practice id or the date is not valid.',
      404: OTHER_PRACTICE,
    },
  },
  'DELETE /api/appointments/:id': {
    summary: 'Delete an appointment',
    description:
      "Removes a scheduled or cancelled appointment and answers the removed row. A completed one stays: its visit is reversed from the patient's profile instead.",
    tag: 'Appointments',
    responses: {
      200: { description: 'The removed appointment.', json: AppointmentSchema },
      404: 'No appointment has this id.',
      409: APPOINTMENT_MESSAGES.completedNoDelete,
    },
  },
  'GET /api/appointments': {
    summary: 'List the appointments of a range of days',
    description: `The practice's appointments starting from \`from\` (00:00 UTC, inclusive) to \`to\` (00:00 UTC, exclusive), at most ${APPOINTMENT_RANGE_MAX_DAYS} days, earliest first, each with its patient's name and phone and its procedure's name.`,
    tag: 'Appointments',
    query: AppointmentRangeQuerySchema,
    responses: {
      200: { description: 'The appointments.', json: AppointmentDetailSchema, array: true },
      400: `A date is not valid, or the range is empty or longer than ${APPOINTMENT_RANGE_MAX_DAYS} days.`,
    },
  },
  'GET /api/appointments/:id': {
    summary: 'Read an appointment',
    description: "One appointment with its patient's name and phone and its procedure's name.",
    tag: 'Appointments',
    responses: {
      200: { description: 'The appointment.', json: AppointmentDetailSchema },
      404: 'No appointment has this id.',
    },
  },
  'POST /api/appointments': {
    summary: 'Book an appointment',
    description:
      'Books a scheduled appointment for a patient of the practice who is not archived, with a procedure of the catalogue that is not archived (or none) and notes.',
    tag: 'Appointments',
    responses: {
      201: { description: 'The new appointment.', json: AppointmentDetailSchema },
      400: 'A field is not valid; `details.field` names it (the patient or the procedure is not bookable).',
    },
  },
  'PUT /api/appointments/:id': {
    summary: 'Reschedule or change an appointment',
    description: 'Changes the start, the procedure or the notes of a scheduled appointment.',
    tag: 'Appointments',
    responses: {
      200: { description: 'The changed appointment.', json: AppointmentDetailSchema },
      404: 'No appointment has this id.',
      409: APPOINTMENT_MESSAGES.notScheduled,
    },
  },
  'POST /api/appointments/:id/cancel': {
    summary: 'Cancel an appointment',
    description:
      'Cancels a scheduled appointment (a cancelled one answers as it is). A completed appointment cannot be cancelled.',
    tag: 'Appointments',
    responses: {
      200: { description: 'The cancelled appointment.', json: AppointmentDetailSchema },
      404: 'No appointment has this id.',
      409: APPOINTMENT_MESSAGES.notScheduled,
    },
  },
  // Issue 19, uploads (server/modules/practice/upload-routes.ts, decision 011).
  'POST /api/upload/files': {
    summary: 'Upload an image',
    description: `One image as \`multipart/form-data\`: \`file\` (PNG, JPEG or WebP, at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB and ${UPLOAD_MAX_DIMENSION} × ${UPLOAD_MAX_DIMENSION} pixels, recognised by its content, not its name) and \`purpose\` (\`logo\` or \`avatar\`). The image is stored without its metadata (text, EXIF, XMP, comments) under a random key; \`url\` serves it. Link it with PUT /practice/logo or PUT /users/{id}/avatar. A logo needs the practice settings permission. Audited.`,
    tag: 'Files',
    multipart: {
      type: 'object',
      required: ['file', 'purpose'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The image.' },
        purpose: { type: 'string', enum: [...UPLOAD_PURPOSES], description: 'What it is for.' },
      },
    },
    responses: {
      201: { description: 'The stored image.', json: UploadedFileSchema },
      400: `No file, no purpose, a damaged image ("${UPLOAD_MESSAGES.damaged}", also when a PNG's pixel data does not hold the size its header declares), a picture over ${UPLOAD_MAX_DIMENSION} × ${UPLOAD_MAX_DIMENSION} pixels by its headers ("${UPLOAD_MESSAGES.tooManyPixels(20_000, 20_000)}"), or an animation whose frames together hold more: "${UPLOAD_MESSAGES.tooManyFramePixels}"`,
      403: `A logo without the practice settings permission: "${PERMISSION_REFUSALS['practice.settings']}"`,
      413: `"${UPLOAD_MESSAGES.tooLarge}"`,
      415: `Not multipart, or not a ${UPLOAD_MEDIA_TYPES.join(', ')} image: "${UPLOAD_MESSAGES.wrongType}"`,
    },
  },
  'GET /api/upload/files/:id/:key': {
    summary: 'Get an uploaded image',
    description:
      'The image as stored, with its type, `X-Content-Type-Options: nosniff`, `Content-Disposition: inline` and a Content-Security-Policy that runs nothing. No session: the random key in the address grants it (an `<img>` sends no token), as `url` of POST /upload/files and the image paths give it.',
    tag: 'Files',
    public: true,
    path: {
      key: {
        description: 'The random key of the file, from its `url`.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' },
      },
    },
    responses: {
      200: { description: 'The image.', media: [...UPLOAD_MEDIA_TYPES] },
      404: 'No file has this id and key.',
    },
  },
  'DELETE /api/upload/files/:id': {
    summary: 'Delete an uploaded file',
    description:
      "Removes the file and its stored bytes: the uploader's own, or any for an Admin. A file shown as the practice logo or an avatar stops being shown; the logo needs the practice settings permission. Audited.",
    tag: 'Files',
    responses: {
      200: { description: 'The removed file.', json: DeletedFileSchema },
      403: `Another member's file: "${PERMISSION_REFUSALS['personnel.manage']}"; the practice logo: "${PERMISSION_REFUSALS['practice.settings']}"`,
      404: 'No file has this id.',
    },
  },
  'PUT /api/practice/logo': {
    summary: 'Set the practice logo',
    description:
      'Shows an image uploaded with `purpose` `logo` in the header of everyone in the practice; the logo it replaces is deleted. Audited.',
    tag: 'Settings',
    responses: {
      200: { description: "The logo's address.", json: PracticeLogoSchema },
      400: UPLOAD_MESSAGES.wrongPurpose('logo'),
      404: 'No file has this id in your practice.',
    },
  },
  'DELETE /api/practice/logo': {
    summary: 'Remove the practice logo',
    description:
      "The header shows the product's logo again; the practice's logo is deleted. Audited.",
    tag: 'Settings',
    responses: { 200: { description: 'No logo: `image_path` null.', json: PracticeLogoSchema } },
  },
  'PUT /api/users/:id/avatar': {
    summary: 'Set the own avatar',
    description:
      'Shows an image the member uploaded with `purpose` `avatar` as their avatar; the avatar it replaces is deleted. Only the own profile. Audited.',
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      400: UPLOAD_MESSAGES.wrongPurpose('avatar'),
      403: SELF_SERVICE_MESSAGES.ownProfileOnly,
      404: 'No member or file has this id in your practice.',
    },
  },
  'DELETE /api/users/:id/avatar': {
    summary: 'Remove the own avatar',
    description:
      'The header shows the first initial again; the avatar is deleted. Only the own profile. Audited.',
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      403: SELF_SERVICE_MESSAGES.ownProfileOnly,
      404: 'No member has this id in your practice.',
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
  'GET /api/users': {
    summary: 'List the staff',
    description: "The signed-in user's practice's staff, by name.",
    tag: 'Personnel',
    responses: { 200: { description: 'The staff.', json: StaffMemberSchema, array: true } },
  },
  'GET /api/users/:id': {
    summary: 'Read a staff member',
    description: "One user of the signed-in user's practice.",
    tag: 'Personnel',
    responses: {
      200: { description: 'The staff member.', json: StaffMemberSchema },
      404: 'No user has this id.',
    },
  },
  // Self-service (issue 19): roles, deactivation and the own password.
  'PUT /api/users/:id': {
    summary: 'Edit the own profile',
    description:
      "My Profile: the signed-in member's title, first and last name (the sign-up's name rules). Only the own id; a colleague's answers 403.",
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      404: OTHER_PRACTICE,
    },
  },
  'POST /api/users/:id/phone/code': {
    summary: 'Text a code to a new own phone',
    description:
      "My Profile's phone change, step 1: sends a 6-digit code by SMS to the new phone (valid 10 minutes, 30 seconds between codes, 5 an hour), as the sign-up's Get Code does. Only the own id; a colleague's answers 403.",
    tag: 'Personnel',
    responses: {
      200: { description: 'The verification id (`authyId`).', json: GetCodeAnswerSchema },
      404: OTHER_PRACTICE,
      429: 'A code went to this phone less than 30 seconds ago, or 5 this hour.',
    },
  },
  'POST /api/users/:id/phone/verify': {
    summary: 'Check the code sent to a new own phone',
    description:
      "My Profile's phone change, step 2: checks the code (5 attempts). 400 `Incorrect Confirmation Code entered`, or a sentence saying the code expired.",
    tag: 'Personnel',
    responses: {
      200: { description: 'Verified.', json: VerifyCodeAnswerSchema },
      404: OTHER_PRACTICE,
      429: 'Too many incorrect codes: get a new one.',
    },
  },
  'PUT /api/users/:id/phone': {
    summary: 'Save a verified new own phone',
    description:
      "My Profile's phone change, step 3: saves the phone only with a verification (`authyId`) whose code was checked for this very phone and not used before (400 otherwise). Audited.",
    tag: 'Personnel',
    responses: {
      200: { description: 'The member with the new phone.', json: StaffMemberSchema },
      404: OTHER_PRACTICE,
    },
  },
  'GET /api/practice': {
    summary: "Read the practice's details",
    description:
      'Any member of the practice: name, office, website, phone, e-mail, address, the health record choice and the footer links. The Nextech username and password are never answered: only `username_set` and `password_set`.',
    tag: 'Settings',
    responses: { 200: { description: 'The practice.', json: PracticeAnswerSchema } },
  },
  'PUT /api/practice': {
    summary: "Change the practice's details",
    description:
      "Admin only. The sign-up wizard's rules and messages for each field (a US zip or a Canadian postal code matching the country, a state or province of that country); footer links are https addresses (support: an e-mail too), each optional. An empty Nextech username or password keeps the stored one. 400 names each field (`details.issues`). Audited with the names of the changed fields.",
    tag: 'Settings',
    responses: { 200: { description: 'The practice as saved.', json: PracticeAnswerSchema } },
  },
  'PUT /api/users/:id/role': {
    summary: "Change a member's role",
    description:
      'Admin only. `access_rights` is Admin, Manager or Staff; it applies to the next request of the member. Changing to the same role is harmless.',
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      404: OTHER_PRACTICE,
      409: 'The member is the last active Admin of the practice.',
    },
  },
  'POST /api/users/:id/deactivate': {
    summary: 'Deactivate a member',
    description:
      'Admin only. The member cannot sign in, and every open session of theirs is refused from the next request. Deactivating twice is harmless.',
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      404: OTHER_PRACTICE,
      409: 'The member is the caller, or the last active Admin of the practice.',
    },
  },
  'POST /api/users/:id/reactivate': {
    summary: 'Reactivate a member',
    description:
      'Admin only. The member may sign in again; sessions from before the deactivation stay ended.',
    tag: 'Personnel',
    responses: {
      200: { description: 'The member.', json: StaffMemberSchema },
      404: OTHER_PRACTICE,
    },
  },
  'POST /api/auth/change-password': {
    summary: 'Change the own password',
    description:
      'Needs the current password. The new one follows the reset rules (8 to 256 characters, not a common password, typed twice). Every other session of the user ends; the answer is a fresh session for this one.',
    tag: 'Authentication',
    responses: {
      200: { description: 'The fresh session.', json: SessionSchema },
      400: 'The current password is not correct, or the new one breaks a rule.',
      429: TOO_MANY,
      503: 'Too many passwords are being checked at once; `Retry-After` says when to try again.',
    },
  },
  'POST /api/auth/local': {
    summary: 'Sign in',
    description:
      'Checks the e-mail and password and answers a session token: 8 hours, 30 days with `remember`. With the captcha on, `recaptchaToken` is required.',
    tag: 'Authentication',
    public: true,
    responses: {
      200: { description: 'Signed in.', json: SessionSchema },
      400: 'Invalid Email or Password (also a refused body or captcha).',
      403: 'The account is deactivated (said only after the right password).',
      429: 'An address that failed on this account waits, doubling, after 5 failures of the account; an address from which 30 accounts failed in 15 minutes waits too, but for accounts that signed in from it before. Failures of other accounts never hold back a right password. `details.retryAfterSeconds` and `Retry-After` say when to try again.',
      503: 'Too many sign-ins are being checked at once; `Retry-After` says when to try again.',
    },
  },
  'POST /api/auth/forgot-password': {
    summary: 'Ask for a password reset link',
    description:
      'Answers the same for every well-formed e-mail (no account enumeration); only a known user gets the e-mail, and only when `url` is on an allowed origin.',
    tag: 'Authentication',
    public: true,
    responses: {
      200: { description: 'Handled.', json: ForgotPasswordAnswerSchema },
      400: 'The body is not valid, or `url` points to another site (refused before any limit is counted, with the sentence of any refused reset: "Please enter a valid email").',
      429: TOO_MANY,
    },
  },
  'POST /api/auth/reset-password': {
    summary: 'Reset the password',
    description:
      'Sets a new password with the single-use, one-hour code of the e-mailed link, ends every earlier session and signs in.',
    tag: 'Authentication',
    public: true,
    responses: {
      200: { description: 'Password changed and signed in.', json: SessionSchema },
      400: 'Password Reset link is outdated! (also a refused body).',
      403: 'The password was changed, but the account is deactivated: no session.',
      429: TOO_MANY,
    },
  },
  'POST /api/auth/reset-code-status': {
    summary: 'Ask whether a reset link is still good',
    description:
      'Asked by the reset view before it shows the form, so a used or expired link is judged when opened. Answers only `valid`: nothing about the account.',
    tag: 'Authentication',
    public: true,
    responses: {
      200: {
        description: 'Whether the code can still set a password.',
        json: ResetCodeStatusAnswerSchema,
      },
      429: TOO_MANY,
    },
  },
  'POST /api/auth/logout': {
    summary: 'Sign out everywhere',
    description: 'Ends every session token of the user issued until now (all devices).',
    tag: 'Authentication',
    responses: { 200: { description: 'Signed out.', json: OkAnswerSchema } },
  },
  'POST /api/auth/check-email': {
    summary: 'Check that an e-mail and phone are free',
    description:
      'Answers `text/plain`, as the specification says. The e-mail is compared case-insensitively and the phone by its digits, against every user.',
    tag: 'Sign-up',
    public: true,
    responses: {
      200: { description: 'Both are free.', text: [AVAILABILITY_MESSAGES.ok] },
      409: {
        description: 'One of them is taken.',
        text: [AVAILABILITY_MESSAGES.emailTaken, AVAILABILITY_MESSAGES.phoneTaken],
      },
      429: TOO_MANY,
    },
  },
  'POST /api/auth/get-code': {
    summary: 'Send a phone confirmation code',
    description:
      'Texts a 6-digit code to the phone and answers the verification id. At most one code every 30 seconds and 5 an hour per phone.',
    tag: 'Sign-up',
    public: true,
    responses: {
      200: { description: 'The code was sent.', json: GetCodeAnswerSchema },
      429: TOO_MANY,
      502: 'The SMS provider could not send the code.',
    },
  },
  'POST /api/auth/verify-code': {
    summary: 'Confirm the phone code',
    description: 'Checks the code typed; 5 attempts per code, valid for 10 minutes.',
    tag: 'Sign-up',
    public: true,
    responses: {
      200: { description: 'The phone is verified.', json: VerifyCodeAnswerSchema },
      400: 'Incorrect Confirmation Code entered (or an expired code, or a refused body).',
      429: TOO_MANY,
    },
  },
  'POST /api/auth/pay': {
    summary: 'Pay for the subscription',
    description:
      'Creates the paying customer from a one-time card token. Idempotent per token: a repeat answers the same customer id and never charges again.',
    tag: 'Sign-up',
    public: true,
    responses: {
      200: { description: 'The customer id, sent later as `stripe_id`.', json: PayAnswerSchema },
      400: 'The body or the card token is not valid.',
      402: "The card was refused: the provider's message.",
      409: 'This card token was used for another e-mail.',
      429: TOO_MANY,
    },
  },
  'POST /api/auth/local/register': {
    summary: 'Sign a practice up',
    description:
      'Creates the practice and its Admin in one transaction (every field re-validated, `access_rights` forced to Admin), subscribes it and e-mails a welcome. Needs the phone verified under `authyId` and the payment of `stripe_id` for the practice e-mail. Answers the new Admin signed in, with the session a sign-in answers. The same payload again answers the same user.',
    tag: 'Sign-up',
    public: true,
    body: SignUpPayloadSchema,
    responses: {
      200: { description: 'The new Admin, signed in.', json: SignUpAnswerSchema },
      400: 'A refused field, an unverified phone, an unknown promo code or an unavailable plan.',
      402: 'Please complete the payment before signing up.',
      409: 'Email is already taken, or the payment was already used.',
      429: TOO_MANY,
    },
  },
  'POST /api/auth/personnel/register': {
    summary: 'Register from an invitation',
    description:
      "Creates an invited person's account (Staff) in the inviting practice; the e-mail and position are the invitation's. Needs the phone verified under `authyId`.",
    tag: 'Personnel',
    public: true,
    responses: {
      200: { description: 'The new user.', json: RegisteredUserAnswerSchema },
      400: 'A refused field or an unverified phone.',
      404: 'The invitation is unknown, used, revoked or expired.',
      409: 'The e-mail already has an account.',
      429: TOO_MANY,
    },
  },
  'GET /api/personnel': {
    summary: 'List invitations',
    description:
      "The practice's invitations, newest first; the ids (the links' secret) only for an Admin.",
    tag: 'Personnel',
    responses: {
      200: { description: 'The invitations.', json: PersonnelInvitationSchema, array: true },
    },
  },
  'POST /api/personnel': {
    summary: 'Invite a colleague',
    description:
      'Admin only. E-mails the registration link `{PUBLIC_URL}/signup/personnel/{id}`, valid for 14 days.',
    tag: 'Personnel',
    responses: {
      201: { description: 'The invitation.', json: PersonnelInvitationSchema },
      409: 'The e-mail already has an account or a pending invitation.',
      502: 'The invitation e-mail could not be sent.',
    },
  },
  'POST /api/personnel/:id/resend': {
    summary: 'Send an invitation again',
    description: 'Admin of the same practice. E-mails the link again and restarts its 14 days.',
    tag: 'Personnel',
    path: { id: tokenParam('The invitation id.') },
    responses: {
      200: { description: 'The invitation.', json: PersonnelInvitationSchema },
      404: 'Invitation not found.',
      409: 'The invitation is used or revoked.',
      429: 'The invitation was resent 3 times in the last hour.',
      502: 'The invitation e-mail could not be sent.',
    },
  },
  'DELETE /api/personnel/:id': {
    summary: 'Revoke an invitation',
    description: 'Admin of the same practice. Revoking twice is harmless.',
    tag: 'Personnel',
    path: { id: tokenParam('The invitation id.') },
    responses: {
      200: { description: 'The revoked invitation.', json: PersonnelInvitationSchema },
      404: 'Invitation not found.',
      409: 'The invitation is already used.',
    },
  },
  'GET /api/personnel/:id': {
    summary: 'Preview an invitation',
    description: 'What the registration form pre-fills. Public: the link is the key.',
    tag: 'Personnel',
    public: true,
    path: { id: tokenParam('The invitation id of the link.') },
    responses: {
      200: {
        description: 'The invitation preview, with the name of the practice it joins.',
        json: InvitationPreviewSchema,
      },
      404: 'The invitation is unknown or was revoked.',
      410: 'The invitation was used or has expired: `details.reason` is `used` or `expired`, `details.practice_name` names the practice (an expired one says who can send a new one).',
    },
  },
  'GET /api/users-permissions/init': {
    summary: 'Whether the practice has an Admin',
    description: "Whether the signed-in user's practice has an Admin.",
    tag: 'Personnel',
    responses: { 200: { description: 'The answer.', json: InitPermissionsAnswerSchema } },
  },
  'POST /api/payments/test-tokens': {
    summary: 'Tokenise a test card',
    description:
      "The test payment gateway's tokeniser, only while payments run in test mode (no Stripe key); otherwise 404. Follows Stripe's test cards. The card is never stored or logged.",
    tag: 'Sign-up',
    public: true,
    responses: {
      200: { description: 'The one-time card token.', json: TestTokenAnswerSchema },
      400: "A card the gateway cannot use, in Stripe's words.",
      402: 'The card was declined.',
      404: 'Payments are not in test mode.',
    },
  },
  'GET /api/openapi.json': {
    summary: 'This document',
    description:
      'The OpenAPI 3.1 description of this API, generated from the schemas the routes validate with.',
    tag: 'Reference',
    public: true,
    responses: { 200: { description: 'The OpenAPI document.', media: ['application/json'] } },
  },
  'GET /api/docs': {
    summary: 'Interactive reference',
    description: 'A page that renders this document (Swagger UI, served from this server).',
    tag: 'Reference',
    public: true,
    responses: { 200: { description: 'The reference page.', media: ['text/html'] } },
  },
  'GET /api/docs/assets/:file': {
    summary: 'Reference page assets',
    description: 'The scripts and stylesheet of the reference page.',
    tag: 'Reference',
    public: true,
    path: {
      file: { description: 'The asset file name.', schema: { type: 'string', maxLength: 64 } },
    },
    responses: {
      200: { description: 'The asset.', media: ['text/javascript', 'text/css'] },
      404: 'No such asset.',
    },
  },
  'GET /api/dev/outbox': {
    summary: 'Read the development outbox',
    description:
      'The e-mails and SMS codes recorded instead of sent, newest first. Served only when `NODE_ENV` is not `production`.',
    tag: 'Operations',
    public: true,
    responses: { 200: { description: 'The messages.', json: OutboxAnswerSchema } },
  },
  'GET /api/dev/patients/:id/unsubscribe-id': {
    summary: "Read a patient's unsubscribe token (development)",
    description:
      "The token of the patient's unsubscribe link, which no staff answer carries. Served only when `NODE_ENV` is not `production`, and only to the loopback interface.",
    tag: 'Operations',
    public: true,
    responses: {
      200: { description: 'The token.', json: DevUnsubscribeIdSchema },
      400: 'The id is not valid.',
      404: 'No patient has this id.',
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

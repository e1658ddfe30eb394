import type * as v from 'valibot'
import {
  DeletedFileSchema,
  OkAnswerSchema,
  RegisteredUserAnswerSchema,
  TestTokenAnswerSchema,
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
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { PersonnelInvitationSchema } from '#domain/personnel.ts'
import { CouponSchema, PlansAnswerSchema } from '#domain/plans.ts'
import {
  AppointmentSchema,
  DevUnsubscribeIdSchema,
  InvitationPreviewSchema,
  OutboxAnswerSchema,
  ProcedureSchema,
  ProductSchema,
  StaffMemberSchema,
} from '#domain/practice-data.ts'
import { PracticeAnswerSchema } from '#domain/practice-settings.ts'
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
import {
  ApprovalAnswerSchema,
  RedemptionAnswerSchema,
  RedemptionCodeAnswerSchema,
  RedemptionCodeCheckAnswerSchema,
  VisitAnswerSchema,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import { NAME_TAKEN, type OperationDoc, OTHER_PRACTICE, TOO_MANY, tokenParam } from './operation.ts'

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
  'POST /api/visits/preview': {
    summary: "Preview a visit's points",
    description:
      "The lines with their price and points (the item's points per unit × quantity, or price × points per dollar), a line inside its procedure's minimum days between awards earning 0 with the day it opens again, the total, the balance, the point value, the redemption code threshold, the points ceiling per line and `approval_needed`: a sentence for each line priced above its catalogue price or earning more than the ceiling (a manager's approval is then needed to record the visit), and `offer_values`: for each offer with value the patient has claimed, what it would take off each line, the total to pay, the points earned on it, or why it matches no line. Writes nothing.",
    tag: 'Visits',
    responses: {
      200: { description: 'The priced lines and the programme figures.', json: VisitPreviewSchema },
      404: 'No patient, appointment, procedure or product has this id in your practice.',
      409: 'The appointment is already completed or cancelled.',
      422: 'An item is archived, or the appointment belongs to another patient.',
    },
  },
  'POST /api/visits/approval': {
    summary: "Approve a visit's prices and points",
    description:
      "A manager's approval of lines priced above the catalogue or earning more points than the programme's ceiling per line, with a reason: either a Manager or Admin signs in at the desk (`manager`: e-mail and password, counted like a sign-in: 5 failures an account, and 30 accounts failing from one address, in 15 minutes; a colleague's failures never refuse the manager) or the session's member is a Manager or Admin. Answers a token valid 15 minutes, bound to this patient and exactly these lines (items, quantities, prices), for one visit; send it as `approval.token` with POST /visits. Audited with the approver and the reason.",
    tag: 'Visits',
    responses: {
      201: { description: 'The approval token and who approved.', json: ApprovalAnswerSchema },
      403: 'The approver is not a Manager or Admin of this practice.',
      404: 'No patient, procedure or product has this id in your practice.',
      422: "The manager's e-mail or password is not correct, the lines need no approval, or an item is archived.",
      429: TOO_MANY,
    },
  },
  'POST /api/visits': {
    summary: 'Record a visit',
    description:
      "In one transaction under the patient's lock: the visit, its earn entries, the optional redemption (after the earn; the patient's code above the programme threshold, or a manager's override with a reason), a promotion's bonus and the appointment completed. The redemption may take `points`, `promotion_id` or both (one consent for both). An offer with value lowers its matching lines (worked out here, never taken from the request): the visit's `total_cents` is what the patient pays, `discount_cents` what the offer took off, and each discounted line earns points in proportion to what is paid for it; an offer whose procedures match no line is refused with 422. A line priced above its catalogue price or earning more than the programme's points ceiling per line needs `approval`: the token of POST /visits/approval for exactly these lines, or (a Manager or Admin recording it) a reason; the visit keeps who approved and why. The same idempotencyKey again answers the same visit and writes nothing.",
    tag: 'Visits',
    responses: {
      201: {
        description: 'The visit, its lines and entries, the balance.',
        json: VisitAnswerSchema,
      },
      403: "A manager's approval is needed (each line's reason), the approval is for other lines or expired; the patient's code is needed to redeem N points, or only a manager or an admin can redeem without it.",
      404: 'No patient, appointment, item or promotion has this id in your practice.',
      409: 'Not enough points: the balance is N. Or the appointment is already completed or cancelled, the promotion not claimed or already redeemed, the patient archived or merged into another record, the approval already used, or the key used for another change.',
      422: 'The code is not correct, expired, used, tried too often or for another amount; an item is archived.',
    },
  },
  'GET /api/visits/:id': {
    summary: 'Read a visit',
    description: 'The visit with its lines as sold and the ledger entries it posted.',
    tag: 'Visits',
    responses: {
      200: { description: 'The visit.', json: VisitAnswerSchema },
      404: OTHER_PRACTICE,
    },
  },
  'POST /api/visits/:id/undo': {
    summary: 'Undo a visit',
    description:
      'Within 10 minutes of the visit: reverses its entries (the redemption first, then the bonus and the earns), gives a redeemed promotion back to the claims and sets the appointment back to scheduled. A second undo answers the same reversals.',
    tag: 'Visits',
    responses: {
      201: { description: 'The reversing entries and the balance.', json: VisitUndoAnswerSchema },
      404: OTHER_PRACTICE,
      409: "The 10 minutes have passed (a manager can reverse the entries from the patient's profile), or an earn of the visit was already spent.",
    },
  },
  'POST /api/patients/:id/redemption-code': {
    summary: 'Text the patient a redemption code',
    description:
      "Sends the patient a 6-digit code by SMS for one amount: `points` (the SMS names them and their worth, e.g. 100 points ($10.00)) or `promotion_id` (it names the offer), or both for a visit that redeems points and an offer together, with the practice's name and the validity. The code redeems at most that amount, for this patient only, once: valid 10 minutes, 5 attempts. 30 seconds between codes and 5 an hour per patient.",
    tag: 'Visits',
    responses: {
      201: {
        description: 'The verification id to send back with the code.',
        json: RedemptionCodeAnswerSchema,
      },
      404: 'No patient or promotion has this id in your practice.',
      409: `The patient was merged into another record: "${MERGE_MESSAGES.mergedPatient}"`,
      422: 'The patient has no phone number.',
      429: TOO_MANY,
    },
  },
  'POST /api/patients/:id/redemption-code/check': {
    summary: "Check the patient's code before confirming",
    description:
      "Whether the typed code is the patient's newest code, unused and unexpired, for this amount (`points` at most the code's, or its `promotion_id`). Spends one of the code's 5 attempts and uses nothing: the visit or redemption then uses it. 20 checks a minute per member.",
    tag: 'Visits',
    responses: {
      200: {
        description: 'The code is right for this amount.',
        json: RedemptionCodeCheckAnswerSchema,
      },
      404: OTHER_PRACTICE,
      422: 'The code is not correct, expired, used, tried too often, or for another amount.',
      429: TOO_MANY,
    },
  },
  'POST /api/patients/:id/redemptions': {
    summary: 'Redeem points or a promotion',
    description:
      "Spends points for a reward, or a claimed promotion's points cost (then posts its bonus), with the same rules as a visit's redemption: the patient's code above the threshold or a manager's override with a reason; never below 0; the same idempotencyKey answers the same entry. An offer with value (an amount or a percentage off) is redeemed only at a visit (POST /visits): here it is refused with 409.",
    tag: 'Visits',
    responses: {
      201: {
        description: 'The entry, the bonus entry if any, and the balance.',
        json: RedemptionAnswerSchema,
      },
      403: "The patient's code is needed to redeem N points, or only a manager or an admin can redeem without it.",
      404: 'No patient or promotion has this id in your practice.',
      409: 'Not enough points: the balance is N. Or the promotion is not claimed or already redeemed, the patient archived or merged into another record, or the key used for another change.',
      422: 'The code is not correct, expired, used, tried too often or for another amount; the promotion has no points.',
    },
  },
}

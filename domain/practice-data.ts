import * as v from 'valibot'
import { bounded, NAME_MAX_LENGTH } from '#domain/fields.ts'
import { pageSchema } from '#domain/paging.ts'
import { toE164 } from '#domain/phone.ts'

/**
 * Answers of the practice-scoped data calls. The spec does
 * not show these screens' contents, so the fields are ours: enough for every shell area to show
 * something real. Timestamps travel as ISO 8601 strings; money in cents.
 */

const IsoDate = v.string()

/** The largest whole number a row holds (a Postgres `integer`): points and row ids. */
export const MAX_STORED_INTEGER = 2_147_483_647

/**
 * A patient as staff see it. It never carries the token of the patient's unsubscribe link:
 * that is the patient's to use, from their own e-mails.
 */
export const PatientSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  first_name: v.string(),
  last_name: v.string(),
  email: v.nullable(v.string()),
  phone: v.nullable(v.string()),
  email_subscription: v.boolean(),
  sms_subscription: v.boolean(),
  birth_date: v.nullable(v.string()),
  converted: v.boolean(),
  /** The balance: the sum of the patient's ledger entries. */
  points: v.number(),
  archived: v.boolean(),
  last_visit_at: v.nullable(IsoDate),
  created_at: IsoDate,
  /** The patient this one was merged into: the record is archived and links there. */
  merged_into_id: v.optional(v.nullable(v.number())),
})
export type Patient = v.InferOutput<typeof PatientSchema>

/** `GET /patients`: one page of the practice's patients. */
export const PatientPageSchema = pageSchema(PatientSchema)
export type PatientPage = v.InferOutput<typeof PatientPageSchema>

/** `GET /patients/summary`: the practice's patients counted in the database (archived left out). */
export const PatientSummarySchema = v.object({
  patients: v.number(),
  subscribed: v.number(),
  converted: v.number(),
})
export type PatientSummary = v.InferOutput<typeof PatientSummarySchema>

/** How the patient list can be sorted; a leading `-` sorts descending. */
export const PATIENT_SORTS = [
  'name',
  '-name',
  'points',
  '-points',
  'last_visit',
  '-last_visit',
  'created',
  '-created',
] as const
export type PatientSort = (typeof PATIENT_SORTS)[number]

const pageNumber = (max: number, fallback: string, label: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, `${label} must be a whole number.`),
      v.transform(Number),
      v.minValue(1, `${label} must be at least 1.`),
      v.maxValue(max, `${label} can be at most ${max}.`),
    ),
    fallback,
  )

/** The query of `GET /patients`: search by name, e-mail or phone; page from 1; at most 100 a page. */
export const PatientListQuerySchema = v.object({
  search: v.optional(
    v.pipe(v.string(), v.trim(), v.maxLength(100, 'The search can be at most 100 characters.')),
    '',
  ),
  page: pageNumber(100_000, '1', 'page'),
  pageSize: pageNumber(100, '25', 'pageSize'),
  sort: v.optional(
    v.picklist(PATIENT_SORTS, `sort must be one of ${PATIENT_SORTS.join(', ')}.`),
    'name',
  ),
  archived: v.optional(v.picklist(['true', 'false'], 'archived must be true or false.'), 'false'),
})
export type PatientListQuery = v.InferOutput<typeof PatientListQuerySchema>

/** The refusals of a duplicate patient (409, with the existing patient's id in `details`). */
export const DUPLICATE_PATIENT_MESSAGES = {
  email: 'A patient with this e-mail already exists.',
  phone: 'A patient with this phone number already exists.',
} as const

/** The digits of a phone number, for comparing and searching ("(555) 010-1001" → "5550101001"). */
export function phoneDigits(phone: string): string {
  return phone.replace(/\D/g, '')
}

/**
 * Why a phone is refused: it is not a possible number (a 7-digit number without its area code,
 * too many digits, letters). The same sentence on the form, the API and the import.
 */
export const PATIENT_PHONE_MESSAGE =
  'Please enter the phone number with its area code, like (408) 555-4743.'

/** Why a patient body may not carry `points`. */
export const PATIENT_POINTS_READ_ONLY =
  "A patient's points change only through the ledger: use Adjust points."

/** A name a spreadsheet would run as a formula (`=HYPERLINK(...)`, `+SUM(...)`, `@cmd`). */
export const FORMULA_NAME_MESSAGE =
  'Please write the name without =, +, - or @ at its start: a spreadsheet would run it as a formula.'

/** A first or last name: trimmed, at least one character, never starting like a formula. */
const PatientName = v.pipe(
  bounded(v.pipe(v.string(), v.trim(), v.minLength(1)), NAME_MAX_LENGTH),
  v.check((name) => !/^[=+\-@]./s.test(name), FORMULA_NAME_MESSAGE),
)

/** Body of `POST /patients` and `PUT /patients/{id}` (PUT takes any subset). */
export const PatientInputSchema = v.object({
  first_name: PatientName,
  last_name: PatientName,
  email: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.email(), v.maxLength(254)))),
  phone: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.trim(),
        // Any common writing is read; the E.164 form is stored and compared.
        v.check((phone) => toE164(phone) !== null, PATIENT_PHONE_MESSAGE),
        v.transform((phone) => toE164(phone) ?? phone),
      ),
    ),
  ),
  email_subscription: v.optional(v.boolean()),
  sms_subscription: v.optional(v.boolean()),
  birth_date: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.isoDate('Please enter the birth date as YYYY-MM-DD.'),
        v.check(
          (d) => d >= '1900-01-01' && d <= new Date().toISOString().slice(0, 10),
          'Please enter a birth date in the past.',
        ),
      ),
    ),
  ),
  converted: v.optional(v.boolean()),
  // The balance is the ledger's sum: it changes through adjustments, visits and redemptions only.
  points: v.optional(v.never(PATIENT_POINTS_READ_ONLY)),
})
export type PatientInput = v.InferOutput<typeof PatientInputSchema>

/** Body of `PUT /patients/{id}`: any subset of the fields of {@link PatientInputSchema}. */
export const PatientUpdateSchema = v.partial(PatientInputSchema)

/** Body of `PUT /patients/unsubscribe/{token}`: the one change the e-mailed link may make. */
export const UnsubscribeInputSchema = v.object({ email_subscription: v.literal(false) })

/**
 * A procedure or a product of the catalogue as the API answers it (`id`,
 * `practice_id`, `name`, `price` in cents, `points`). `points` is what one unit earns now: its own
 * points, or the price times the programme's points per dollar when `own_points` is null.
 */
export const CatalogueItemSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  name: v.string(),
  price: v.number(),
  points: v.number(),
  /** The item's own points per unit; null = from the price. */
  own_points: v.nullable(v.number()),
  /** Days that must pass between two awards of this item to the same patient; 0 = none. */
  min_days_between: v.number(),
  archived: v.boolean(),
})
export type CatalogueItem = v.InferOutput<typeof CatalogueItemSchema>

/** A treatment the practice offers (`GET /procedures`). */
export const ProcedureSchema = CatalogueItemSchema
export type Procedure = CatalogueItem

/** A retail product the practice sells (`GET /products`). */
export const ProductSchema = CatalogueItemSchema
export type Product = CatalogueItem

/** Texts of the catalogue's forms and refusals. */
export const CATALOGUE_MESSAGES = {
  nameRequired: 'Please enter a name.',
  nameTooLong: 'The name can be at most 120 characters.',
  price: 'Please enter a price of $0.00 to $100,000.00.',
  points: 'Points per unit must be a whole number from 0 to 1,000,000, or empty.',
  minDays: 'Days between awards must be a whole number from 0 to 3,650.',
  notFound: 'This item is not in your catalogue.',
  /** Another active item of the practice has the name, whatever its case. */
  nameTaken: (existing: string) =>
    `"${existing}" is already in your catalogue. Please choose another name, or archive that item first.`,
} as const

/** `POST /procedures`, `PUT /procedures/{id}` (and the same for products): what a manager sets. */
export const CatalogueItemInputSchema = v.object({
  name: v.pipe(
    v.string(CATALOGUE_MESSAGES.nameRequired),
    v.trim(),
    v.nonEmpty(CATALOGUE_MESSAGES.nameRequired),
    v.maxLength(120, CATALOGUE_MESSAGES.nameTooLong),
  ),
  /** Cents. */
  price: v.pipe(
    v.number(CATALOGUE_MESSAGES.price),
    v.integer(CATALOGUE_MESSAGES.price),
    v.minValue(0, CATALOGUE_MESSAGES.price),
    v.maxValue(10_000_000, CATALOGUE_MESSAGES.price),
  ),
  points: v.nullish(
    v.pipe(
      v.number(CATALOGUE_MESSAGES.points),
      v.integer(CATALOGUE_MESSAGES.points),
      v.minValue(0, CATALOGUE_MESSAGES.points),
      v.maxValue(1_000_000, CATALOGUE_MESSAGES.points),
    ),
    null,
  ),
  min_days_between: v.optional(
    v.pipe(
      v.number(CATALOGUE_MESSAGES.minDays),
      v.integer(CATALOGUE_MESSAGES.minDays),
      v.minValue(0, CATALOGUE_MESSAGES.minDays),
      v.maxValue(3650, CATALOGUE_MESSAGES.minDays),
    ),
    0,
  ),
})
export type CatalogueItemInput = v.InferOutput<typeof CatalogueItemInputSchema>

export const AppointmentSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  patient_id: v.number(),
  procedure_id: v.nullable(v.number()),
  starts_at: IsoDate,
  status: v.picklist(['scheduled', 'completed', 'cancelled']),
})
export type Appointment = v.InferOutput<typeof AppointmentSchema>

export const ActivitySchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  patient_id: v.number(),
  kind: v.string(),
  description: v.string(),
  points: v.number(),
  created_at: IsoDate,
})
export type Activity = v.InferOutput<typeof ActivitySchema>

export const PromotionSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  title: v.string(),
  description: v.string(),
  /** The bonus points a redemption awards. */
  points: v.number(),
  /** The points a redemption spends (0: a free offer). */
  points_cost: v.optional(v.number(), 0),
  starts_at: v.nullable(IsoDate),
  ends_at: v.nullable(IsoDate),
  /** The offer's value: an amount off a visit, or a percentage off each line. */
  discount_cents: v.optional(v.nullable(v.number())),
  discount_percent: v.optional(v.nullable(v.number())),
  /** The procedures its value applies to (empty: any procedure). */
  procedure_ids: v.optional(v.array(v.number())),
})
export type Promotion = v.InferOutput<typeof PromotionSchema>

/**
 * A patient's claim of a promotion: claimed, then redeemed (or expired). `title`, `points_cost`,
 * `bonus_points` and `ends_at` are the terms it was claimed with; `promotion` is the offer now.
 */
export const PatientPromotionSchema = v.object({
  id: v.optional(v.number()),
  patient_id: v.number(),
  promotion_id: v.number(),
  status: v.picklist(['claimed', 'redeemed', 'expired']),
  title: v.optional(v.string()),
  points_cost: v.optional(v.number()),
  bonus_points: v.optional(v.number()),
  ends_at: v.optional(v.nullable(IsoDate)),
  claimed_at: v.nullable(IsoDate),
  redeemed_at: v.nullable(IsoDate),
  expired_at: v.optional(v.nullable(IsoDate)),
  promotion: v.optional(PromotionSchema),
})
export type PatientPromotion = v.InferOutput<typeof PatientPromotionSchema>

/** Body of `PUT /promotions/claimed/{promo}` and `PUT /promotions/redeemed/{promo}`. */
export const PromotionActionInputSchema = v.object({
  promo: v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/))]),
  patient_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_STORED_INTEGER)),
})
export type PromotionActionInput = v.InferOutput<typeof PromotionActionInputSchema>

/** A staff member of the practice as the Personnel area lists it. */
export const StaffMemberSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  email: v.string(),
  title: v.nullable(v.string()),
  first_name: v.string(),
  last_name: v.string(),
  position: v.nullable(v.string()),
  access_rights: v.string(),
  image_path: v.nullable(v.string()),
  /** When an Admin deactivated the member; null while active. */
  deactivated_at: v.optional(v.nullable(v.string())),
  /** The member's last successful sign-in; null before the first. */
  last_sign_in_at: v.optional(v.nullable(v.string())),
  /** The member's own phone (digits), answered to the member only (My Profile). */
  cell_phone: v.optional(v.nullable(v.string())),
  country_code: v.optional(v.nullable(v.string())),
})
export type StaffMember = v.InferOutput<typeof StaffMemberSchema>

/** `GET /personnel/{id}`: what a registration form pre-fills from an invitation. */
export const InvitationPreviewSchema = v.object({
  first_name: v.string(),
  last_name: v.string(),
  email: v.string(),
  position: v.string(),
  title: v.optional(v.nullable(v.string())),
  /** The practice the person is invited to join. */
  practice_name: v.string(),
})
export type InvitationPreview = v.InferOutput<typeof InvitationPreviewSchema>

/** A message the development outbox recorded instead of sending (`GET /dev/outbox`). */
export const OutboxMessageSchema = v.object({
  channel: v.picklist(['sms', 'email']),
  to: v.string(),
  subject: v.optional(v.nullable(v.string())),
  text: v.string(),
  code: v.optional(v.nullable(v.string())),
  link: v.optional(v.nullable(v.string())),
  /** An e-mail's HTML part, when it has its own. */
  html: v.optional(v.nullable(v.string())),
  /** An e-mail's extra headers (`List-Unsubscribe`, `List-Unsubscribe-Post`), name to value. */
  headers: v.optional(v.record(v.string(), v.string())),
  sentAt: IsoDate,
})
export type OutboxMessage = v.InferOutput<typeof OutboxMessageSchema>
export const OutboxAnswerSchema = v.object({ messages: v.array(OutboxMessageSchema) })

/** `GET /dev/patients/:id/unsubscribe-id`: the token of a patient's unsubscribe link. */
export const DevUnsubscribeIdSchema = v.object({ unsubscribe_id: v.string() })

/** The `?limit=` and `?offset=` of `GET /patients/by-practice/{id}`. */
export const PageQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(200)),
    '50',
  ),
  offset: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,9}$/), v.transform(Number), v.minValue(0)),
    '0',
  ),
})

/** Most patients one answer of the spec's whole-list calls holds (see {@link WholeListQuerySchema}). */
export const WHOLE_LIST_LIMIT = 500

/**
 * The `?limit=` and `?offset=` of the spec's whole-list calls (`all/by-practice/{id}` and its
 * converted twin). Without them the answer is the first {@link WHOLE_LIST_LIMIT} patients, so no
 * answer grows with the practice; a `Link: <…>; rel="next"` header names the next page.
 */
export const WholeListQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/),
      v.transform(Number),
      v.minValue(1),
      v.maxValue(WHOLE_LIST_LIMIT),
    ),
    String(WHOLE_LIST_LIMIT),
  ),
  offset: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,9}$/), v.transform(Number), v.minValue(0)),
    '0',
  ),
})

/**
 * The database schema (drizzle pg-core) for every entity of the product: practices, their
 * people, patients, the ledger, offers and the outbox. Column keys are snake_case so that a selected row already has the JSON shape the
 * API answers with (domain/practice-data.ts, domain/session.ts). Timestamps are `timestamptz`
 * read as `Date`; money is in cents.
 *
 * Change it, then run `npm run db:generate` to write a migration into `server/db/migrations/`.
 */
import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import type { PlanPerks } from '#domain/memberships.ts'
import type { SealedJson } from '#server/db/data-key.ts'

const createdAt = () => timestamp({ withTimezone: true }).notNull().defaultNow()
const instant = () => timestamp({ withTimezone: true })

/** The Nextech EHR credentials of a practice that chose `e_record: 'nextech'`. */
export type NextechSettings = {
  client_id: string
  username: string
  password: string
  nx_practice_id: string
}

/** A price tier of a plan, in Stripe's shape. */
export type PlanTierRow = {
  amount: number | null
  flat_amount: number | null
  up_to: number | null
}

/** A subscribed practice (the spec's practice_details plus its billing and subscription). */
export const practices = pgTable(
  'practices',
  {
    id: serial().primaryKey(),
    practice_name: text().notNull(),
    office_name: text(),
    url: text(),
    practice_phone: text(),
    practice_email: text(),
    practice_address: text(),
    practice_address_2: text(),
    city: text(),
    practice_zip: text(),
    state: text(),
    country: text().notNull().default('US'),
    e_record: text().notNull().default('no_integration'),
    /** The {@link NextechSettings}, sealed with the data key (server/db/data-key.ts). */
    nextech: jsonb().$type<SealedJson>(),
    image_path: text(),
    // The shell footer's own links; null opens the product's own view.
    footer_about_url: text(),
    footer_privacy_url: text(),
    footer_support: text(),
    stripe_customer_id: text(),
    /** The provider's subscription, made right after sign-up (Settings shows it). */
    stripe_subscription_id: text(),
    plan_id: text().references(() => plans.id),
    coupon_id: text().references(() => coupons.id),
    subscription_basic: boolean().notNull().default(true),
    subscription_ehr: boolean().notNull().default(false),
    subscription_months: integer(),
    subscription_status: text().notNull().default('active'),
    billing_address_1: text(),
    billing_address_2: text(),
    billing_city: text(),
    billing_state: text(),
    billing_zip: text(),
    // The rewards programme's rules (domain/ledger.ts has the defaults).
    point_value_cents: integer().notNull().default(10),
    points_per_dollar: integer().notNull().default(1),
    joining_bonus: integer().notNull().default(0),
    referral_bonus: integer().notNull().default(0),
    expiry_months: integer().notNull().default(12),
    redemption_code_threshold: integer().notNull().default(0),
    /** The most points one line of a visit earns without a manager's approval. */
    max_points_per_line: integer().notNull().default(5000),
    created_at: createdAt(),
  },
  (t) => [
    check('practices_e_record_check', sql`${t.e_record} in ('no_integration', 'nextech')`),
    check(
      'practices_subscription_status_check',
      sql`${t.subscription_status} in ('active', 'past_due', 'cancelled')`,
    ),
  ],
)

/**
 * A practice's connection to Nextech (server/modules/nextech): the token pair Glow holds, sealed
 * like the credentials, and how the last call went, in words. One row per practice, made by the
 * first "Test connection" or sync; erased with the practice.
 */
export const nextechConnections = pgTable(
  'nextech_connections',
  {
    practice_id: integer()
      .primaryKey()
      .references(() => practices.id, { onDelete: 'cascade' }),
    /** The {@link NextechTokens} pair, sealed with the data key; null after a failed sign-in. */
    tokens: jsonb().$type<SealedJson>(),
    /** `connected` after a call that worked, `failing` after one that did not. */
    status: text().notNull(),
    /** The reason of the last failure (server/nextech/failures.ts) and its sentence. */
    last_error_reason: text(),
    last_error: text(),
    last_checked_at: timestamp({ withTimezone: true }).notNull(),
    /** Since when the connection has worked without a failure in between. */
    connected_since: instant(),
    /**
     * The sync's watermark per resource (`Patient`, `Appointment`, `Claim`): the greatest
     * `meta.lastUpdated` applied, never later than the start of the walk that applied it. The
     * next walk reads from it minus an overlap (server/modules/nextech/sync.ts).
     */
    watermarks: jsonb().$type<Record<string, string>>().notNull().default({}),
    /** The process that syncs this practice now, and until when its lease holds. */
    lease_owner: text(),
    lease_until: instant(),
    /** The end of the last sync that finished. */
    last_sync_at: instant(),
    /** Since when every sync has failed (null after one that worked), and the e-mail sent for it. */
    failing_since: instant(),
    failure_mailed_at: instant(),
    /** Bills dated before this day earn nothing (the first connection's day, or the backfill's). */
    award_from: date(),
  },
  (t) => [check('nextech_connections_status_check', sql`${t.status} in ('connected', 'failing')`)],
)

/** One run of the Nextech sync of a practice: started by the schedule or "Sync now". */
export const nextechSyncRuns = pgTable(
  'nextech_sync_runs',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    trigger: text().notNull(),
    status: text().notNull().default('running'),
    /** What the run changed (domain NextechCounts), kept as it goes. */
    counts: jsonb().$type<Record<string, number>>().notNull().default({}),
    /** Requests per endpoint, 429s included. */
    requests: jsonb().$type<Record<string, number>>().notNull().default({}),
    error: text(),
    started_at: instant().notNull(),
    finished_at: instant(),
  },
  (t) => [
    index('nextech_sync_runs_practice_idx').on(t.practice_id, t.id),
    check('nextech_sync_runs_status_check', sql`${t.status} in ('running', 'done', 'failed')`),
  ],
)

/**
 * A Nextech patient as the sync knows it: the Glow patient it is linked to (null while it waits
 * in the review queue or was ignored), and who referred it.
 */
export const nextechPatients = pgTable(
  'nextech_patients',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    nextech_id: text().notNull(),
    patient_id: integer().references(() => patients.id, { onDelete: 'set null' }),
    /** `linked`, `review` (waiting for a person), `ignored`. */
    state: text().notNull(),
    referring_nextech_id: text(),
    /** The referral bonus's ledger entry, once the first bill earned it. */
    referral_entry_id: integer(),
    updated_at: instant().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.practice_id, t.nextech_id] }),
    index('nextech_patients_patient_idx').on(t.patient_id),
    index('nextech_patients_referrer_idx').on(t.practice_id, t.referring_nextech_id),
    check('nextech_patients_state_check', sql`${t.state} in ('linked', 'review', 'ignored')`),
  ],
)

/**
 * A Nextech appointment of a patient not linked yet (waiting in the review queue, or not read
 * yet): kept as Nextech sent it, and put in the Appointments area when the patient is linked.
 */
export const nextechWaitingAppointments = pgTable(
  'nextech_waiting_appointments',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    /** The appointment's Nextech id. */
    nextech_id: text().notNull(),
    nextech_patient_id: text().notNull(),
    /** The appointment as read (server/nextech/resources.ts `NextechAppointment`). */
    record: jsonb().notNull(),
    updated_at: instant().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.practice_id, t.nextech_id] }),
    index('nextech_waiting_appointments_patient_idx').on(t.practice_id, t.nextech_patient_id),
  ],
)

/**
 * One line of a Nextech bill and what it did to the points: earned (its entry), reversed (the
 * reversal), nothing and why, or waiting (for its patient, or for a person in the review queue).
 */
export const nextechClaimLines = pgTable(
  'nextech_claim_lines',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    claim_id: text().notNull(),
    line_id: text().notNull(),
    nextech_patient_id: text(),
    patient_id: integer().references(() => patients.id, { onDelete: 'set null' }),
    code: text(),
    text: text().notNull(),
    quantity: integer().notNull(),
    net_cents: integer().notNull(),
    billed_on: date(),
    /** The catalogue item the service code maps to, when it does. */
    procedure_id: integer(),
    product_id: integer(),
    points: integer().notNull().default(0),
    /**
     * `earned`, `reversed`, `none` (a quote, a bill before the award day, a cancelled bill never
     * earned, an item not earning yet), `waiting` (no linked patient yet), `review`.
     */
    state: text().notNull(),
    /** Why the line earns nothing or waits, in words. */
    note: text(),
    /** Voided in Nextech (the line, or its bill). */
    voided: boolean().notNull().default(false),
    earn_entry_id: integer(),
    reverse_entry_id: integer(),
    updated_at: instant().notNull(),
  },
  (t) => [
    uniqueIndex('nextech_claim_lines_unique').on(t.practice_id, t.claim_id, t.line_id),
    index('nextech_claim_lines_patient_idx').on(t.practice_id, t.nextech_patient_id),
    index('nextech_claim_lines_code_idx').on(t.practice_id, t.code),
    check(
      'nextech_claim_lines_state_check',
      sql`${t.state} in ('earned', 'reversed', 'none', 'waiting', 'review')`,
    ),
  ],
)

/** A service code of Nextech's bills mapped to a catalogue item by an Admin. */
export const nextechServiceCodes = pgTable(
  'nextech_service_codes',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    code: text().notNull(),
    procedure_id: integer().references(() => procedures.id, { onDelete: 'cascade' }),
    product_id: integer().references(() => products.id, { onDelete: 'cascade' }),
    updated_at: instant().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.practice_id, t.code] }),
    check(
      'nextech_service_codes_item_check',
      sql`(${t.procedure_id} is null) <> (${t.product_id} is null)`,
    ),
  ],
)

/**
 * Something the sync would not guess: a patient who matches several, or whose name disagrees; a
 * reversal of points already spent; a line above the ceiling. Open until a person resolves it.
 */
export const nextechReviews = pgTable(
  'nextech_reviews',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    /** `patient`, `reversal`, `ceiling`. */
    kind: text().notNull(),
    /** The Nextech patient id, or the claim line's `claim/line`. */
    subject: text().notNull(),
    message: text().notNull(),
    /** What a person needs to decide: the Nextech record, the candidates' ids. */
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    resolution: text(),
    resolved_by: integer().references(() => users.id, { onDelete: 'set null' }),
    resolved_at: instant(),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('nextech_reviews_open_unique')
      .on(t.practice_id, t.kind, t.subject)
      .where(sql`${t.resolved_at} is null`),
    index('nextech_reviews_practice_idx').on(t.practice_id, t.id),
    check('nextech_reviews_kind_check', sql`${t.kind} in ('patient', 'reversal', 'ceiling')`),
  ],
)

/** A staff member who signs in. The e-mail is stored lower-cased and is unique. */
export const users = pgTable(
  'users',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    username: text(),
    password_hash: text().notNull(),
    title: text(),
    first_name: text().notNull(),
    last_name: text().notNull(),
    cell_phone: text(),
    country_code: text(),
    position: text(),
    access_rights: text().notNull().default('Staff'),
    image_path: text(),
    // Sessions issued before this instant are refused (password reset, sign out everywhere).
    tokens_valid_after: instant(),
    // Self-service: a deactivated member cannot sign in and their sessions end at once.
    deactivated_at: instant(),
    last_sign_in_at: instant(),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    index('users_practice_idx').on(t.practice_id),
    check('users_email_lower_check', sql`${t.email} = lower(${t.email})`),
    check('users_access_rights_check', sql`${t.access_rights} in ('Admin', 'Manager', 'Staff')`),
  ],
)

/** A subscription plan (Stripe's shape; amounts in cents). */
export const plans = pgTable(
  'plans',
  {
    id: text().primaryKey(),
    nickname: text().notNull(),
    interval: text().notNull(),
    interval_count: integer().notNull().default(1),
    amount: integer(),
    tiers: jsonb().$type<PlanTierRow[]>(),
    active: boolean().notNull().default(true),
    sort_order: integer().notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [check('plans_interval_check', sql`${t.interval} in ('month', 'year')`)],
)

/** The columns of a plan as the API and the sign-up check read it (domain `Plan`). */
export const planColumns = {
  id: plans.id,
  nickname: plans.nickname,
  interval: plans.interval,
  interval_count: plans.interval_count,
  amount: plans.amount,
  tiers: plans.tiers,
}

/** A promo coupon; the id is the code. Only `public` coupons are listed to every browser. */
export const coupons = pgTable(
  'coupons',
  {
    id: text().primaryKey(),
    amount_off: integer(),
    percent_off: integer(),
    /** Stripe's coupon duration: `once` takes it off the first invoice only, `forever` off each. */
    duration: text().notNull().default('once'),
    public: boolean().notNull().default(false),
    created_at: createdAt(),
  },
  (t) => [
    check('coupons_duration_check', sql`${t.duration} in ('once', 'forever')`),
    check(
      'coupons_one_discount_check',
      sql`(${t.amount_off} is null) <> (${t.percent_off} is null)`,
    ),
    check(
      'coupons_percent_range_check',
      sql`${t.percent_off} is null or (${t.percent_off} > 0 and ${t.percent_off} <= 100)`,
    ),
    check('coupons_amount_positive_check', sql`${t.amount_off} is null or ${t.amount_off} > 0`),
  ],
)

/** An invitation for a person to join a practice; the id travels in the link (>= 128 bits). */
export const personnelInvitations = pgTable(
  'personnel_invitations',
  {
    id: text().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    invited_by: integer().references(() => users.id, { onDelete: 'set null' }),
    email: text().notNull(),
    title: text(),
    first_name: text().notNull(),
    last_name: text().notNull(),
    position: text().notNull(),
    status: text().notNull().default('pending'),
    expires_at: instant().notNull(),
    used_at: instant(),
    created_at: createdAt(),
  },
  (t) => [
    index('personnel_invitations_practice_idx').on(t.practice_id),
    check('personnel_invitations_status_check', sql`${t.status} in ('pending', 'used', 'revoked')`),
  ],
)

/** A client of the practice. `unsubscribe_id` is the random token of the unsubscribe link. */
export const patients = pgTable(
  'patients',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    first_name: text().notNull(),
    last_name: text().notNull(),
    email: text(),
    phone: text(),
    email_subscription: boolean().notNull().default(true),
    sms_subscription: boolean().notNull().default(false),
    birth_date: date(),
    unsubscribe_id: text().notNull(),
    converted: boolean().notNull().default(false),
    points: integer().notNull().default(0),
    // Patients are archived, never deleted: their ledger stays.
    archived_at: instant(),
    last_visit_at: instant(),
    created_at: createdAt(),
    /**
     * The day the patient joined the practice when it is not the day they were added here: an
     * import's "joined on" column. The dashboard counts a patient as new by this day,
     * else by `created_at`.
     */
    joined_on: date(),
    /** Created by a CSV import: without `joined_on`, the dashboard counts them apart from new. */
    imported: boolean().notNull().default(false),
    /**
     * The patient this one was merged into: set with `archived_at` by the merge, which
     * moved every row of this patient to that one (docs/decisions/016-merging-patients.md).
     */
    merged_into_id: integer().references((): AnyPgColumn => patients.id, { onDelete: 'set null' }),
    /**
     * What a search reads, kept by the database: its words, each after a space, so that a typed
     * word matches the start of one with `LIKE '% word%'` (migration 0027): the name as written
     * and split at hyphens, apostrophes and periods, the e-mail whole and split at @ . _ + -, the
     * phone's digits and, for a number with the country code 1, its ten digits without it.
     */
    search_text: text().generatedAlwaysAs(
      sql`' ' || lower("patients"."first_name" || ' ' || "patients"."last_name") || ' ' || regexp_replace(lower("patients"."first_name" || ' ' || "patients"."last_name"), '[-''’.]+', ' ', 'g') || ' ' || lower(coalesce("patients"."email", '')) || ' ' || regexp_replace(lower(coalesce("patients"."email", '')), '[-@._+]+', ' ', 'g') || ' ' || regexp_replace(coalesce("patients"."phone", ''), '[^0-9]+', '', 'g') || ' ' || CASE WHEN regexp_replace(coalesce("patients"."phone", ''), '[^0-9]+', '', 'g') ~ '^1[0-9]{10}$' THEN substr(regexp_replace("patients"."phone", '[^0-9]+', '', 'g'), 2) ELSE '' END`,
    ),
  },
  (t) => [
    uniqueIndex('patients_unsubscribe_id_unique').on(t.unsubscribe_id),
    index('patients_practice_idx').on(t.practice_id),
    index('patients_practice_name_idx').on(t.practice_id, t.last_name, t.first_name, t.id),
    // The dashboard counts patients who joined in a period.
    index('patients_practice_created_idx').on(t.practice_id, t.created_at),
    // Search as you type reads this trigram index (migrations 0008, 0027), not every patient.
    // fastupdate off: PGlite has no autovacuum to merge a pending list, which would grow until
    // the planner stopped using the index.
    index('patients_search_trgm_idx')
      .using('gin', sql`${t.search_text} gin_trgm_ops`)
      .with({ fastupdate: false }),
    // The cached balance of the ledger can never go below 0, whatever a bug in the app does.
    check('patients_points_nonnegative_check', sql`${t.points} >= 0`),
    // A merged patient is archived and never merged into itself.
    check(
      'patients_merged_into_check',
      sql`${t.merged_into_id} is null or (${t.merged_into_id} <> ${t.id} and ${t.archived_at} is not null)`,
    ),
    // The possible duplicates join the practice's active patients on these keys (migration 0026).
    index('patients_duplicate_phone_idx')
      .on(t.practice_id, t.phone)
      .where(sql`${t.archived_at} is null and ${t.phone} is not null`),
    index('patients_duplicate_email_idx')
      .on(t.practice_id, sql`lower(${t.email})`)
      .where(sql`${t.archived_at} is null and ${t.email} is not null`),
  ],
)

/**
 * The columns of a catalogue item, the same for procedures and products (a function: each table
 * needs column builders of its own).
 */
const catalogueColumns = () => ({
  id: serial().primaryKey(),
  practice_id: integer()
    .notNull()
    .references(() => practices.id, { onDelete: 'cascade' }),
  name: text().notNull(),
  /** Cents. */
  price: integer().notNull().default(0),
  /** Points per unit; null = the price times the programme's points per dollar. */
  points: integer(),
  /** Days that must pass between two awards of this item to the same patient; 0 = none. */
  min_days_between: integer().notNull().default(0),
  archived_at: instant(),
  created_at: createdAt(),
})

/** A treatment the practice offers. */
export const procedures = pgTable('procedures', catalogueColumns(), (t) => [
  index('procedures_practice_idx').on(t.practice_id),
  // One active item of a name per practice, case and surrounding spaces aside (migration 0028).
  uniqueIndex('procedures_practice_active_name_unique')
    .on(t.practice_id, sql`lower(btrim(${t.name}))`)
    .where(sql`${t.archived_at} is null`),
])

/** A retail product the practice sells. */
export const products = pgTable('products', catalogueColumns(), (t) => [
  index('products_practice_idx').on(t.practice_id),
  // One active item of a name per practice, case and surrounding spaces aside (migration 0028).
  uniqueIndex('products_practice_active_name_unique')
    .on(t.practice_id, sql`lower(btrim(${t.name}))`)
    .where(sql`${t.archived_at} is null`),
])

/** A booked visit of a patient. */
export const appointments = pgTable(
  'appointments',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    procedure_id: integer().references(() => procedures.id, { onDelete: 'set null' }),
    starts_at: instant().notNull(),
    status: text().notNull().default('scheduled'),
    notes: text().notNull().default(''),
    created_at: createdAt(),
    updated_at: instant(),
    /** The appointment's id in Nextech, when the sync brought it; its Nextech status as written. */
    nextech_id: text(),
    nextech_status: text(),
  },
  (t) => [
    index('appointments_practice_starts_idx').on(t.practice_id, t.starts_at),
    uniqueIndex('appointments_nextech_unique')
      .on(t.practice_id, t.nextech_id)
      .where(sql`${t.nextech_id} is not null`),
    check('appointments_status_check', sql`${t.status} in ('scheduled', 'completed', 'cancelled')`),
    check('appointments_notes_length_check', sql`char_length(${t.notes}) <= 1000`),
  ],
)

/** Something that happened to a patient (visit, points earned, promotion redeemed). */
export const activities = pgTable(
  'activities',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    description: text().notNull(),
    points: integer().notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [index('activities_patient_idx').on(t.patient_id, t.created_at)],
)

/**
 * A reward the practice offers its patients. Its status (domain/promotions.ts) follows
 * from the actions (`published_at`, `ended_at`, `archived_at`) and the dates (`starts_at`,
 * `ends_at`): Draft, Scheduled, Live, Ended, Archived. A claimed offer is never deleted.
 */
export const promotions = pgTable(
  'promotions',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    title: text().notNull(),
    description: text().notNull().default(''),
    /** The bonus points a redemption gives (the API's `bonus_points`; `points` in the spec). */
    points: integer().notNull().default(0),
    /** Points a redemption of the promotion spends (0 = free). */
    points_cost: integer().notNull().default(0),
    starts_at: instant(),
    ends_at: instant(),
    /** How many claims the offer allows in all (null: no limit). */
    max_redemptions: integer(),
    /** How many times one patient may claim it. */
    per_patient_limit: integer().notNull().default(1),
    /** Only patients who give this code may claim it (null: every patient). */
    code: text(),
    /** The amount an offer takes off a visit, once (null: none). */
    discount_cents: integer(),
    /** The percentage an offer takes off each matching line (1 to 100; null: none). */
    discount_percent: integer(),
    /** The procedures its discount applies to (empty: any procedure). */
    procedure_ids: integer().array().notNull().default(sql`'{}'::integer[]`),
    published_at: instant(),
    ended_at: instant(),
    archived_at: instant(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
    updated_at: instant(),
  },
  (t) => [
    index('promotions_practice_idx').on(t.practice_id),
    check('promotions_points_check', sql`${t.points} >= 0 and ${t.points_cost} >= 0`),
    check(
      'promotions_limits_check',
      sql`(${t.max_redemptions} is null or ${t.max_redemptions} > 0) and ${t.per_patient_limit} > 0`,
    ),
    check(
      'promotions_discount_check',
      sql`(${t.discount_cents} is null or ${t.discount_cents} > 0) and (${t.discount_percent} is null or ${t.discount_percent} between 1 and 100) and (${t.discount_cents} is null or ${t.discount_percent} is null)`,
    ),
  ],
)

/**
 * A patient's claim of a promotion: claimed, then redeemed (or expired when its end passes
 * first). The offer's terms are kept with the claim as they were when it was claimed, so an edit
 * of a live offer never changes what a patient claimed. A patient has at most one open claim of
 * an offer; `per_patient_limit` counts all of them.
 */
export const patientPromotions = pgTable(
  'patient_promotions',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    promotion_id: integer()
      .notNull()
      .references(() => promotions.id, { onDelete: 'cascade' }),
    status: text().notNull().default('claimed'),
    /** The offer's terms when it was claimed (null on claims written before migration 0024: read the offer). */
    title: text(),
    points_cost: integer(),
    bonus_points: integer(),
    ends_at: instant(),
    /** The staff member who claimed it for the patient (null: the patient, from the offer's link). */
    claimed_by: integer().references(() => users.id, { onDelete: 'set null' }),
    claimed_at: instant(),
    redeemed_at: instant(),
    expired_at: instant(),
  },
  (t) => [
    index('patient_promotions_promotion_idx').on(t.promotion_id, t.status),
    index('patient_promotions_patient_idx').on(t.patient_id),
    uniqueIndex('patient_promotions_open_unique')
      .on(t.patient_id, t.promotion_id)
      .where(sql`${t.status} = 'claimed'`),
    check(
      'patient_promotions_status_check',
      sql`${t.status} in ('claimed', 'redeemed', 'expired')`,
    ),
  ],
)

/**
 * An offer sent to a patient (the funnel's `sent`): its personal link's random token. Filled by
 * the sending of offers; the funnel counts the rows with `sent_at`.
 */
export const promotionSends = pgTable(
  'promotion_sends',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    promotion_id: integer()
      .notNull()
      .references(() => promotions.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    token: text().notNull(),
    created_at: createdAt(),
    sent_at: instant(),
  },
  (t) => [
    uniqueIndex('promotion_sends_token_unique').on(t.token),
    index('promotion_sends_promotion_idx').on(t.promotion_id),
  ],
)

/** A stored file (practice logo, avatar, attachment); `storage_key` names it in the file store. */
export const uploads = pgTable(
  'uploads',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    uploaded_by: integer().references(() => users.id, { onDelete: 'set null' }),
    name: text().notNull(),
    mime: text().notNull(),
    size: integer().notNull(),
    storage_key: text().notNull(),
    /** `logo` or `avatar`; null for files stored before it. */
    purpose: text(),
    created_at: createdAt(),
  },
  (t) => [index('uploads_practice_idx').on(t.practice_id)],
)

/** PostgreSQL's `bytea`, read as bytes on both drivers (node-postgres gives a Buffer, PGlite a Uint8Array). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
  fromDriver: (value) => new Uint8Array(value.buffer, value.byteOffset, value.byteLength),
})

/**
 * The bytes of uploaded images, by the storage key of their `uploads` row: in the
 * database, so that every server process serves every upload and a database backup holds them
 * (docs/decisions/019-shared-state.md). The bytes are written before the row and removed after it,
 * so there is no foreign key between them.
 */
export const uploadContents = pgTable(
  'upload_contents',
  {
    storage_key: text().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    content_type: text().notNull(),
    size: integer().notNull(),
    width: integer().notNull(),
    height: integer().notNull(),
    bytes: bytea().notNull(),
    created_at: createdAt(),
  },
  (t) => [
    index('upload_contents_practice_idx').on(t.practice_id),
    check(
      'upload_contents_content_type_check',
      sql`${t.content_type} in ('image/png', 'image/jpeg', 'image/webp')`,
    ),
    // At most 2 MB, as UPLOAD_MAX_BYTES (domain/uploads.ts) admits.
    check(
      'upload_contents_size_check',
      sql`${t.size} = octet_length(${t.bytes}) and ${t.size} <= 2097152`,
    ),
    check('upload_contents_dimensions_check', sql`${t.width} > 0 and ${t.height} > 0`),
  ],
)

/** A phone verification in progress; the id is the `authyId` the client carries. */
export const verificationCodes = pgTable(
  'verification_codes',
  {
    id: text().primaryKey(),
    phone: text().notNull(),
    email: text(),
    code_hash: text().notNull(),
    expires_at: instant().notNull(),
    attempts: integer().notNull().default(0),
    verified_at: instant(),
    // Set when a registration consumed the verified phone, so one code registers one account.
    used_at: instant(),
    last_sent_at: instant().notNull(),
    created_at: createdAt(),
  },
  (t) => [index('verification_codes_phone_idx').on(t.phone)],
)

/** A password reset code, stored only as its SHA-256; single-use and short-lived. */
export const resetCodes = pgTable(
  'reset_codes',
  {
    id: serial().primaryKey(),
    /** The user's practice (migration 0031): every tenant row names its practice. */
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    code_hash: text().notNull(),
    user_id: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: instant().notNull(),
    used_at: instant(),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('reset_codes_code_hash_unique').on(t.code_hash)],
)

/** Messages recorded instead of (or as well as) being sent: the development outbox. */
export const outbox = pgTable(
  'outbox',
  {
    id: serial().primaryKey(),
    channel: text().notNull(),
    to: text().notNull(),
    subject: text(),
    text: text().notNull(),
    code: text(),
    link: text(),
    /** The HTML part of an e-mail, when it has one. */
    html: text(),
    /** An e-mail's extra headers (`List-Unsubscribe`…), name to value, so a tester can follow them. */
    headers: jsonb().$type<Record<string, string>>().notNull().default({}),
    sent_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('outbox_sent_at_idx').on(t.sent_at),
    check('outbox_channel_check', sql`${t.channel} in ('sms', 'email')`),
  ],
)

/**
 * E-mail and SMS waiting to leave (docs/decisions/006-durable-outbound-queue.md): written in the
 * same transaction as what caused them, sent by the outbound worker with retries and backoff.
 * A row is deleted once delivered; one that exhausted its attempts keeps `failed_at` and the
 * last error for the operator. `next_attempt_at` doubles as the lease of a claimed row, so a
 * worker that dies mid-send leaves the row to be claimed again.
 */
export const outboundMessages = pgTable(
  'outbound_messages',
  {
    id: serial().primaryKey(),
    channel: text().notNull(),
    to: text().notNull(),
    /** Null on an e-mail queued as a template until the worker renders it (`template`). */
    subject: text(),
    /** Null on an e-mail queued as a template until the worker renders it (`template`). */
    text: text(),
    /** The HTML part of an e-mail that has its own (patient e-mail); else one is made from the link. */
    html: text(),
    /**
     * An e-mail queued in bulk names its template and keeps the template's props in `data`
     * (docs/decisions/018-email-templates.md): the worker renders it once, writes subject, text,
     * HTML, link and headers into the row, and delivers what it wrote.
     */
    template: text(),
    data: jsonb(),
    /** Extra mail headers (for example `List-Unsubscribe`), name to value. */
    headers: jsonb().$type<Record<string, string>>().notNull().default({}),
    /**
     * The visit whose points statement this is: sent when its undo window closes
     * (`next_attempt_at`), deleted by its undo.
     */
    visit_id: integer(),
    /** The SMS code inside `text`, kept apart for the development outbox. */
    code: text(),
    /** The one link of an e-mail, kept apart for the development outbox. */
    link: text(),
    /** Attempts that ended: each failure is written with its error in one update. */
    attempts: integer().notNull().default(0),
    next_attempt_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    last_error: text(),
    failed_at: instant(),
    /**
     * The claim of the worker sending it now: its random token and when it claimed. Only that claim
     * may delete the row or write its outcome; a claim that lapsed counts as a failed attempt.
     */
    claim_token: text(),
    claimed_at: instant(),
    /**
     * A random key of its own, the e-mail's `Message-ID` (with the PUBLIC_URL host): a message
     * sent again after a crash is recognisably the same one.
     */
    message_key: uuid().notNull().defaultRandom(),
    created_at: createdAt(),
  },
  (t) => [
    index('outbound_messages_due_idx').on(t.next_attempt_at),
    check('outbound_messages_channel_check', sql`${t.channel} in ('sms', 'email')`),
    check(
      'outbound_messages_body_check',
      sql`${t.text} is not null or (${t.template} is not null and ${t.data} is not null)`,
    ),
  ],
)

/** Card payments already turned into a customer: makes `POST /auth/pay` idempotent per token. */
export const payments = pgTable('payments', {
  id: serial().primaryKey(),
  token: text().notNull().unique('payments_token_unique'),
  email: text().notNull(),
  customer_id: text().notNull(),
  created_at: createdAt(),
})

/**
 * The built-in test gateway's customers (server/payments/test-gateway.ts), the mirror of
 * Stripe's customer objects: kept here so a practice's card outlives a restart, as at Stripe. Only
 * the brand, last four digits and expiry of the card are kept, never its number. Unused with Stripe.
 */
export const testGatewayCustomers = pgTable('test_gateway_customers', {
  id: text().primaryKey(),
  email: text().notNull(),
  card_brand: text().notNull(),
  card_last4: text().notNull(),
  card_exp_month: integer().notNull(),
  card_exp_year: integer().notNull(),
  /** The billing address the customer was created with (`CustomerBilling`). */
  billing: jsonb().$type<Record<string, string | null | undefined>>().notNull(),
  created_at: createdAt(),
})

/**
 * The test gateway's subscriptions, the mirror of Stripe's subscription objects: the plans (price
 * ids), the coupon, the status and the period already paid, and the end at the period end.
 */
export const testGatewaySubscriptions = pgTable(
  'test_gateway_subscriptions',
  {
    id: text().primaryKey(),
    customer_id: text()
      .notNull()
      .references(() => testGatewayCustomers.id),
    plan_ids: jsonb().$type<string[]>().notNull(),
    coupon: text(),
    /** The coupon's duration when it was applied (`once` or `forever`); null without a coupon. */
    coupon_duration: text(),
    status: text().notNull().default('active'),
    /** When it started: every period ends a whole number of terms after it. */
    billing_cycle_anchor: timestamp({ withTimezone: true }).notNull(),
    /** Periods begun so far, the first included (renewals = periods - 1). */
    periods: integer().notNull().default(1),
    current_period_start: timestamp({ withTimezone: true }).notNull(),
    /** Null only until the plan's term is known (a gateway without a price list). */
    current_period_end: timestamp({ withTimezone: true }),
    cancel_at_period_end: boolean().notNull().default(false),
    /** When the end at the period end was asked for (Stripe's `canceled_at`). */
    canceled_at: timestamp({ withTimezone: true }),
    /** When a subscription set to cancel reached its period end (Stripe's `ended_at`). */
    ended_at: timestamp({ withTimezone: true }),
    created_at: createdAt(),
  },
  (t) => [
    index('test_gateway_subscriptions_customer_idx').on(t.customer_id),
    check('test_gateway_subscriptions_status_check', sql`${t.status} in ('active', 'canceled')`),
  ],
)

/**
 * The test gateway's idempotency keys and the first answer each got (a decline included), as
 * Stripe keeps them: a retry after a restart must not charge or subscribe twice.
 */
export const testGatewayIdempotency = pgTable(
  'test_gateway_idempotency',
  {
    operation: text().notNull(),
    key: text().notNull(),
    answer: jsonb().notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.operation, t.key] })],
)

/** Fixed-window counters for rate limits shared by every server instance. */
export const rateLimits = pgTable('rate_limits', {
  key: text().primaryKey(),
  count: integer().notNull().default(0),
  window_start: timestamp({ withTimezone: true }).notNull(),
})

/**
 * Security-relevant events (sign-in, reset, invitation, registration, payment) for the audit
 * trail: append-only, a trigger refuses UPDATE, DELETE and TRUNCATE (migration 0002). The ids are
 * plain numbers, not foreign keys, so a removed user or practice keeps its history.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: serial().primaryKey(),
    practice_id: integer(),
    user_id: integer(),
    action: text().notNull(),
    ip: text(),
    details: jsonb().$type<Record<string, unknown>>(),
    created_at: createdAt(),
    /**
     * Position in the hash chain, set by the database's insert trigger under a lock (ids are taken
     * before the trigger runs, so two inserts at once could chain out of id order).
     */
    seq: bigint({ mode: 'number' }),
    /** `hash` of the event before this one (by `seq`); null for the first. */
    prev_hash: text(),
    /** SHA-256 of this event's fields and `prev_hash` (`audit_event_hash`, migration 0003). */
    hash: text(),
  },
  (t) => [
    index('audit_events_created_idx').on(t.created_at),
    uniqueIndex('audit_events_seq_unique').on(t.seq),
    // The activity log reads one practice's events newest first (migration 0013).
    index('audit_events_practice_idx').on(t.practice_id, t.id),
  ],
)

/**
 * The points ledger: every change of a patient's points is one row, never
 * updated or deleted (a trigger refuses both, migration 0005). `patients.points` caches the sum,
 * written in the same transaction. Credits (`earn`, `bonus`, positive `adjust`) are lots with an
 * expiry; debits take from lots oldest first through {@link ledgerAllocations}.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    points: integer().notNull(),
    source_type: text().notNull(),
    source_id: integer(),
    idempotency_key: text(),
    reason: text(),
    expires_at: instant(),
    // The entry this one reverses; unique, so an entry is reversed at most once.
    reverses_id: integer(),
    balance_after: integer().notNull(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_entries_idempotency_unique').on(t.practice_id, t.idempotency_key),
    uniqueIndex('ledger_entries_reverses_unique').on(t.reverses_id),
    index('ledger_entries_patient_idx').on(t.patient_id, t.id),
    index('ledger_entries_practice_created_idx').on(t.practice_id, t.created_at),
    // The entries a visit (or another source) posted, read back for its answer and by its undo:
    // without it, a scan of the practice's whole ledger (23 ms a read at 200,000 entries).
    index('ledger_entries_source_idx')
      .on(t.source_type, t.source_id)
      .where(sql`${t.source_id} is not null`),
    // The worklist's lots that lapse soon: only lots carry an expiry.
    index('ledger_entries_practice_expires_idx')
      .on(t.practice_id, t.expires_at)
      .where(sql`${t.expires_at} is not null`),
    check(
      'ledger_entries_kind_check',
      sql`${t.kind} in ('earn', 'bonus', 'adjust', 'redeem', 'expire', 'reverse')`,
    ),
    check('ledger_entries_points_nonzero_check', sql`${t.points} <> 0`),
    check(
      'ledger_entries_sign_check',
      sql`(${t.kind} in ('earn', 'bonus') and ${t.points} > 0) or (${t.kind} in ('redeem', 'expire') and ${t.points} < 0) or ${t.kind} in ('adjust', 'reverse')`,
    ),
    check('ledger_entries_balance_check', sql`${t.balance_after} >= 0`),
  ],
)

/**
 * The ledger summed per practice, UTC day and kind: the dashboard's and the liability
 * report's figures read these few rows per day instead of every entry, so they take the same time
 * at 100 patients as at 10,000. Kept by the database itself: a statement trigger on
 * `ledger_entries` adds each inserted statement's sums (migration 0014), and the ledger is
 * append-only, so the sums never need taking back. Each column is the signed sum of that kind's
 * points (`redeem` and `expire` negative, `adjust` and `reverse` either way).
 */
export const ledgerDaily = pgTable(
  'ledger_daily',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    day: date().notNull(),
    earn: bigint({ mode: 'number' }).notNull().default(0),
    bonus: bigint({ mode: 'number' }).notNull().default(0),
    adjust: bigint({ mode: 'number' }).notNull().default(0),
    redeem: bigint({ mode: 'number' }).notNull().default(0),
    expire: bigint({ mode: 'number' }).notNull().default(0),
    reverse: bigint({ mode: 'number' }).notNull().default(0),
    /**
     * `reverse` split by the kind of the entry each reversal cancels, so that the
     * dashboard's earned, redeemed and expired are net of reversals: an undone visit does not
     * count as earned. Their sum is `reverse`.
     */
    reverse_earn: bigint({ mode: 'number' }).notNull().default(0),
    reverse_bonus: bigint({ mode: 'number' }).notNull().default(0),
    reverse_adjust: bigint({ mode: 'number' }).notNull().default(0),
    reverse_redeem: bigint({ mode: 'number' }).notNull().default(0),
    reverse_expire: bigint({ mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.practice_id, t.day] })],
)

/**
 * The patients counted per practice and UTC day, so that the dashboard and the patient list count
 * a practice's patients by reading a few rows per day instead of every patient (migration 0033).
 * A patient's day is the day they joined: an import's "joined on" day, else the day they were
 * added. Kept by the database itself: triggers on `patients` add each inserted or deleted row,
 * and an update that changes one of the counted columns moves the row from its old counts to its
 * new ones.
 */
export const patientDaily = pgTable(
  'patient_daily',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    day: date().notNull(),
    /** Patients who joined on this day (every record, merged ones too). */
    joined: integer().notNull().default(0),
    /** Of those, the ones with a known day: all but imports that gave no "joined on" day. */
    joined_dated: integer().notNull().default(0),
    /**
     * Patients who left the count on this day: archived (or merged) that day, or, archived
     * before the day they joined, on the day they joined. Those in the count on a day D
     * joined on or before D and did not leave on or before D.
     */
    left_count: integer().notNull().default(0),
    /** Of those who left, the records merged into another patient (in no list). */
    merged: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.practice_id, t.day] })],
)

/**
 * Points-expiry reminders already queued: one row per lot and
 * threshold (30 or 7 days before it lapses), written in the transaction that queues the e-mail,
 * so the daily job queues each reminder once however often it runs.
 */
export const pointsReminders = pgTable(
  'points_reminders',
  {
    lot_entry_id: integer()
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    days_before: integer().notNull(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    created_at: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.lot_entry_id, t.days_before] }),
    check('points_reminders_days_check', sql`${t.days_before} in (30, 7)`),
  ],
)

/**
 * Which lots a debit took its points from (oldest first), append-only like the ledger. A reversal
 * of a debit writes negative allocations that give the points back to the same lots; a lot's
 * remaining points are its points less the sum of its allocations.
 */
export const ledgerAllocations = pgTable(
  'ledger_allocations',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    debit_entry_id: integer()
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    lot_entry_id: integer()
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    points: integer().notNull(),
    created_at: createdAt(),
  },
  (t) => [
    index('ledger_allocations_lot_idx').on(t.lot_entry_id),
    index('ledger_allocations_debit_idx').on(t.debit_entry_id),
    index('ledger_allocations_patient_idx').on(t.patient_id),
    check('ledger_allocations_points_nonzero_check', sql`${t.points} <> 0`),
  ],
)

/**
 * A visit recorded at the front desk (checkout): what was sold, for which patient and
 * appointment, by whom. Its ledger entries carry `source_type` 'visit' and `source_id` its id.
 * An undo (within 10 minutes) reverses them and sets `undone_at`; the appointment can then be
 * completed again, hence the partial unique index.
 */
export const visits = pgTable(
  'visits',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    appointment_id: integer().references(() => appointments.id, { onDelete: 'set null' }),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    /** What the patient pays: the lines' prices less the offer's discount. */
    total_cents: integer().notNull(),
    /** What the redeemed offer took off the visit, in cents (0: none). */
    discount_cents: integer().notNull().default(0),
    /** The membership whose perks or bank the visit used, if any (undo puts them back). */
    membership_id: integer().references((): AnyPgColumn => memberships.id, {
      onDelete: 'set null',
    }),
    /** What the membership's allowances and member price took off, in cents. */
    allowance_cents: integer().notNull().default(0),
    member_discount_cents: integer().notNull().default(0),
    /** What the membership bank paid of `total_cents`. */
    bank_cents: integer().notNull().default(0),
    idempotency_key: text().notNull(),
    /** The promotion the visit redeemed, if any (its claim goes back to claimed on undo). */
    redemption_promotion_id: integer(),
    /** The manager who approved a price above the catalogue's or points above the ceiling. */
    approved_by: integer().references(() => users.id, { onDelete: 'set null' }),
    approval_reason: text(),
    /** The approval's id (its token's `jti`): one approval records one visit. */
    approval_id: text(),
    undone_at: instant(),
    undone_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('visits_idempotency_unique').on(t.practice_id, t.idempotency_key),
    uniqueIndex('visits_approval_unique')
      .on(t.approval_id)
      .where(sql`${t.approval_id} is not null`),
    uniqueIndex('visits_appointment_unique')
      .on(t.appointment_id)
      .where(sql`${t.appointment_id} is not null and ${t.undone_at} is null`),
    index('visits_patient_idx').on(t.patient_id, t.created_at),
    check('visits_total_check', sql`${t.total_cents} >= 0 and ${t.discount_cents} >= 0`),
    check(
      'visits_member_check',
      sql`${t.bank_cents} >= 0 and ${t.bank_cents} <= ${t.total_cents} and ${t.allowance_cents} >= 0 and ${t.member_discount_cents} >= 0`,
    ),
  ],
)

/** One line of a visit: the item's name and price as they were then, its points or refusal. */
export const visitItems = pgTable(
  'visit_items',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    visit_id: integer()
      .notNull()
      .references(() => visits.id, { onDelete: 'cascade' }),
    patient_id: integer().notNull(),
    position: integer().notNull(),
    kind: text().notNull(),
    item_id: integer().notNull(),
    name: text().notNull(),
    unit_price_cents: integer().notNull(),
    quantity: integer().notNull(),
    /** What the visit's offer took off this line, in cents (0: none). */
    discount_cents: integer().notNull().default(0),
    /** Units the membership's allowance covered (free), and what the member price took off. */
    allowance_units: integer().notNull().default(0),
    member_discount_cents: integer().notNull().default(0),
    points: integer().notNull(),
    refused_reason: text(),
    refused_opens_on: date(),
    /** The line's `earn` entry (null when it earned nothing). */
    entry_id: integer().references(() => ledgerEntries.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('visit_items_visit_idx').on(t.visit_id),
    index('visit_items_patient_item_idx').on(t.patient_id, t.kind, t.item_id),
    check('visit_items_kind_check', sql`${t.kind} in ('procedure', 'product')`),
    check('visit_items_quantity_check', sql`${t.quantity} > 0`),
    check('visit_items_points_check', sql`${t.points} >= 0`),
    check(
      'visit_items_discount_check',
      sql`${t.discount_cents} >= 0 and ${t.discount_cents}::bigint <= ${t.unit_price_cents}::bigint * ${t.quantity}`,
    ),
    check(
      'visit_items_member_check',
      sql`${t.allowance_units} >= 0 and ${t.allowance_units} <= ${t.quantity} and ${t.member_discount_cents} >= 0`,
    ),
  ],
)

/**
 * A redemption code texted to a patient (6 digits, stored as SHA-256 only): valid 10 minutes,
 * 5 attempts, once, for that patient only.
 */
export const redemptionCodes = pgTable(
  'redemption_codes',
  {
    id: text().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    code_hash: text().notNull(),
    /** The points the code may redeem at most, or null when it is for an offer. */
    points: integer(),
    /** The offer the code may redeem, or null when it is for points. */
    promotion_id: integer(),
    /** The cents the code may pay from the membership bank at most, or null. */
    bank_cents: integer(),
    expires_at: instant().notNull(),
    attempts: integer().notNull().default(0),
    used_at: instant(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [index('redemption_codes_patient_idx').on(t.patient_id, t.created_at)],
)

/**
 * The redemptions made without the patient's code (below the programme's threshold), per patient
 * and UTC day: together at most the threshold a day, counted under the patient's lock.
 */
export const codelessRedemptions = pgTable(
  'codeless_redemptions',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    /** The `redeem` entry; a reversed one no longer counts. */
    entry_id: integer()
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    points: integer().notNull(),
    day: date().notNull(),
    created_at: createdAt(),
  },
  (t) => [index('codeless_redemptions_patient_day_idx').on(t.patient_id, t.day)],
)

/**
 * The rows a patient import created (decision 010): one per file row, keyed by the
 * practice, the file's SHA-256 and the row number, so a chunk sent again or the same file imported
 * again creates nobody twice.
 */
export const patientImportRows = pgTable(
  'patient_import_rows',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    file_id: text().notNull(),
    row_number: integer().notNull(),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.practice_id, t.file_id, t.row_number] })],
)

/**
 * One merge of two patients of a practice: the kept one, the merged one (once: a merged
 * patient is archived and cannot be merged again), the request's idempotency key, and how many rows
 * of each kind moved, so a replay answers what the merge did.
 */
export const patientMerges = pgTable(
  'patient_merges',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    kept_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    merged_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    idempotency_key: text(),
    moved: jsonb().$type<Record<string, number>>().notNull(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('patient_merges_merged_unique').on(t.merged_id),
    uniqueIndex('patient_merges_idempotency_unique').on(t.practice_id, t.idempotency_key),
    index('patient_merges_kept_idx').on(t.kept_id),
  ],
)

/**
 * The practice's own payment account, where its patients' membership charges go (Stripe Connect:
 * a connected account; the test gateway models one). One per practice.
 */
export const paymentAccounts = pgTable('payment_accounts', {
  practice_id: integer()
    .primaryKey()
    .references(() => practices.id, { onDelete: 'cascade' }),
  provider: text().notNull(),
  account_id: text().notNull(),
  connected_by: integer().references(() => users.id, { onDelete: 'set null' }),
  connected_at: createdAt(),
})

/**
 * A membership plan: its name and whether it is archived. What a member pays and gets lives in
 * its versions: a change of price, cadence, terms or perks adds one, and members stay on theirs.
 */
export const membershipPlans = pgTable(
  'membership_plans',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull().default(''),
    /** The version new members join. */
    current_version: integer().notNull().default(1),
    archived_at: instant(),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('membership_plans_practice_name_unique')
      .on(t.practice_id, sql`lower(btrim(${t.name}))`)
      .where(sql`${t.archived_at} is null`),
  ],
)

/** One version of a plan's price, cadence, terms and perks (`PlanPerks`). */
export const membershipPlanVersions = pgTable(
  'membership_plan_versions',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    plan_id: integer()
      .notNull()
      .references(() => membershipPlans.id, { onDelete: 'cascade' }),
    version: integer().notNull(),
    price_cents: integer().notNull(),
    interval: text().notNull(),
    setup_fee_cents: integer().notNull().default(0),
    min_cycles: integer().notNull().default(1),
    notice_days: integer().notNull().default(0),
    perks: jsonb().$type<PlanPerks>().notNull(),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('membership_plan_versions_unique').on(t.plan_id, t.version),
    check(
      'membership_plan_versions_interval_check',
      sql`${t.interval} in ('month', 'quarter', 'year')`,
    ),
    check('membership_plan_versions_price_check', sql`${t.price_cents} > 0`),
  ],
)

/**
 * A patient's membership on one plan version. `status` moves only through the statechart
 * (machines/membership). `renews_at` is the start of the cycle to be charged next;
 * `next_payment_attempt_at` when the next attempt runs (the renewal, or a retry); the billing run
 * reads only rows whose attempt is due (index below), so its cost follows the members due.
 */
export const memberships = pgTable(
  'memberships',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    plan_version_id: integer()
      .notNull()
      .references(() => membershipPlanVersions.id),
    /** A plan change set for the next renewal. */
    next_plan_version_id: integer().references(() => membershipPlanVersions.id),
    status: text().notNull(),
    started_at: timestamp({ withTimezone: true }).notNull(),
    /** Paid cycles so far; the cycle charged next is `cycle + 1`. */
    cycle: integer().notNull().default(1),
    current_period_start: timestamp({ withTimezone: true }).notNull(),
    current_period_end: timestamp({ withTimezone: true }).notNull(),
    renews_at: timestamp({ withTimezone: true }),
    next_payment_attempt_at: instant(),
    failed_attempts: integer().notNull().default(0),
    cancel_at: instant(),
    cancel_reason: text(),
    ended_at: instant(),
    paused_cycles: integer().notNull().default(0),
    bank_cents: integer().notNull().default(0),
    customer_id: text().notNull(),
    card_brand: text(),
    card_last4: text(),
    card_exp_month: integer(),
    card_exp_year: integer(),
    /** The card (last4/month/year) the 30-day expiry notice was sent for. */
    expiry_notice_for: text(),
    /** SHA-256 of the personal card-update link's token; null when none is out. */
    card_link_hash: text(),
    consent_text_version: text().notNull(),
    consent_accepted_by_name: text().notNull(),
    consent_at: timestamp({ withTimezone: true }).notNull(),
    consent_taken_by: integer().references(() => users.id, { onDelete: 'set null' }),
    consent_method: text().notNull(),
    idempotency_key: text().notNull(),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex('memberships_idempotency_unique').on(t.practice_id, t.idempotency_key),
    // One membership that is not over per patient.
    uniqueIndex('memberships_patient_live_unique')
      .on(t.patient_id)
      .where(sql`${t.status} in ('active', 'past_due', 'paused', 'unpaid')`),
    index('memberships_due_idx')
      .on(t.next_payment_attempt_at)
      .where(sql`${t.next_payment_attempt_at} is not null`),
    index('memberships_practice_idx').on(t.practice_id, t.status),
    // The memberships report's new members of a stretch.
    index('memberships_started_idx').on(t.practice_id, t.started_at),
    // A patient's memberships (the checkout reads the live one, or the last with a bank left).
    index('memberships_patient_idx').on(t.patient_id, t.id),
    uniqueIndex('memberships_card_link_unique').on(t.card_link_hash),
    check('memberships_bank_check', sql`${t.bank_cents} >= 0`),
    check(
      'memberships_status_check',
      sql`${t.status} in ('active', 'past_due', 'paused', 'unpaid', 'cancelled', 'ended')`,
    ),
  ],
)

/**
 * Every charge and refund sent to the payment gateway, one row per attempt, written (pending)
 * before the call with the idempotency key the gateway gets, settled after it. The partial unique
 * index is the rule itself: one successful cycle charge per membership and cycle.
 */
export const membershipCharges = pgTable(
  'membership_charges',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    cycle: integer().notNull(),
    /** `cycle` (first or renewal), `proration`, `refund`. */
    purpose: text().notNull(),
    attempt: integer().notNull(),
    amount_cents: integer().notNull(),
    status: text().notNull(),
    idempotency_key: text().notNull(),
    gateway_ref: text(),
    failure_message: text(),
    created_by: integer().references(() => users.id, { onDelete: 'set null' }),
    created_at: createdAt(),
    settled_at: instant(),
  },
  (t) => [
    uniqueIndex('membership_charges_key_unique').on(t.idempotency_key),
    uniqueIndex('membership_charges_paid_cycle_unique')
      .on(t.membership_id, t.cycle)
      .where(sql`${t.purpose} = 'cycle' and ${t.status} = 'succeeded'`),
    uniqueIndex('membership_charges_attempt_unique').on(
      t.membership_id,
      t.cycle,
      t.purpose,
      t.attempt,
    ),
    // One attempt in flight per membership, cycle and purpose: a new one only after it settled.
    uniqueIndex('membership_charges_in_flight_unique')
      .on(t.membership_id, t.cycle, t.purpose)
      .where(sql`${t.status} = 'pending'`),
    index('membership_charges_pending_idx').on(t.created_at).where(sql`${t.status} = 'pending'`),
    // Renewals paid by a retry (attempt > 1): the end of a past-due episode, for the report.
    index('membership_charges_recovered_idx')
      .on(t.practice_id, t.settled_at)
      .where(sql`${t.purpose} = 'cycle' and ${t.status} = 'succeeded' and ${t.attempt} > 1`),
    index('membership_charges_recovered_history_idx')
      .on(t.membership_id, t.settled_at)
      .where(sql`${t.purpose} = 'cycle' and ${t.status} = 'succeeded' and ${t.attempt} > 1`),
    check(
      'membership_charges_status_check',
      sql`${t.status} in ('pending', 'succeeded', 'failed')`,
    ),
  ],
)

/**
 * A cycle's perks, issued once: the row's key (membership, cycle) is the guarantee, written in
 * the transaction that records the cycle's successful charge.
 */
export const membershipCycles = pgTable(
  'membership_cycles',
  {
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    cycle: integer().notNull(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    plan_version_id: integer()
      .notNull()
      .references(() => membershipPlanVersions.id),
    charge_id: integer().references(() => membershipCharges.id),
    period_start: timestamp({ withTimezone: true }).notNull(),
    period_end: timestamp({ withTimezone: true }).notNull(),
    bank_cents: integer().notNull(),
    /**
     * Whether this cycle moved the membership to another plan version than the one before it (its
     * first cycle, a change at the period's end), or the membership has ever changed plan now: set
     * by a trigger (migration 0045). The memberships report reads only these cycles for the MRR's
     * history, not every renewal.
     */
    version_changed: boolean().notNull().default(false),
    created_at: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.membership_id, t.cycle] }),
    // The memberships report reads a practice's cycles (each one's plan version) up to a day.
    index('membership_cycles_practice_idx').on(t.practice_id, t.created_at),
    index('membership_cycles_version_changed_idx')
      .on(t.practice_id, t.created_at)
      .where(sql`${t.version_changed}`),
    index('membership_cycles_versions_idx')
      .on(t.membership_id, t.created_at)
      .where(sql`${t.version_changed}`),
  ],
)

/**
 * The membership bank's entries: paid-in value per cycle (`credit`), value used at checkout
 * (`use`), refunded (`refund`). The membership's `bank_cents` is their sum, written with them.
 */
export const membershipBankEntries = pgTable(
  'membership_bank_entries',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    /** `credit` (a paid cycle), `use` (a visit paid from it), `restore` (its undo), `refund`. */
    kind: text().notNull(),
    cycle: integer(),
    amount_cents: integer().notNull(),
    balance_after: integer().notNull(),
    /** The visit a `use` paid, or a `restore` undid. */
    visit_id: integer().references((): AnyPgColumn => visits.id, { onDelete: 'set null' }),
    created_at: createdAt(),
  },
  (t) => [
    // One use and one restore per visit: a replayed posting or undo never moves the bank twice.
    uniqueIndex('membership_bank_visit_unique')
      .on(t.visit_id, t.kind)
      .where(sql`${t.visit_id} is not null`),
    uniqueIndex('membership_bank_credit_unique')
      .on(t.membership_id, t.cycle)
      .where(sql`${t.kind} = 'credit'`),
    index('membership_bank_membership_idx').on(t.membership_id),
    // The bank's roll-forward in the memberships report: a practice's entries by day.
    index('membership_bank_practice_idx').on(t.practice_id, t.created_at),
    check('membership_bank_balance_check', sql`${t.balance_after} >= 0`),
  ],
)

/** Units of catalogue items left this cycle (allowances). */
export const membershipAllowances = pgTable(
  'membership_allowances',
  {
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    catalogue_item_id: integer()
      .notNull()
      .references(() => procedures.id, { onDelete: 'cascade' }),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    remaining: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.membership_id, t.catalogue_item_id] }),
    check('membership_allowances_remaining_check', sql`${t.remaining} >= 0`),
  ],
)

/** What happened to a membership, for its timeline (`GET /memberships/{id}/events`). */
export const membershipEvents = pgTable(
  'membership_events',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    amount_cents: integer(),
    detail: text().notNull(),
    /**
     * The plan version the membership is on after a `plan_changed` event (a change now): the one
     * change of version no cycle records, kept for the memberships report's MRR history.
     */
    plan_version_id: integer().references(() => membershipPlanVersions.id),
    user_id: integer().references(() => users.id, { onDelete: 'set null' }),
    at: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    index('membership_events_membership_idx').on(t.membership_id, t.id),
    // The memberships report reads a practice's status changes up to a day (MRR, churn).
    index('membership_events_status_idx')
      .on(t.practice_id, t.at)
      .where(
        sql`${t.kind} in ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended', 'plan_changed')`,
      ),
    // …and the whole status history of the memberships that changed in a month.
    index('membership_events_status_history_idx')
      .on(t.membership_id, t.at)
      .where(
        sql`${t.kind} in ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended', 'plan_changed')`,
      ),
  ],
)

/**
 * Each change of a membership's status or plan version, with its state before and after, kept at
 * write time by triggers (migration 0047) on what the memberships report reads history from: a
 * status event (`source` 0, `source_id` the event's id), a renewal paid on a retry (1, the
 * charge's id), a cycle on another plan version (2, the cycle) and a change of plan now (3, the
 * event's id). A membership's changes run in the order (`at`, `source`, `source_id`), the order in
 * which the report applies them; each one's state before is the one after the change before it,
 * so a window's movement is read from the changes in it alone (the first one's state before, the
 * last one's after), never from a membership's whole history. Derived: a change written out of
 * order (a bulk load, two at the same instant) carries the state on to the ones after it, and
 * `membership_changes_rebuild(practice_id)` writes a practice's rows again from their sources.
 */
export const membershipChanges = pgTable(
  'membership_changes',
  {
    membership_id: integer()
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    at: timestamp({ withTimezone: true }).notNull(),
    source: smallint().notNull(),
    source_id: integer().notNull(),
    /** The status this change sets (`enrolled` and `resumed` set `active`), or null. */
    sets_status: text(),
    /** The plan version this change sets, or null. Copied from its source, which is checked. */
    sets_plan_version_id: integer(),
    status_before: text(),
    plan_version_before: integer(),
    status_after: text(),
    plan_version_after: integer(),
  },
  (t) => [
    primaryKey({ columns: [t.membership_id, t.at, t.source, t.source_id] }),
    // A window's changes, by practice and time.
    index('membership_changes_practice_idx').on(t.practice_id, t.at),
    // The period's cancellations and churn: changes to cancelled, ended or unpaid.
    index('membership_changes_churn_idx')
      .on(t.practice_id, t.at)
      .where(sql`${t.sets_status} in ('cancelled', 'ended', 'unpaid')`),
    // The ends of past-due episodes (recovered or not).
    index('membership_changes_past_due_ends_idx')
      .on(t.practice_id, t.at)
      .where(sql`${t.status_before} = 'past_due' and ${t.sets_status} is not null`),
  ],
)

/**
 * The memberships report's MRR (at the end, or its change over a window), MRR movement and bank
 * flows, as the stored months and windows both keep them: new columns each time it is called.
 */
const reportMovementColumns = () => ({
  mrr_cents: bigint({ mode: 'number' }).notNull(),
  new_cents: bigint({ mode: 'number' }).notNull(),
  expansion_cents: bigint({ mode: 'number' }).notNull(),
  contraction_cents: bigint({ mode: 'number' }).notNull(),
  voluntary_cents: bigint({ mode: 'number' }).notNull(),
  involuntary_cents: bigint({ mode: 'number' }).notNull(),
  reactivation_cents: bigint({ mode: 'number' }).notNull(),
  bank_paid_in_cents: bigint({ mode: 'number' }).notNull(),
  bank_used_cents: bigint({ mode: 'number' }).notNull(),
  bank_refunded_cents: bigint({ mode: 'number' }).notNull(),
})

/**
 * The memberships report's closed months (server/modules/reports/membership-report.ts), stored the
 * first time a report needs them once the month is over on the billing clock: the statuses and
 * the MRR at the month's end, its MRR movement and its bank flows. A closed month does not change
 * (every write is dated on the billing clock, which only moves forward), so the report reads a
 * year of them instead of recomputing each membership's history.
 */
export const membershipReportMonths = pgTable(
  'membership_report_months',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    /** The month's first day (UTC). */
    month: date({ mode: 'string' }).notNull(),
    active: integer().notNull(),
    paused: integer().notNull(),
    past_due: integer().notNull(),
    unpaid: integer().notNull(),
    ...reportMovementColumns(),
    bank_closing_cents: bigint({ mode: 'number' }).notNull(),
    computed_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.practice_id, t.month] })],
)

/**
 * The memberships report's closed windows: what changed in a stretch of time that is over on the
 * billing clock (an hour after the day it ends on, as a month), stored the first time a report
 * needs it: the change of each status count and of MRR, the MRR movement and the bank flows, or
 * for a whole period its churn and recoveries. A report whose period or open month runs on to
 * today adds to the stored part only what changed since (server/modules/reports/
 * membership-report.ts). Derived, like the closed months: a row can be deleted and is worked out
 * again by the next report that needs it; rows not computed for two days are removed.
 */
export const membershipReportWindows = pgTable(
  'membership_report_windows',
  {
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    starts_at: timestamp({ withTimezone: true }).notNull(),
    ends_at: timestamp({ withTimezone: true }).notNull(),
    /** A whole period's churn and recoveries, else a stretch's changes and flows. */
    period: boolean().notNull(),
    active: integer().notNull(),
    paused: integer().notNull(),
    past_due: integer().notNull(),
    unpaid: integer().notNull(),
    live: integer().notNull(),
    ...reportMovementColumns(),
    churned: integer().notNull(),
    recovered: integer().notNull(),
    not_recovered: integer().notNull(),
    /** A period's memberships started in it, and those cancelled or ended in it (by reason). */
    started: integer().notNull(),
    cancelled: integer().notNull(),
    cancelled_patient: integer().notNull(),
    cancelled_staff: integer().notNull(),
    cancelled_failed_payment: integer().notNull(),
    computed_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.practice_id, t.starts_at, t.ends_at, t.period] })],
)

/** Gateway events (webhooks) already applied, by the gateway's event id: each is applied once. */
export const paymentWebhookEvents = pgTable('payment_webhook_events', {
  id: text().primaryKey(),
  type: text().notNull(),
  received_at: createdAt(),
})

/**
 * The billing clock's offset from the wall clock, one row: `POST /dev/clock` moves it forward
 * outside production, so a year of renewals runs in seconds. Shared by every process.
 */
export const billingClock = pgTable('billing_clock', {
  id: integer().primaryKey(),
  offset_ms: bigint({ mode: 'number' }).notNull().default(0),
})

/**
 * The test gateway's connected accounts, customers (with the card's test number class) and
 * charges, as Stripe keeps them: charges by idempotency key, so a repeated key answers the first
 * outcome; `events` are the webhooks it sends.
 */
export const testGatewayAccounts = pgTable('test_gateway_accounts', {
  id: text().primaryKey(),
  created_at: createdAt(),
})

export const testGatewayMemberCustomers = pgTable('test_gateway_member_customers', {
  id: text().primaryKey(),
  account_id: text().notNull(),
  card_brand: text().notNull(),
  card_last4: text().notNull(),
  card_exp_month: integer().notNull(),
  card_exp_year: integer().notNull(),
  /** Stripe's behaviour of the test number when charged: `ok`, or the decline code. */
  charge_outcome: text().notNull(),
  created_at: createdAt(),
})

export const testGatewayCharges = pgTable(
  'test_gateway_charges',
  {
    id: text().primaryKey(),
    idempotency_key: text().notNull(),
    account_id: text().notNull(),
    customer_id: text(),
    kind: text().notNull(),
    amount_cents: integer().notNull(),
    status: text().notNull(),
    failure_code: text(),
    failure_message: text(),
    refunded_charge_id: text(),
    metadata: jsonb().$type<Record<string, string>>().notNull(),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('test_gateway_charges_key_unique').on(t.account_id, t.idempotency_key)],
)

/**
 * A sign-in code of the patient's wallet (docs/decisions/027-patients-wallet.md): 6 digits, sent
 * to a patient's e-mail or phone, stored only as a salted SHA-256, single-use, 10 minutes. The
 * contact is kept as a keyed hash too (the code is matched by it), never as typed.
 */
export const walletCodes = pgTable(
  'wallet_codes',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    /** SHA-256 of the practice and the normalised contact (lowercase e-mail or E.164 phone). */
    contact_hash: text().notNull(),
    /** `email` or `sms`: where the code went. */
    channel: text().notNull(),
    salt: text().notNull(),
    code_hash: text().notNull(),
    /** Wrong codes typed while this one was the newest (at most 5, then it is spent). */
    attempts: integer().notNull().default(0),
    expires_at: instant().notNull(),
    used_at: instant(),
    created_at: createdAt(),
  },
  (t) => [
    index('wallet_codes_contact_idx').on(t.practice_id, t.contact_hash, t.created_at),
    check('wallet_codes_channel_check', sql`${t.channel} in ('email', 'sms')`),
  ],
)

/**
 * A patient session of the wallet: an opaque random bearer token, stored as its SHA-256, that
 * opens only `/api/wallet/me…` for one patient of one practice. It slides (30 minutes idle) up to
 * 12 hours after sign-in; logout, archiving or merging the patient revoke it.
 */
export const patientSessions = pgTable(
  'patient_sessions',
  {
    id: serial().primaryKey(),
    practice_id: integer()
      .notNull()
      .references(() => practices.id, { onDelete: 'cascade' }),
    patient_id: integer()
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    token_hash: text().notNull(),
    created_at: createdAt(),
    last_seen_at: instant().notNull(),
    expires_at: instant().notNull(),
    revoked_at: instant(),
    /** Why it ended early: `logout`, `archived`, `merged`. */
    revoked_reason: text(),
  },
  (t) => [
    uniqueIndex('patient_sessions_token_hash_unique').on(t.token_hash),
    index('patient_sessions_patient_idx').on(t.practice_id, t.patient_id),
  ],
)

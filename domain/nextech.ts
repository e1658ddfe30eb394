import * as v from 'valibot'

/** What a sync changed: the status's last 24 hours, and each run's. */
export const NextechCountsSchema = v.object({
  patients_linked: v.number(),
  patients_created: v.number(),
  patients_updated: v.number(),
  patients_to_review: v.number(),
  appointments: v.number(),
  bills: v.number(),
  points_awarded: v.number(),
  points_reversed: v.number(),
})
export type NextechCounts = v.InferOutput<typeof NextechCountsSchema>

/** Counts of nothing: where a run starts. */
export const NO_NEXTECH_COUNTS: NextechCounts = {
  patients_linked: 0,
  patients_created: 0,
  patients_updated: 0,
  patients_to_review: 0,
  appointments: 0,
  bills: 0,
  points_awarded: 0,
  points_reversed: 0,
}

/** The health of the sync, added to {@link NextechStatusSchema} (NEXTECH.md section 2). */
export const NextechSyncHealthSchema = v.object({
  /** When the last sync finished without a failure (ISO instant). */
  last_sync_at: v.nullable(v.string()),
  /** Seconds since then; null before the first. */
  lag_seconds: v.nullable(v.number()),
  /** What the syncs of the last 24 hours changed. */
  counts: NextechCountsSchema,
  /** Open items of the review queue. */
  review_count: v.number(),
  /** Service codes of synced bills without a catalogue item. */
  unmapped_count: v.number(),
  /** The run going on now, if any. */
  running_run_id: v.nullable(v.number()),
})
export type NextechSyncHealth = v.InferOutput<typeof NextechSyncHealthSchema>

/**
 * The Nextech connection as Settings → Integrations shows it (`GET
 * /practice/integrations/nextech`): whether the practice uses Nextech and gave its four fields,
 * how the last call to Nextech went, in words. The credentials themselves are never answered.
 */
export const NextechStatusSchema = v.object({
  /** The practice chose Nextech as its health record (the EHR plan). */
  chosen: v.boolean(),
  /** All four fields (client ID, username, password, practice ID) are stored. */
  configured: v.boolean(),
  /** The last call to Nextech worked. */
  connected: v.boolean(),
  /** `untested` until the first call; then `connected` or `failing`. */
  status: v.picklist(['untested', 'connected', 'failing']),
  /** The practice ID Nextech knows the practice by (`nx-practice-id`), when given. */
  practice_id: v.nullable(v.string()),
  /** When Glow last called Nextech for this practice (ISO instant). */
  last_checked_at: v.nullable(v.string()),
  /** Since when the connection has worked without a failure (ISO instant). */
  connected_since: v.nullable(v.string()),
  /** The last failure, in words; empty while connected. */
  errors: v.array(v.string()),
  /** True where the built-in Nextech sandbox answers instead of Nextech (never in production). */
  sandbox: v.boolean(),
  /** The sync's health: last sync, lag, counts, review and unmapped items. */
  sync: NextechSyncHealthSchema,
})
export type NextechStatus = v.InferOutput<typeof NextechStatusSchema>

/** The answer of "Test connection": whether it worked, and the sentence to show. */
export const NextechTestAnswerSchema = v.object({
  ok: v.boolean(),
  message: v.string(),
})
export type NextechTestAnswer = v.InferOutput<typeof NextechTestAnswerSchema>

/** What "Test connection" says when there is nothing to test yet. */
export const NEXTECH_SETUP_MESSAGES = {
  notChosen:
    'This practice does not use Nextech. Choose Nextech as the health record in Practice details (the EHR plan) to connect it.',
  incomplete:
    'Enter the Nextech client ID, username, password and practice ID in Practice details first.',
} as const

/**
 * The API user of the built-in Nextech sandbox (outside production; server/nextech/sandbox.ts):
 * what a tester enters in Practice details to connect to it. Never Nextech's.
 */
export const NEXTECH_SANDBOX_LOGIN = {
  client_id: 'glow-sandbox-client',
  username: 'glow.api@demo-clinic.nextech-api.com',
  password: 'SandboxPass123!',
  nx_practice_id: '1001',
} as const

/** A sync run (`POST …/sync` answers its id; `GET …/runs/{id}` follows it). */
export const NextechRunSchema = v.object({
  id: v.number(),
  status: v.picklist(['running', 'done', 'failed']),
  trigger: v.picklist(['manual', 'schedule', 'connect']),
  counts: NextechCountsSchema,
  /** Requests per Nextech endpoint (`token`, `Patient`, `Appointment`, `Claim`), 429s included. */
  requests: v.record(v.string(), v.number()),
  /** Why it failed, in words. */
  error: v.nullable(v.string()),
  started_at: v.string(),
  finished_at: v.nullable(v.string()),
})
export type NextechRun = v.InferOutput<typeof NextechRunSchema>

/** `POST …/sync`: the run started (or the one already going). */
export const NextechRunStartedSchema = v.object({ run_id: v.number() })

/** A patient the review queue offers as a match. */
export const NextechCandidateSchema = v.object({
  id: v.number(),
  first_name: v.string(),
  last_name: v.string(),
  email: v.nullable(v.string()),
  phone: v.nullable(v.string()),
})

/** One item of the review queue: what the sync would not guess. */
export const NextechReviewItemSchema = v.object({
  id: v.number(),
  /**
   * `patient`: a Nextech patient matching several Glow patients, or one whose name disagrees
   * (actions link, create, ignore); `reversal`: a void whose points were already spent; `ceiling`:
   * a line earning more than the practice's most points per line (actions award, ignore).
   */
  kind: v.picklist(['patient', 'reversal', 'ceiling']),
  /** What happened, in words. */
  message: v.string(),
  /** The Nextech patient: name and contact as Nextech has them. */
  nextech_patient: v.nullable(
    v.object({
      id: v.string(),
      first_name: v.string(),
      last_name: v.string(),
      email: v.nullable(v.string()),
      phone: v.nullable(v.string()),
    }),
  ),
  /** Glow patients it could be (kind `patient`), or the patient concerned. */
  candidates: v.array(NextechCandidateSchema),
  /** The bill and line (kinds `reversal` and `ceiling`). */
  bill: v.nullable(
    v.object({ claim_id: v.string(), text: v.string(), points: v.number(), net_cents: v.number() }),
  ),
  created_at: v.string(),
})
export type NextechReviewItem = v.InferOutput<typeof NextechReviewItemSchema>

export const NextechReviewPageSchema = v.object({ items: v.array(NextechReviewItemSchema) })

/** `POST …/review/{id}`: how a person resolves an item. */
export const NextechReviewActionSchema = v.variant('action', [
  v.object({
    action: v.literal('link'),
    patient_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2_147_483_647)),
  }),
  v.object({ action: v.literal('create') }),
  v.object({ action: v.literal('ignore') }),
  v.object({ action: v.literal('award') }),
])
export type NextechReviewAction = v.InferOutput<typeof NextechReviewActionSchema>

/** A service code of synced bills and the catalogue item it maps to, if any. */
export const NextechServiceCodeSchema = v.object({
  code: v.string(),
  /** The service's text as the last bill wrote it. */
  text: v.string(),
  /** Bill lines with this code, and how many earned nothing because it was unmapped. */
  lines: v.number(),
  mapped_to: v.nullable(
    v.object({ kind: v.picklist(['procedure', 'product']), id: v.number(), name: v.string() }),
  ),
})
export type NextechServiceCode = v.InferOutput<typeof NextechServiceCodeSchema>

export const NextechUnmappedPageSchema = v.object({ codes: v.array(NextechServiceCodeSchema) })

/** `PUT …/unmapped/{code}`: the catalogue item, and whether bills already synced follow. */
export const NextechCodeMappingSchema = v.object({
  catalogue_item_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2_147_483_647)),
  kind: v.optional(v.picklist(['procedure', 'product']), 'procedure'),
  /** Re-price the lines already synced with this code (points awarded or taken back). */
  apply_to_synced: v.optional(v.boolean(), false),
})
export type NextechCodeMapping = v.InferOutput<typeof NextechCodeMappingSchema>

/** The sync's sentences, as the ledger, the review queue and Settings show them. */
export const NEXTECH_SYNC_MESSAGES = {
  notConnected: 'Nextech is not connected. Test the connection in Settings → Integrations first.',
  runNotFound: 'Sync run not found.',
  busy: 'Another server is starting a Nextech sync of this practice. Try again in a moment.',
  interrupted: 'The server stopped during this sync; the next one went on from where it stopped.',
  reviewNotFound: 'Review item not found, or already resolved.',
  wrongAction: (kind: string) => `This review item (${kind}) cannot be resolved that way.`,
  patientNotFound: 'Patient not found.',
  itemNotFound: 'Catalogue item not found.',
  codeNotFound: 'No synced bill has this service code.',
  several: (count: number) =>
    `This Nextech patient matches ${count} patients here by e-mail or phone. Choose the one it is, or create a new patient.`,
  nameDisagrees: (name: string, glowName: string) =>
    `This Nextech patient (${name}) has the e-mail or phone of ${glowName}, but another name. Link them if they are the same person.`,
  ceiling: (points: number, ceiling: number) =>
    `This bill line would earn ${points.toLocaleString('en-US')} points, more than the ${ceiling.toLocaleString('en-US')} a line may earn without approval.`,
  earnReason: (claimId: string, text: string) => `Nextech bill ${claimId}, ${text}`,
  referralReason: (referred: string) =>
    `Referred ${referred}, whose first bill from Nextech earned points`,
  voidReason: (claimId: string) => `Nextech bill ${claimId} voided`,
  beforeAwardDay: (day: string) => `Billed before ${day}, the day points from Nextech started.`,
  quote: 'A quote earns nothing.',
  cancelledUnseen: 'Voided in Nextech before it earned anything.',
  unmapped: 'The service code is not mapped; points follow the price.',
  failedForAnHour: 'Nextech sync has been failing for an hour',
} as const

/** `PUT /practice/integrations/nextech`: the four fields; the password kept when omitted. */
export const NextechCredentialsInputSchema = v.object({
  client_id: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'Please enter the client ID.'),
    v.maxLength(200),
  ),
  username: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'Please enter the username.'),
    v.maxLength(200),
  ),
  password: v.optional(
    v.pipe(v.string(), v.minLength(1, 'Please enter the password.'), v.maxLength(200)),
  ),
  nx_practice_id: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'Please enter the practice ID.'),
    v.maxLength(50),
  ),
})
export type NextechCredentialsInput = v.InferOutput<typeof NextechCredentialsInputSchema>

/** `POST …/backfill`: the first day whose bills earn; `preview` changes nothing. */
export const NextechBackfillInputSchema = v.object({
  since: v.pipe(v.string(), v.isoDate('since must be a calendar date written YYYY-MM-DD.')),
  preview: v.optional(v.boolean(), false),
})
export type NextechBackfillInput = v.InferOutput<typeof NextechBackfillInputSchema>

/** What a backfill would earn (preview) or earned. */
export const NextechBackfillSchema = v.object({
  since: v.string(),
  /** The first day bills earned before this backfill. */
  award_from: v.nullable(v.string()),
  lines: v.number(),
  bills: v.number(),
  patients: v.number(),
  points: v.number(),
  applied: v.boolean(),
})
export type NextechBackfill = v.InferOutput<typeof NextechBackfillSchema>

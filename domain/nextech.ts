import * as v from 'valibot'

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

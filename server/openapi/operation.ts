import type { MiddlewareHandler } from 'hono'
import type * as v from 'valibot'
import type { JsonSchemaObject } from './schemas.ts'

/** An answer of an operation: its meaning, and its JSON body or its `text/plain` texts. */
export type AnswerDoc =
  | string
  | { description: string; json: v.GenericSchema; array?: true }
  | { description: string; text: readonly string[] }
  | { description: string; media: readonly string[] }

/** A path or query parameter that is not a row id (ids come from the routes' `idParams`). */
export type ParameterDoc = { description: string; schema: JsonSchemaObject; required?: boolean }

/**
 * The `page` (from 1) and `pageSize` (1 to 100, default 25) query parameters of a paged list;
 * `items` names what a page holds, as the start of a sentence ("Entries").
 */
export function pageQueryDoc(items: string): Record<string, ParameterDoc> {
  return {
    page: {
      description: 'Page number, from 1.',
      schema: { type: 'string', pattern: '^\\d{1,6}$' },
    },
    pageSize: {
      description: `${items} per page, 1 to 100 (default 25).`,
      schema: { type: 'string', pattern: '^\\d{1,3}$' },
    },
  }
}

/** The groups of the reference, in its order; an operation's `tag` must be one of them. */
export const TAGS = [
  { name: 'Authentication', description: 'Sign in, sign out and password reset.' },
  { name: 'Sign-up', description: 'The calls of the four-step sign-up wizard, all public.' },
  { name: 'Personnel', description: 'Staff, invitations and registration from an invitation.' },
  { name: 'Patients', description: "The practice's patients, their promotions and activity." },
  {
    name: 'Points',
    description: "The points ledger: a patient's entries, adjustments and reversals.",
  },
  {
    name: 'Promotions',
    description: "The practice's offers: their life, their funnel, claims and redemptions.",
  },
  { name: 'Appointments', description: "The practice's appointments." },
  { name: 'Catalogue', description: "The practice's procedures and products." },
  { name: 'Files', description: 'Uploaded files.' },
  {
    name: 'Settings',
    description: "The practice's details, programme rules, logo and subscription.",
  },
  { name: 'Visits', description: 'The front desk: visits, their points, redemptions and undo.' },
  {
    name: 'Memberships',
    description: 'Plans, enrolment, renewals, dunning and changes; the payment webhook.',
  },
  {
    name: 'Integrations',
    description: "The practice's health record (Nextech): the connection and its test.",
  },
  {
    name: 'Reports',
    description:
      'The dashboard and its worklist, the points liability, the memberships report, and CSV exports (money for Managers and Admins only).',
  },
  {
    name: 'Wallet',
    description:
      "The patient's wallet: sign-in by a code sent by e-mail or SMS, and the patient's own points, offers, consent and membership with a patient session.",
  },
  { name: 'Operations', description: 'Health and the development outbox.' },
  { name: 'Reference', description: 'This document and its interactive reference.' },
] as const satisfies readonly { name: string; description: string }[]

export type TagName = (typeof TAGS)[number]['name']

/**
 * What the OpenAPI document says of one route beyond what its validators tell: the words, who may
 * call it, and every status it can answer. The body and the id parameters are read from the
 * route's own validators (server/http/validate.ts); the answers' schemas are the domain's.
 *
 * Statuses every route shares are added by the document itself: 400 for a body or id the
 * validators refuse, 401 for a protected route, 403 for a role the route's declared permission
 * leaves out (server/auth/permissions.ts) and for an unsafe call whose XSRF pair does not match,
 * 413 for an unsafe call's body over the limit, 415 for a body that is not JSON and 500.
 */
export type OperationDoc = {
  summary: string
  description: string
  tag: TagName
  /** Callable without a session. */
  public?: true
  /**
   * Opened by a patient session of the wallet (`Authorization: Bearer gwp_…`), never a staff
   * token: published with the `patient` scheme instead of the staff `bearer` one.
   */
  patient?: true
  path?: Record<string, ParameterDoc>
  query?: Record<string, ParameterDoc> | v.GenericSchema
  /** The body as published, when the validator's schema rewrites it first (register). */
  body?: v.GenericSchema
  /** A `multipart/form-data` body (an upload), as the JSON Schema of its form fields. */
  multipart?: JsonSchemaObject
  responses: Record<number, AnswerDoc>
}

/** A 429 answer of a rate-limited call. */
export const TOO_MANY =
  'Too many attempts from this client or for this account; `details.retryAfterSeconds` says when to try again.'
/** A 404 for an id of another practice or of no record. */
export const OTHER_PRACTICE =
  "No record has this id in your practice (another practice's record answers the same, so ids cannot be counted)."

/** A path parameter that is a random token. */
export const tokenParam = (description: string): ParameterDoc => ({
  description,
  schema: { type: 'string', maxLength: 512 },
})

/** A 409 of the catalogue when an active item already has the name. */
export const NAME_TAKEN =
  'An active item of the practice already has this name, case and surrounding spaces aside; the message names it and `details` carries `field: "name"` and `existing_id`.'

const OPERATION_DOC = Symbol.for('glow.operation-doc')

/**
 * Declares what the OpenAPI document says of a route, on the route itself: the first handler of
 * `.get(path, operation({...}), …, handler)`. It passes the request on unchanged; the document
 * (server/openapi/document.ts) reads the declaration from the app's route list, as it reads the
 * request body and ids from the route's own validators (server/http/validate.ts). A route without
 * one fails server/openapi/coverage.test.ts.
 */
export function operation(doc: OperationDoc): MiddlewareHandler {
  const middleware: MiddlewareHandler = (_c, next) => next()
  Object.defineProperty(middleware, OPERATION_DOC, { value: doc })
  return middleware
}

/** What a middleware made by {@link operation} declares, if it is one. */
export function operationDoc(middleware: unknown): OperationDoc | undefined {
  if (typeof middleware !== 'function') return undefined
  return (middleware as { [OPERATION_DOC]?: OperationDoc })[OPERATION_DOC]
}

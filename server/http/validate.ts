import type { Context } from 'hono'
import { validator } from 'hono/validator'
import * as v from 'valibot'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { ApiError, badRequest } from './errors.ts'

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * What a validator middleware checks, attached to the middleware itself so that the OpenAPI
 * document (server/openapi/document.ts) reads each route's request body and path ids from the
 * validators the route really runs, never from a second copy.
 */
export type ValidatorDoc = { json: v.GenericSchema } | { ids: readonly string[] }

const VALIDATOR_DOC = Symbol.for('glow.validator-doc')

function documented<M extends object>(middleware: M, doc: ValidatorDoc): M {
  Object.defineProperty(middleware, VALIDATOR_DOC, { value: doc })
  return middleware
}

/** What a middleware made by {@link jsonBody} or {@link idParams} validates, if it is one. */
export function validatorDoc(middleware: unknown): ValidatorDoc | undefined {
  if (typeof middleware !== 'function') return undefined
  return (middleware as { [VALIDATOR_DOC]?: ValidatorDoc })[VALIDATOR_DOC]
}

/** Turns valibot issues into `{ issues: [{ path, message }] }` and a readable first message. */
function describeIssues(issues: readonly v.BaseIssue<unknown>[]) {
  const list = issues.map((issue) => ({
    path: v.getDotPath(issue) ?? '',
    message: issue.message,
  }))
  const first = list[0]
  const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : ''
  return { message: message || 'The request is not valid.', details: { issues: list } }
}

/** Parses `value` with `schema` or throws a 400 ApiError naming the first problem. */
export function parseOr400<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value)
  if (result.success) return result.output
  const { message, details } = describeIssues(result.issues)
  throw badRequest(message, details)
}

/**
 * Validates a JSON body with a valibot schema: 415 when the body is not JSON, 400 for malformed
 * JSON (thrown by Hono, shaped by the app's error handler) and for a body the schema refuses.
 * The handler reads the typed value with `c.req.valid('json')`.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S) {
  const middleware = validator('json', (value, c: Context): v.InferOutput<S> => {
    const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]?.trim() ?? ''
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ApiError(
        415,
        API_ERROR_NAMES.unsupportedMediaType,
        'The request body must be JSON (Content-Type: application/json).',
      )
    }
    if (hasNulCharacter(value)) {
      throw badRequest('The request contains a NUL character (\\u0000), which no field accepts.')
    }
    return parseOr400(schema, value)
  })
  return documented(middleware, { json: schema })
}

/**
 * Whether a parsed JSON value holds U+0000 in any string or key. PostgreSQL text cannot store it
 * and would answer with an error of its own, so it is refused here as the caller's 400.
 */
export function hasNulCharacter(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (typeof value !== 'object' || value === null || depth > 64) return false
  if (Array.isArray(value)) return value.some((item) => hasNulCharacter(item, depth + 1))
  return Object.entries(value).some(
    ([key, item]) => key.includes('\u0000') || hasNulCharacter(item, depth + 1),
  )
}

/** The largest row id (a Postgres `integer`). */
export const MAX_INT4 = 2_147_483_647

/** A path or query value that must be a row id: a positive 32-bit integer written in digits. */
export function toId(raw: string | undefined, name: string): number {
  if (raw !== undefined && /^[1-9]\d{0,9}$/.test(raw)) {
    const value = Number(raw)
    if (value <= MAX_INT4) return value
  }
  throw badRequest(`${name} must be a positive whole number.`, { [name]: raw ?? null })
}

/**
 * Validates integer path parameters, so that `abc` answers 400 instead of reaching Postgres.
 * The handler reads them with `c.req.valid('param')`.
 */
export function idParams<const K extends string>(...names: K[]) {
  const middleware = validator('param', (params: Record<string, string>) => {
    const ids = {} as Record<K, number>
    for (const name of names) ids[name] = toId(params[name], name)
    return ids
  })
  return documented(middleware, { ids: names })
}

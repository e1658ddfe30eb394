import type * as v from 'valibot'
import * as apiAnswers from '#domain/api-answers.ts'
import * as apiError from '#domain/api-error.ts'
import { ApiErrorBodySchema } from '#domain/api-error.ts'
import * as auth from '#domain/auth.ts'
import * as patientImport from '#domain/patient-import.ts'
import { PERMISSION_MATRIX, PERMISSION_REFUSALS, ROLES } from '#domain/permissions.ts'
import * as personnel from '#domain/personnel.ts'
import * as plans from '#domain/plans.ts'
import * as practiceData from '#domain/practice-data.ts'
import * as resetPassword from '#domain/reset-password.ts'
import * as session from '#domain/session.ts'
import * as signUpApi from '#domain/sign-up/api.ts'
import * as uploads from '#domain/uploads.ts'
import { declaredAccess, type RouteAccess } from '#server/auth/permissions.ts'
import { MAX_INT4, validatorDoc } from '#server/http/validate.ts'
import {
  type AnswerDoc,
  type OperationDoc,
  operationDoc,
  type ParameterDoc,
  TAGS,
} from './operation.ts'
import { type JsonSchemaObject, SchemaCatalog, type SchemaModule } from './schemas.ts'

/** A route as Hono lists it in `app.routes`. */
export type RouteEntry = { method: string; path: string; handler: unknown }

/** An OpenAPI 3.1 document as plain data. */
export type OpenApiDocument = {
  openapi: '3.1.0'
  info: Record<string, unknown>
  servers: { url: string; description: string; 'x-internal': boolean }[]
  security: Record<string, string[]>[]
  tags: { name: string; description: string }[]
  paths: Record<string, Record<string, OpenApiOperation>>
  components: {
    schemas: Record<string, JsonSchemaObject>
    securitySchemes: Record<string, unknown>
  }
}

/** One operation of the document. */
export type OpenApiOperation = {
  operationId: string
  summary: string
  description: string
  tags: string[]
  security?: Record<string, string[]>[]
  parameters?: Record<string, unknown>[]
  requestBody?: { required: true; content: Record<string, { schema: JsonSchemaObject }> }
  responses: Record<string, { description: string; content?: Record<string, unknown> }>
  /** What a signed-in caller needs: a permission of domain/permissions.ts, or `staff` (any role). */
  'x-permission'?: string
}

/** Who may call a route that declares `access`, in a sentence for the reference. */
function whoMayCall(access: RouteAccess): string {
  if (access === 'staff') return 'Any signed-in member of the practice, whatever their role.'
  const roles = PERMISSION_MATRIX[access]
  return `Needs the permission \`${access}\`, which ${roles.length === ROLES.length ? 'every role' : roles.join(' and ')} ${roles.length === 1 ? 'holds' : 'hold'}; anyone else gets 403 "${PERMISSION_REFUSALS[access]}"`
}

/** The modules whose exported schemas the document names and describes by their TSDoc. */
const SCHEMA_MODULES: SchemaModule[] = [
  { exports: apiError, file: new URL('../../domain/api-error.ts', import.meta.url) },
  { exports: apiAnswers, file: new URL('../../domain/api-answers.ts', import.meta.url) },
  { exports: session, file: new URL('../../domain/session.ts', import.meta.url) },
  { exports: auth, file: new URL('../../domain/auth.ts', import.meta.url) },
  { exports: resetPassword, file: new URL('../../domain/reset-password.ts', import.meta.url) },
  { exports: plans, file: new URL('../../domain/plans.ts', import.meta.url) },
  { exports: practiceData, file: new URL('../../domain/practice-data.ts', import.meta.url) },
  { exports: personnel, file: new URL('../../domain/personnel.ts', import.meta.url) },
  { exports: patientImport, file: new URL('../../domain/patient-import.ts', import.meta.url) },
  { exports: signUpApi, file: new URL('../../domain/sign-up/api.ts', import.meta.url) },
  { exports: uploads, file: new URL('../../domain/uploads.ts', import.meta.url) },
]

/** What every error answer of a status means when the route says nothing more. */
const GENERIC_ERRORS: Record<number, string> = {
  400: 'The request is not valid: `error.details.issues` lists each refused field.',
  401: 'No valid session: the bearer token is missing, malformed, expired or ended.',
  403: 'Forbidden.',
  404: 'Not found.',
  409: 'The request conflicts with the current state.',
  413: 'The request body is larger than 100 KB.',
  415: 'The request body must be JSON (`Content-Type: application/json`).',
  429: 'Too many requests; `details.retryAfterSeconds` says when to try again.',
  500: 'An unexpected failure on the server; nothing about it is in the answer.',
  503: 'The server was busy with a conflicting change (another request held the same rows, and the retries ran out); nothing was changed. `Retry-After` says when to try again.',
}

const XSRF_NOTE =
  'A browser call whose `X-XSRF-TOKEN` header does not match its `XSRF-TOKEN` cookie is refused with 403.'

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The Hono handler behind a route entry (`app.route` may wrap a sub-app's handler). */
function innerHandler(handler: unknown): unknown {
  return (handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER ?? handler
}

/** `/api/users/:id` → `/api/users/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:(\w+)/g, '{$1}')
}

/** The names of a Hono path's parameters, in order. */
export function pathParameterNames(honoPath: string): string[] {
  return [...honoPath.matchAll(/:(\w+)/g)].map((match) => match[1] as string)
}

/** A concrete `/api` route with what its validators and its declaration say of it. */
type DocumentedRoute = {
  method: string
  path: string
  json?: v.GenericSchema
  ids: Set<string>
  access?: RouteAccess
  doc?: OperationDoc
}

/** Each concrete `/api` route once, with the request body and ids its validators check. */
export function documentedRoutes(routes: readonly RouteEntry[]) {
  const found = new Map<string, DocumentedRoute>()
  for (const route of routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/api/')) continue
    const key = `${route.method} ${route.path}`
    let entry = found.get(key)
    if (!entry) {
      entry = { method: route.method, path: route.path, ids: new Set() }
      found.set(key, entry)
    }
    entry.access ??= declaredAccess(innerHandler(route.handler))
    entry.doc ??= operationDoc(innerHandler(route.handler))
    const doc = validatorDoc(innerHandler(route.handler))
    if (doc && 'json' in doc) entry.json = doc.json
    if (doc && 'ids' in doc) for (const id of doc.ids) entry.ids.add(id)
  }
  return found
}

/**
 * Each documented route with the description declared on the route (`operation({...})`). Routes
 * without one are left out, which server/openapi/coverage.test.ts does not allow.
 */
function describedRoutes(routes: readonly RouteEntry[]) {
  const described: {
    key: string
    route: DocumentedRoute
    doc: OperationDoc
  }[] = []
  for (const [key, route] of documentedRoutes(routes)) {
    if (route.doc) described.push({ key, route, doc: route.doc })
  }
  return described
}

/** A success answer (2xx) of a route: a JSON body, fixed `text/plain` texts or other media. */
export type SuccessAnswer = Exclude<AnswerDoc, string>

/** What a client of the API needs to know of one route. */
export type RouteContract = {
  /** `METHOD /api/path` as Hono writes it, e.g. `GET /api/patients/:id`. */
  key: string
  /** The JSON request body as the document publishes it. */
  body?: v.GenericSchema
  /** Its success answers (2xx), by status. */
  success: SuccessAnswer[]
}

/**
 * The routes {@link buildOpenApiDocument} documents, each with the body and success answers the
 * document gives it, for the browser's typed contract (server/openapi/api-contract.ts).
 */
export function* routeContracts(routes: readonly RouteEntry[]): Generator<RouteContract> {
  for (const { key, route, doc } of describedRoutes(routes)) {
    const body = doc.body ?? route.json
    const success = Object.entries(doc.responses)
      .map(([status, answerDoc]) => ({ status: Number(status), answerDoc }))
      .filter(({ status }) => status >= 200 && status < 300)
      .sort((a, b) => a.status - b.status)
      .map(({ status, answerDoc }) => {
        if (typeof answerDoc === 'string') {
          throw new Error(`${key}: the success answer ${status} has no body described`)
        }
        return answerDoc
      })
    yield { key, ...(body ? { body } : {}), success }
  }
}

function operationId(summary: string): string {
  const words = summary
    .replace(/[^\w\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
  return words
    .map((word, i) =>
      i === 0 ? word.toLowerCase() : word[0]?.toUpperCase() + word.slice(1).toLowerCase(),
    )
    .join('')
}

function parameter(name: string, where: 'path' | 'query', doc: ParameterDoc) {
  return {
    name,
    in: where,
    required: where === 'path' ? true : (doc.required ?? false),
    description: doc.description,
    schema: doc.schema,
  }
}

function queryParameters(query: OperationDoc['query'], catalog: SchemaCatalog) {
  if (!query) return []
  if ('kind' in query && query.kind === 'schema') {
    return catalog.queryParameters(query as v.GenericSchema)
  }
  return Object.entries(query as Record<string, ParameterDoc>).map(([name, doc]) =>
    parameter(name, 'query', doc),
  )
}

function answer(doc: AnswerDoc, status: number, catalog: SchemaCatalog) {
  if (typeof doc === 'string') {
    return {
      description: doc,
      content: { 'application/json': { schema: catalog.response(ApiErrorBodySchema) } },
    }
  }
  if ('json' in doc) {
    const schema = catalog.response(doc.json)
    return {
      description: doc.description,
      content: {
        'application/json': { schema: doc.array ? { type: 'array', items: schema } : schema },
      },
    }
  }
  if ('text' in doc) {
    return {
      description: doc.description,
      content: { 'text/plain': { schema: { type: 'string', enum: [...doc.text] } } },
    }
  }
  const content: Record<string, unknown> = {}
  for (const media of doc.media) {
    content[media] = { schema: { type: media === 'application/json' ? 'object' : 'string' } }
  }
  if (status >= 400) throw new Error('An error answer must use the JSON error shape')
  return { description: doc.description, content }
}

/**
 * Builds the OpenAPI 3.1 document of the routes an app serves (`app.routes`): every route that
 * declares its description with `operation({...})`, with its path parameters, its request body (the schema of its
 * `jsonBody` validator), its answers (the domain's schemas, the error shape of domain/api-error.ts
 * for every 4xx and 5xx) and the bearer scheme on every route that needs a session. Routes without
 * a description are left out, which server/openapi/coverage.test.ts does not allow.
 */
export function buildOpenApiDocument(routes: readonly RouteEntry[]): OpenApiDocument {
  const catalog = new SchemaCatalog(SCHEMA_MODULES)
  const paths: OpenApiDocument['paths'] = {}
  for (const { route, doc } of describedRoutes(routes)) {
    const parameters = [
      ...pathParameterNames(route.path).map((name) =>
        route.ids.has(name)
          ? parameter(name, 'path', {
              description: `A row id: a positive whole number up to ${MAX_INT4}.`,
              schema: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_INT4 },
            })
          : parameter(
              name,
              'path',
              doc.path?.[name] ?? { description: '', schema: { type: 'string' } },
            ),
      ),
      ...queryParameters(doc.query, catalog),
    ]
    const body = doc.body ?? route.json
    const unsafe = UNSAFE.has(route.method)
    const statuses = new Map<number, AnswerDoc>()
    for (const [status, answerDoc] of Object.entries(doc.responses)) {
      statuses.set(Number(status), answerDoc)
    }
    const addError = (status: number, note?: string) => {
      const declared = statuses.get(status)
      if (declared === undefined) {
        statuses.set(status, note ?? GENERIC_ERRORS[status] ?? 'Error.')
      } else if (note && typeof declared === 'string') {
        statuses.set(status, `${declared} ${note}`)
      }
    }
    if (body || route.ids.size > 0 || parameters.length > 0) addError(400)
    if (!doc.public) addError(401)
    const refusal =
      route.access &&
      route.access !== 'staff' &&
      PERMISSION_MATRIX[route.access].length < ROLES.length
        ? PERMISSION_REFUSALS[route.access]
        : undefined
    if (refusal) addError(403, `A role without the permission: "${refusal}"`)
    if (unsafe) addError(403, XSRF_NOTE)
    if (unsafe) addError(413)
    if (body || doc.multipart) addError(415)
    addError(500)
    // Any call that reads or writes the database can meet another one's locks (server/db/retry.ts).
    addError(503, GENERIC_ERRORS[503])
    const responses: OpenApiOperation['responses'] = {}
    for (const status of [...statuses.keys()].sort((a, b) => a - b)) {
      responses[String(status)] = answer(statuses.get(status) as AnswerDoc, status, catalog)
    }
    const operation: OpenApiOperation = {
      operationId: operationId(doc.summary),
      summary: doc.summary,
      description: route.access
        ? `${doc.description}\n\n**Who may call it:** ${whoMayCall(route.access)}`
        : doc.description,
      tags: [doc.tag],
      ...(route.access ? { 'x-permission': route.access } : {}),
      ...(doc.public ? { security: [] } : doc.patient ? { security: [{ patient: [] }] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: catalog.request(body) } },
            },
          }
        : {}),
      ...(doc.multipart
        ? {
            requestBody: {
              required: true,
              content: { 'multipart/form-data': { schema: doc.multipart } },
            },
          }
        : {}),
      responses,
    }
    const path = openApiPath(route.path)
    paths[path] ??= {}
    ;(paths[path] as Record<string, OpenApiOperation>)[route.method.toLowerCase()] = operation
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Glow Rewards API',
      version: '0.1.0',
      description:
        'The JSON API of the Glow Rewards portal. Every error answers `{ "error": { "status", "name", "message", "details" } }`; the client shows `error.message`. Calls that need a session take `Authorization: Bearer <jwt>` from `POST /api/auth/local`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Glow Rewards' },
    },
    servers: [
      {
        url: '/',
        description:
          'The server that serves this document, local, staging or production alike: the API shares the origin of the portal.',
        'x-internal': false,
      },
    ],
    security: [{ bearer: [] }],
    tags: [...TAGS],
    paths,
    components: {
      schemas: catalog.components(),
      securitySchemes: {
        patient: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A patient session of the wallet: the `token` of `POST /api/wallet/{practiceId}/session` (an opaque `gwp_…` string, not a JWT), stored hashed on the server; it ends after 30 minutes without a call, 12 hours after sign-in, at logout, or when the practice archives the patient. It opens only `/api/wallet/me…` and `/api/wallet/logout`; a staff token is refused there, and it is refused everywhere else.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'The `jwt` of `POST /api/auth/local` (8 hours; 30 days with Remember me). Issued and checked as RFC8725 (JSON Web Token Best Current Practices) advises: one algorithm (HS256) pinned when verifying, a server-side secret, an expiry on every token, and tokens ended server-side on sign-out and password reset.',
        },
      },
    },
  }
}

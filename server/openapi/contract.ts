/**
 * Test support: holds API answers to the OpenAPI document (GET /api/openapi.json). The shared test
 * support (`TestApp.request`) runs every answer through {@link ApiContract.check}, so each API
 * suite also proves that the status is one the operation lists and that the body is valid against
 * the schema the document gives for it, with Ajv's JSON Schema 2020-12 validator.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { buildOpenApiDocument, type OpenApiDocument, type RouteEntry } from './document.ts'

/** The operation a request reached, by the document's path template. */
export type MatchedOperation = { method: string; template: string; params: Record<string, string> }

type Media = { schema?: unknown }

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** The document's operations, matched by method and path as the app's router would. */
export class ApiContract {
  readonly document: OpenApiDocument
  readonly #ajv: Ajv2020
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #templates: { template: string; pattern: RegExp; names: string[]; statics: number }[]

  constructor(document: OpenApiDocument) {
    this.document = document
    this.#ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(this.#ajv)
    this.#ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) })
    this.#ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) })
    this.#ajv.addSchema(document as object, 'openapi.json')
    this.#templates = Object.keys(document.paths).map((template) => {
      const names: string[] = []
      const source = template
        .split('/')
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment)
          if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          names.push(param[1] as string)
          return '([^/]+)'
        })
        .join('/')
      const statics = template.split('/').filter((s) => s && !s.startsWith('{')).length
      return { template, pattern: new RegExp(`^${source}$`), names, statics }
    })
    // Static segments first, as Hono prefers `/patients/all/by-practice/{id}` to `/patients/{id}`.
    this.#templates.sort((a, b) => b.statics - a.statics)
  }

  /** The operation `method path` reaches, if the document has one. */
  match(method: string, path: string): MatchedOperation | undefined {
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase()
    for (const { template, pattern, names } of this.#templates) {
      const found = pattern.exec(path)
      if (!found || !this.document.paths[template]?.[verb]) continue
      const params = Object.fromEntries(names.map((name, i) => [name, found[i + 1] ?? '']))
      return { method: verb, template, params }
    }
    return undefined
  }

  /**
   * The problems of an answer to `method path` against the document, none when it conforms: a
   * status the operation does not list, a media type it does not name, or a body its schema
   * refuses. A path no operation has may only answer the JSON 404 of an unknown route.
   */
  async check(method: string, path: string, response: Response): Promise<string[]> {
    if (!path.startsWith('/api/')) return []
    const operation = this.match(method, path)
    const media = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
    const where = `${method} ${path} → ${response.status}`
    if (!operation) {
      if (response.status === 404 && media === 'application/json') {
        return this.#validate('#/components/schemas/ApiErrorBody', await response.text(), where)
      }
      return [`${where}: no operation of the document answers this request`]
    }
    const { template } = operation
    const answers = this.document.paths[template]?.[operation.method]?.responses ?? {}
    const answer = answers[String(response.status)]
    if (!answer) {
      return [
        `${where}: status ${response.status} is not listed for ${operation.method.toUpperCase()} ${template} (listed: ${Object.keys(answers).join(', ')})`,
      ]
    }
    if (method === 'HEAD' || response.status === 204) return []
    const content = (answer.content ?? {}) as Record<string, Media>
    if (!content[media]) {
      return [
        `${where}: Content-Type ${media || '(none)'} is not one of ${Object.keys(content).join(', ')}`,
      ]
    }
    if (media !== 'application/json' && media !== 'text/plain') return []
    const pointer = [
      'paths',
      template,
      operation.method,
      'responses',
      String(response.status),
      'content',
      media,
      'schema',
    ]
      .map(escapePointer)
      .join('/')
    const text = await response.text()
    return this.#validate(`#/${pointer}`, text, where, media === 'text/plain')
  }

  /** Whether a request body is valid against the JSON body schema of an operation. */
  acceptsBody(template: string, method: string, body: unknown): boolean {
    const pointer = [
      'paths',
      template,
      method,
      'requestBody',
      'content',
      'application/json',
      'schema',
    ]
      .map(escapePointer)
      .join('/')
    return this.#compiled(`#/${pointer}`)(body) === true
  }

  #compiled(ref: string): ValidateFunction {
    let validate = this.#validators.get(ref)
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `openapi.json${ref}` })
      this.#validators.set(ref, validate)
    }
    return validate
  }

  #validate(ref: string, text: string, where: string, plain = false): string[] {
    const validate = this.#compiled(ref)
    let body: unknown = text
    if (!plain) {
      try {
        body = JSON.parse(text)
      } catch {
        return [`${where}: the body is not JSON: ${text.slice(0, 200)}`]
      }
    }
    if (validate(body)) return []
    return (validate.errors ?? []).map(
      (error) =>
        `${where}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)} (${JSON.stringify(body).slice(0, 300)})`,
    )
  }
}

const contracts = new Map<string, ApiContract>()

/** The contract of an app's routes (one per distinct route list, built once). */
export function contractFor(routes: readonly RouteEntry[]): ApiContract {
  const key = routes.map((route) => `${route.method} ${route.path}`).join('\n')
  let contract = contracts.get(key)
  if (!contract) {
    contract = new ApiContract(buildOpenApiDocument(routes))
    contracts.set(key, contract)
  }
  return contract
}

/**
 * Throws when an answer breaks the contract, naming each problem; reads a clone, so the caller
 * still reads the body.
 */
export async function assertConforms(
  routes: readonly RouteEntry[],
  method: string,
  path: string,
  response: Response,
): Promise<void> {
  const problems = await contractFor(routes).check(method, path, response.clone())
  if (problems.length > 0) {
    throw new Error(`The answer breaks the OpenAPI contract:\n- ${problems.join('\n- ')}`)
  }
}

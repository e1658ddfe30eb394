import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema'
import type * as v from 'valibot'

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchemaObject = Record<string, unknown>

/**
 * Actions that change a value rather than constrain it: the document states the rules that apply
 * after them, so they are left out without a word.
 */
const TRANSFORMING_ACTIONS = new Set([
  'trim',
  'trim_start',
  'trim_end',
  'to_lower_case',
  'to_upper_case',
  'transform',
  'brand',
  'readonly',
])

/** Valibot rules written as code (`v.check`, `v.partialCheck`): the document states them in prose, by their message. */
export const CODE_RULES = new Set(['check', 'partial_check', 'check_items', 'custom'])

function appendDescription(schema: JsonSchema, text: string): JsonSchema {
  const before = typeof schema.description === 'string' ? `${schema.description} ` : ''
  return { ...schema, description: `${before}${text}` }
}

/**
 * How a valibot schema becomes JSON Schema here: draft 2020-12; transformations skipped; a rule
 * written as code adds its message to the description (the only form JSON Schema can give it);
 * in an answer, a `v.object` is closed (`additionalProperties: false`, so a leaked column fails
 * the response checks), while a request body's `v.object` stays open, as valibot ignores unknown
 * keys of a body.
 */
function conversionConfig(
  mode: 'request' | 'response',
  named?: { names: Map<v.GenericSchema, string>; root: v.GenericSchema; used: Set<string> },
) {
  return {
    target: 'draft-2020-12',
    errorMode: 'throw',
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (TRANSFORMING_ACTIONS.has(valibotAction.type)) return jsonSchema
      if (CODE_RULES.has(valibotAction.type)) {
        const message = (valibotAction as { message?: unknown }).message
        return typeof message === 'string' && message !== ''
          ? appendDescription(jsonSchema, `Rule: "${message}".`)
          : jsonSchema
      }
      return undefined
    },
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      const name = named?.names.get(valibotSchema as v.GenericSchema)
      if (named && name && valibotSchema !== named.root) {
        named.used.add(name)
        return { $ref: `#/components/schemas/${name}` }
      }
      if (mode === 'response' && valibotSchema.type === 'object') {
        return { ...jsonSchema, additionalProperties: false }
      }
      if (valibotSchema.type === 'loose_object')
        return { ...jsonSchema, additionalProperties: true }
      return undefined
    },
  } satisfies ConversionConfig
}

function invert(refs: Map<v.GenericSchema, string>): [string, v.GenericSchema][] {
  return [...refs].map(([schema, name]) => [name, schema])
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 }

/** Names the size of every integer: `int32` when its bounds fit, else `int64`. */
function withIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) withIntegerFormats(item)
    return
  }
  if (typeof node !== 'object' || node === null) return
  const schema = node as JsonSchemaObject
  if (schema.type === 'integer' && schema.format === undefined) {
    const fits =
      typeof schema.minimum === 'number' &&
      typeof schema.maximum === 'number' &&
      schema.minimum >= INT32.min &&
      schema.maximum <= INT32.max
    schema.format = fits ? 'int32' : 'int64'
  }
  for (const value of Object.values(schema)) withIntegerFormats(value)
}

/**
 * Drops the `$schema` and `$defs` the converter adds at the top (components hold the named
 * schemas) and names integer formats.
 */
function bare(schema: JsonSchema): JsonSchemaObject {
  const { $schema: _schema, $defs: _defs, ...rest } = schema as JsonSchemaObject
  withIntegerFormats(rest)
  return rest
}

/**
 * The TSDoc block before each `export const Name` of a source file, as plain text (tags and
 * `{@link}` markup reduced to words). Read from the file the schema is exported from, so the
 * document's descriptions are the comments the code already carries.
 */
export function exportedTsDoc(source: string): Map<string, string> {
  const docs = new Map<string, string>()
  const pattern = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*export\s+(?:const|function)\s+(\w+)/g
  for (const match of source.matchAll(pattern)) {
    const [, body = '', name = ''] = match
    const text = body
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .join(' ')
      .replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`')
      .replace(/\s+/g, ' ')
      .trim()
    if (text) docs.set(name, text)
  }
  return docs
}

/** A module whose exported valibot schemas the document may name, and its source file. */
export type SchemaModule = { exports: Record<string, unknown>; file: URL }

function isValibotSchema(value: unknown): value is v.GenericSchema {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'schema' &&
    typeof (value as { '~run'?: unknown })['~run'] === 'function'
  )
}

/**
 * Converts the API's valibot schemas to the document's JSON Schemas. Schemas exported from the
 * given modules are known by their export name (without the `Schema` suffix) and described by
 * their TSDoc; an answer names them as `#/components/schemas/Name`.
 */
export class SchemaCatalog {
  /** The exported schemas, by object, with their component name. */
  readonly #names = new Map<v.GenericSchema, string>()
  readonly #descriptions = new Map<v.GenericSchema, string>()
  /** The components the answers used so far. */
  readonly #used = new Set<string>()

  constructor(modules: SchemaModule[]) {
    for (const { exports, file } of modules) {
      let docs: Map<string, string>
      try {
        docs = exportedTsDoc(readFileSync(fileURLToPath(file), 'utf8'))
      } catch {
        docs = new Map()
      }
      for (const [exportName, value] of Object.entries(exports)) {
        if (!isValibotSchema(value) || this.#names.has(value)) continue
        this.#names.set(value, exportName.replace(/Schema$/, ''))
        const doc = docs.get(exportName)
        if (doc) this.#descriptions.set(value, doc)
      }
    }
  }

  /** The TSDoc of an exported schema, if it has one. */
  description(schema: v.GenericSchema): string | undefined {
    return this.#descriptions.get(schema)
  }

  /** A request body's JSON Schema, inline, with the schema's TSDoc as its description. */
  request(schema: v.GenericSchema): JsonSchemaObject {
    const converted = bare(toJsonSchema(schema, conversionConfig('request')))
    return this.#described(schema, converted)
  }

  /** The schema's TSDoc before the rules its conversion described. */
  #described(schema: v.GenericSchema, converted: JsonSchemaObject): JsonSchemaObject {
    const doc = this.description(schema)
    if (!doc) return converted
    const rules = typeof converted.description === 'string' ? ` ${converted.description}` : ''
    return { ...converted, description: `${doc}${rules}` }
  }

  /**
   * The query parameters of an object schema of strings. Converted as the input they are (query
   * values are text; the schema turns them into numbers after its checks).
   */
  queryParameters(schema: v.GenericSchema) {
    const converted = toJsonSchema(schema, {
      ...conversionConfig('request'),
      typeMode: 'input',
    }) as JsonSchemaObject & { properties?: Record<string, JsonSchemaObject>; required?: string[] }
    withIntegerFormats(converted)
    const doc = this.description(schema)
    return Object.entries(converted.properties ?? {}).map(([name, property]) => ({
      name,
      in: 'query' as const,
      required: converted.required?.includes(name) ?? false,
      description: doc ? `${doc} (\`${name}\`)` : name,
      schema: property,
    }))
  }

  /** An answer's JSON Schema: a `$ref` to its component when the schema is exported. */
  response(schema: v.GenericSchema): JsonSchemaObject {
    const name = this.#names.get(schema)
    if (name) {
      this.#used.add(name)
      return { $ref: `#/components/schemas/${name}` }
    }
    const root = schema
    return bare(toJsonSchema(schema, conversionConfig('response', this.#named(root))))
  }

  /** Every component an answer named, converted, described by its TSDoc. */
  components(): Record<string, JsonSchemaObject> {
    const out: Record<string, JsonSchemaObject> = {}
    const pending = [...this.#used]
    const byName = new Map(invert(this.#names))
    while (pending.length > 0) {
      const name = pending.pop() as string
      if (out[name]) continue
      const schema = byName.get(name)
      if (!schema) continue
      const before = new Set(this.#used)
      const converted = toJsonSchema(schema, conversionConfig('response', this.#named(schema)))
      for (const ref of this.#used) if (!before.has(ref)) pending.push(ref)
      out[name] = this.#described(schema, bare(converted))
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
  }

  #named(root: v.GenericSchema) {
    return { names: this.#names, root, used: this.#used }
  }
}

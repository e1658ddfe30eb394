/**
 * Contract fuzz: for every operation of the OpenAPI document, request bodies (and path and query
 * values) generated from the document's own schemas with fast-check are sent to the real app
 * in-process (through `TestApp.request`, so every answer is also held to the document):
 * - a body the document accepts never gets a 400 for its shape: when the route's valibot schema
 *   refuses it, every refusal must be a rule the document can only state in prose (`v.check`);
 * - a body the document refuses (a field missing or of the wrong type, a string one past its
 *   length, not an object at all) gets a 4xx the operation lists;
 * - nothing gets a 5xx.
 * The hand-written corpus of hostile strings stays in server/security/bad-input.security.test.ts.
 */
import fc from 'fast-check'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, httpBackends, mintToken, type TestApp } from '#server/testing/test-app.ts'
import { contractFor } from './contract.ts'
import { documentedRoutes, type OpenApiDocument, openApiPath } from './document.ts'
import { CODE_RULES, type JsonSchemaObject } from './schemas.ts'

/** Bodies of each kind per operation: enough to vary every field, bounded to stay quick. */
const RUNS = 12

type Schema = JsonSchemaObject

/** A value the schema accepts: a generator read off the JSON Schema of the document. */
function valid(schema: Schema, doc: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '')
    return valid(doc.components.schemas[name] as Schema, doc, depth)
  }
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (choices) return fc.oneof(...choices.map((choice) => valid(choice, doc, depth + 1)))
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      const required = (schema.required ?? []) as string[]
      const record = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([key, property]) => [
            key,
            valid(property, doc, depth + 1),
          ]),
        ),
        { requiredKeys: required },
      )
      // An open object (a request body: valibot ignores unknown keys) may carry extra fields.
      if (schema.additionalProperties === false) return record
      return fc
        .tuple(
          record,
          fc.option(
            fc.dictionary(
              fc.constantFrom('extra', 'x_unknown', 'zz'),
              fc.jsonValue({ maxDepth: 1 }),
            ),
            { nil: undefined },
          ),
        )
        .map(([body, extra]) => ({ ...extra, ...(body as object) }))
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema
      return fc.array(valid(items, doc, depth + 1), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, 3),
      })
    }
    case 'string':
      return validString(schema)
    case 'integer':
      // Both bounds given: every valid value is a draw of fc.integer. Filtering 53-bit integers
      // down to a small range spins for ever inside an array, where fast-check stops biasing
      // towards small values (a visit's `items[].quantity`).
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return fc.integer({ min: schema.minimum, max: schema.maximum })
      }
      // No bound in the document means any whole number JSON can carry, not only 32-bit ones.
      return fc.oneof(
        fc.integer({
          min: (schema.minimum as number | undefined) ?? -(2 ** 31),
          max: (schema.maximum as number | undefined) ?? 2 ** 31 - 1,
        }),
        fc
          .maxSafeInteger()
          .filter(
            (n) =>
              n >= ((schema.minimum as number | undefined) ?? Number.MIN_SAFE_INTEGER) &&
              n <= ((schema.maximum as number | undefined) ?? Number.MAX_SAFE_INTEGER),
          ),
      )
    case 'number':
      return fc.double({
        min: (schema.minimum as number | undefined) ?? -1e9,
        max: (schema.maximum as number | undefined) ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    default:
      return fc.jsonValue({ maxDepth: 1 })
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 60, 60)
  const fits = (text: string) =>
    text.length >= minLength &&
    text.length <= ((schema.maxLength as number | undefined) ?? Infinity)
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits)
  }
  switch (schema.format) {
    case 'email':
      return fc.stringMatching(/^[a-z0-9]{1,12}@[a-z0-9]{1,12}\.[a-z]{2,6}$/).filter(fits)
    case 'uri':
      return fc.webUrl().filter(fits)
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10))
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
        .map((date) => date.toISOString())
  }
  // Surrounding spaces are trimmed before the rules apply: a generated value has none.
  return fc
    .string({ unit: 'grapheme', minLength, maxLength })
    .map((text) => text.trim())
    .filter(fits)
}

/** A wrong-typed value for a schema: one no branch of it accepts. */
function wrongType(schema: Schema, doc: OpenApiDocument): unknown[] {
  if (typeof schema.$ref === 'string') {
    return wrongType(
      doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Schema,
      doc,
    )
  }
  return [12345, 'not-this', true, [1, 2], { nested: 'object' }, null]
}

/** Bodies the document refuses, made from a body it accepts. */
function invalid(schema: Schema, doc: OpenApiDocument): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const required = (schema.required ?? []) as string[]
  const keys = Object.keys(properties)
  const mutations: fc.Arbitrary<unknown>[] = [fc.constantFrom(42, 'text', [], [{}], true, null)]
  if (keys.length > 0) {
    const base = valid(schema, doc) as fc.Arbitrary<Record<string, unknown>>
    if (required.length > 0) {
      mutations.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([body, key]) => {
          const { [key]: _dropped, ...rest } = body
          return rest
        }),
      )
    }
    mutations.push(
      fc
        .tuple(base, fc.constantFrom(...keys))
        .chain(([body, key]) =>
          fc
            .constantFrom(...wrongType(properties[key] as Schema, doc))
            .map((value) => ({ ...body, [key]: value })),
        ),
    )
    const limited = keys.filter((key) => typeof properties[key]?.maxLength === 'number')
    if (limited.length > 0) {
      mutations.push(
        fc.tuple(base, fc.constantFrom(...limited)).map(([body, key]) => ({
          ...body,
          [key]: 'a'.repeat((properties[key]?.maxLength as number) + 1),
        })),
      )
    }
  }
  return fc.oneof(...mutations)
}

describe('contract fuzz: bodies generated from the document, sent to the real app', () => {
  let t: TestApp
  let document: OpenApiDocument
  const tally = {
    sent: 0,
    fiveHundreds: 0,
    valid: 0,
    proseRefusals: 0,
    invalid: 0,
    byStatus: new Map<number, number>(),
  }

  beforeAll(async () => {
    const pglite = httpBackends().find((backend) => backend.name === 'pglite')
    if (!pglite) throw new Error('no PGlite backend')
    t = await createTestApp(pglite)
    document = (await (await t.request('/api/openapi.json')).json()) as OpenApiDocument
  })
  afterAll(async () => {
    const statuses = [...tally.byStatus].sort(([a], [b]) => a - b)
    console.info(
      `contract fuzz: ${tally.sent} generated requests (${tally.valid} bodies the document accepts, ${tally.proseRefusals} of them refused by a rule it states in prose; ${tally.invalid} it refuses), ${tally.fiveHundreds} answered 5xx; statuses ${statuses.map(([s, n]) => `${s}×${n}`).join(' ')}`,
    )
    await t.close()
  })

  // Some 700 requests: about 10 s on an idle machine; the limit leaves room for a busy one.
  it('answers every operation as its document says, and never with a 5xx', {
    timeout: 180_000,
  }, async () => {
    const contract = contractFor(t.app.routes)
    const routes = [...documentedRoutes(t.app.routes).values()]
      // Signing out ends every session of the user: last, so it does not end the others' tokens.
      .sort((a, b) => Number(a.path === '/api/auth/logout') - Number(b.path === '/api/auth/logout'))
    expect(routes.length).toBeGreaterThan(35)
    for (const route of routes) {
      const template = openApiPath(route.path)
      const method = route.method.toLowerCase()
      const operation = document.paths[template]?.[method]
      if (!operation) throw new Error(`${route.method} ${route.path} is not documented`)
      const parameters = (operation.parameters ?? []) as {
        name: string
        in: string
        required: boolean
        schema: Schema
      }[]
      const bodySchema = operation.requestBody?.content['application/json']?.schema
      const send = async (
        values: Record<string, unknown>,
        body: unknown,
        kind: 'valid' | 'invalid',
      ) => {
        let path = template
        const search = new URLSearchParams()
        for (const param of parameters) {
          const value = values[param.name]
          if (param.in === 'path')
            path = path.replace(`{${param.name}}`, encodeURIComponent(String(value)))
          else if (value !== undefined) search.set(param.name, String(value))
        }
        const url = search.size > 0 ? `${path}?${search}` : path
        const response = await t.request(url, {
          method: route.method,
          // A session minted now, so a sign-out earlier in the run never ends it.
          token: await mintToken(t.demo.admin),
          ...(bodySchema ? { json: body } : {}),
        })
        tally.sent++
        tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1)
        const text = await response.text()
        const where = `${route.method} ${url} ${JSON.stringify(body)?.slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`
        if (response.status >= 500) tally.fiveHundreds++
        expect(response.status, where).toBeLessThan(500)
        if (kind === 'invalid') {
          expect(response.status >= 400 && response.status < 500, where).toBe(true)
          return
        }
        if (!bodySchema || !route.json) return
        const local = v.safeParse(route.json, body)
        if (local.success) {
          // Refused for its shape: by a validator (its issues), or by the database (a value that
          // does not fit a column, which the app's error handler answers with this message).
          const refusedShape =
            response.status === 400 &&
            ((/"issues":\[/.test(text) && !/"issues":\[\]/.test(text)) ||
              text.includes('A value in the request is not valid.'))
          expect(
            refusedShape,
            `a body the document and the schema accept was refused: ${where}`,
          ).toBe(false)
          return
        }
        // The document accepted it, the route's schema did not: only a prose rule may say so.
        const kinds = local.issues.map((issue) => issue.type)
        expect(
          kinds.every((type) => CODE_RULES.has(type)),
          `the document accepts what the route's schema refuses (${kinds.join(', ')}): ${where}`,
        ).toBe(true)
        tally.proseRefusals++
        expect(response.status, where).toBe(400)
      }

      const values = fc.record(
        Object.fromEntries(
          parameters.map((param) => [
            param.name,
            param.schema.type === 'integer'
              ? fc.oneof(fc.integer({ min: 1, max: 5 }), valid(param.schema, document))
              : valid(param.schema, document),
          ]),
        ),
        { requiredKeys: parameters.filter((param) => param.required).map((param) => param.name) },
      )
      const validBody = bodySchema ? valid(bodySchema as Schema, document) : fc.constant(undefined)
      await fc.assert(
        fc.asyncProperty(values, validBody, async (params, body) => {
          fc.pre(!bodySchema || contract.acceptsBody(template, method, body))
          tally.valid++
          await send(params, body, 'valid')
        }),
        { numRuns: RUNS, seed: 15 },
      )
      if (!bodySchema) continue
      await fc.assert(
        fc.asyncProperty(values, invalid(bodySchema as Schema, document), async (params, body) => {
          fc.pre(!contract.acceptsBody(template, method, body))
          tally.invalid++
          await send(params, body, 'invalid')
        }),
        { numRuns: RUNS, seed: 15 },
      )
    }
    expect(tally.fiveHundreds).toBe(0)
  })
})

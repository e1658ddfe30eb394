import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRoutes, PATIENT_ROUTES, PUBLIC_ROUTES } from '#server/testing/api-routes.ts'
import { createTestApp, httpBackends, type TestApp } from '#server/testing/test-app.ts'
import { type OpenApiDocument, openApiPath } from './document.ts'
import { operationDoc } from './operation.ts'

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

/** Every operation of a document as `METHOD /path/{param}`. */
function documentedOperations(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  )
}

describe('the OpenAPI document covers every route the app serves, and nothing else', () => {
  let t: TestApp
  let document: OpenApiDocument

  beforeAll(async () => {
    const pglite = httpBackends().find((backend) => backend.name === 'pglite')
    if (!pglite) throw new Error('no PGlite backend')
    t = await createTestApp(pglite)
    const response = await t.request('/api/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
    document = (await response.json()) as OpenApiDocument
  })
  afterAll(() => t.close())

  it('is OpenAPI 3.1 with the bearer scheme as the default security', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    })
    expect(document.security).toEqual([{ bearer: [] }])
  })

  it('documents every route of app.routes, and names no route the app does not serve', () => {
    const served = apiRoutes(t.app).map((route) => `${route.method} ${openApiPath(route.path)}`)
    const documented = documentedOperations(document)
    expect(served.length).toBeGreaterThan(35)
    expect(
      served.filter((key) => !documented.includes(key)),
      'routes missing from the document: declare their description with operation() on the route',
    ).toEqual([])
    expect(
      documented.filter((key) => !served.includes(key)),
      'operations of the document that no route serves',
    ).toEqual([])
  })

  it('takes each description from the route itself, declared exactly once', () => {
    const declared = new Map<string, number>()
    for (const route of t.app.routes) {
      const handler =
        (route.handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER ?? route.handler
      if (!operationDoc(handler)) continue
      const key = `${route.method} ${route.path}`
      declared.set(key, (declared.get(key) ?? 0) + 1)
    }
    const served = apiRoutes(t.app).map((route) => route.key)
    expect(served.filter((key) => declared.get(key) !== 1)).toEqual([])
  })

  it('asks for the bearer token exactly on the routes that need a session', () => {
    for (const route of apiRoutes(t.app)) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]
      const isPublic = PUBLIC_ROUTES.has(route.key)
      // The wallet's own routes take the patient's session, not the staff bearer token.
      const patient = PATIENT_ROUTES.has(route.key)
      expect(operation?.security, route.key).toEqual(
        isPublic ? [] : patient ? [{ patient: [] }] : undefined,
      )
      // A public call answers 401 only for a wrong credential it checks itself: the wallet's code.
      expect(Object.keys(operation?.responses ?? {}).includes('401'), route.key).toBe(
        !isPublic || route.key === 'POST /api/wallet/:practiceId/session',
      )
    }
  })

  it('describes every path parameter, and every answer has a body schema', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`
        expect(operation.summary, where).not.toBe('')
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1])
        const params = (operation.parameters ?? []) as {
          name: string
          in: string
          description: string
        }[]
        for (const name of names) {
          const param = params.find((p) => p.name === name && p.in === 'path')
          expect(param?.description, `${where} {${name}}`).toBeTruthy()
        }
        expect(
          Object.keys(operation.responses).some((status) => status.startsWith('2')),
          where,
        ).toBe(true)
        for (const [status, answer] of Object.entries(operation.responses)) {
          const content = answer.content as Record<string, { schema?: unknown }> | undefined
          expect(content && Object.keys(content).length > 0, `${where} ${status}`).toBe(true)
          if (Number(status) >= 400 && !('text/plain' in (content ?? {}))) {
            expect(content?.['application/json']?.schema, `${where} ${status}`).toEqual({
              $ref: '#/components/schemas/ApiErrorBody',
            })
          }
        }
      }
    }
  })

  it('answers /auth/check-email in text/plain, with the texts of the specification', () => {
    const responses = document.paths['/api/auth/check-email']?.post?.responses
    expect(responses?.['200']?.content).toEqual({
      'text/plain': { schema: { type: 'string', enum: ['OK'] } },
    })
    expect(responses?.['409']?.content).toEqual({
      'text/plain': {
        schema: {
          type: 'string',
          enum: ['Email is already taken.', 'Phone number is already taken.'],
        },
      },
    })
  })

  it("takes request bodies from the validators and descriptions from the schemas' TSDoc", () => {
    const signIn = document.paths['/api/auth/local']?.post?.requestBody?.content['application/json']
    expect(signIn?.schema).toMatchObject({
      type: 'object',
      required: ['identifier', 'password'],
      description: expect.stringContaining('`POST /auth/local` body'),
    })
    expect(document.components.schemas.Session?.description).toMatch(/^The current user/)
    expect(document.components.schemas.ApiErrorBody?.description).toMatch(/JSON error shape/)
  })

  it("leaves the development outbox out of a production server's document", async () => {
    const production = t.makeApp({ production: true })
    const response = await production.request('/api/openapi.json')
    const doc = (await response.json()) as OpenApiDocument
    expect(Object.keys(doc.paths)).not.toContain('/api/dev/outbox')
    expect(Object.keys(document.paths)).toContain('/api/dev/outbox')
  })
})

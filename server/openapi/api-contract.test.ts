import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, httpBackends, type TestApp } from '#server/testing/test-app.ts'
import { API_CONTRACT_FILE, apiContractText } from './api-contract.ts'

describe("the browser's typed contract of the API", () => {
  let t: TestApp
  let generated: string

  beforeAll(async () => {
    const pglite = httpBackends().find((backend) => backend.name === 'pglite')
    if (!pglite) throw new Error('no PGlite backend')
    t = await createTestApp(pglite)
    generated = await apiContractText(t.app.routes)
  })
  afterAll(() => t.close())

  it('is what the routes declare now, so a changed answer or body reaches the client', () => {
    const committed = readFileSync(new URL(`../../${API_CONTRACT_FILE}`, import.meta.url), 'utf8')
    expect(
      generated === committed,
      `${API_CONTRACT_FILE} is out of date: run npm run api:contract`,
    ).toBe(true)
  })

  it('names each body and answer by a domain export, and only imports types', () => {
    const imports = generated.match(/^import .*$/gm) ?? []
    expect(imports.length).toBeGreaterThan(1)
    expect(imports.every((line) => line.startsWith('import type '))).toBe(true)
    expect(generated).toContain(
      "'GET /api/patients/:id': { answer: v.InferOutput<typeof PatientSchema> }",
    )
  })
})

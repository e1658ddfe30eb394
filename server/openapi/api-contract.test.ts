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

  it('only imports types, and imports every schema it names', () => {
    const imports = generated.match(/^import [^']*'[^']*'$/gm) ?? []
    expect(imports.length).toBeGreaterThan(1)
    expect(imports.filter((line) => !line.startsWith('import type '))).toEqual([])
    const imported = new Set(imports.join('\n').match(/\w+Schema\b/g))
    const named = new Set(generated.match(/(?<=typeof )\w+/g))
    expect(named.size).toBeGreaterThan(10)
    expect([...named].filter((name) => !imported.has(name))).toEqual([])
  })
})

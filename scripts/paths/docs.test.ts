import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { formatCoverage, isComplete, modelCoverage } from '#tests/paths/coverage.ts'
import { leafNode, MACHINES, qaFlows } from '#tests/paths/flows.ts'
import { generatedFilesOnDisk, renderDocs } from './generate.ts'
import { seenAt, stepText } from './markdown.ts'

const root = process.cwd()
let docs: Map<string, string>

beforeAll(() => {
  docs = renderDocs()
})

describe('QA path documents (docs/paths, docs/machines)', () => {
  it('are up to date with the machines and the descriptions beside the models', () => {
    const stale = [...docs]
      .filter(([path, content]) => {
        const file = join(root, path)
        return !existsSync(file) || readFileSync(file, 'utf8') !== content
      })
      .map(([path]) => path)
    const leftOver = generatedFilesOnDisk(root).filter((path) => !docs.has(path))
    expect([...stale, ...leftOver], 'QA documents out of date: run npm run paths').toEqual([])
  })

  it('have words for every step: each event and each state a path reaches', () => {
    const missing: string[] = []
    for (const flow of qaFlows()) {
      for (const section of flow.sections) {
        for (const path of section.paths) {
          path.steps.forEach((step, i) => {
            if (i > 0 && stepText(section, path, i).trim() === '') {
              missing.push(`${flow.id} ${path.number} step ${i}: ${step.event.type}`)
            }
            const leaf = leafNode(MACHINES[path.machine], step.state).id
            if (!section.describeState(leaf) && !path.plans[i]?.seen) {
              missing.push(`${flow.id} ${path.number} step ${i}: state ${leaf}`)
            }
            expect(seenAt(section, path, i)).toMatch(/^You see: /)
          })
        }
      }
    }
    expect(missing).toEqual([])
  })
})

describe('QA paths: coverage of the flow machines', () => {
  it('reaches every state and takes every transition of every flow machine', () => {
    const rows = modelCoverage()
    console.log(formatCoverage(rows, 'Coverage of the flow machines by the generated QA paths'))
    expect(isComplete(rows)).toBe(true)
  })
})

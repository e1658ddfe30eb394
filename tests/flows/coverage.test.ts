/**
 * The one coverage test of the flows: every machine in `machines/` has a registered model, the
 * generated paths reach every state node and take every transition of every machine (the view
 * tests replay exactly these paths, each failing on a step it cannot perform or a screen that
 * does not match), every step has a person's words, and the committed QA documents
 * (`docs/paths`, `docs/machines`) are what `npm run paths` writes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { FLOWS, MODELS } from '#tests/flows/registry.ts'
import {
  flowPaths,
  formatCoverage,
  generatedFilesOnDisk,
  isComplete,
  leafNode,
  machineCoverage,
  pathsCoverage,
  qaFlow,
  renderDocs,
  seenAt,
  stepText,
} from '#tests/mbt/index.ts'

const root = process.cwd()
const flows = FLOWS.map(qaFlow)

/** Every `*.machine.ts` under `machines/`. */
function machineFiles(dir = join(root, 'machines')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return machineFiles(path)
    return entry.name.endsWith('.machine.ts') ? [path] : []
  })
}

describe('flow models', () => {
  it('cover every machine in machines/', async () => {
    const unmodelled: string[] = []
    for (const file of machineFiles()) {
      const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>
      for (const [name, value] of Object.entries(exports)) {
        const isMachine =
          typeof value === 'object' && value !== null && 'root' in value && 'provide' in value
        if (isMachine && !MODELS.some((model) => model.machine === value)) {
          unmodelled.push(`${relative(root, file)}: ${name}`)
        }
      }
    }
    expect(unmodelled, 'register a flow model in tests/flows/registry.ts').toEqual([])
  })

  it('reach every state node and take every transition of every machine', () => {
    const rows = machineCoverage(flows, MODELS)
    console.log(formatCoverage(rows, 'Coverage of the flow machines by the generated paths'))
    for (const flow of flows) {
      console.log(formatCoverage(pathsCoverage(flowPaths(flow)), `  flow ${flow.id}:`))
    }
    expect(isComplete(rows)).toBe(true)
  })

  it('have words for every step: each event and each state a path reaches', () => {
    const missing: string[] = []
    for (const flow of flows) {
      for (const section of flow.sections) {
        for (const path of section.paths) {
          path.steps.forEach((step, i) => {
            if (i > 0 && stepText(section, path, i).trim() === '') {
              missing.push(`${flow.id} ${path.number} step ${i}: ${step.event.type}`)
            }
            const leaf = leafNode(path.model.machine, step.state).id
            if (!section.model.states[leaf] && !path.plans[i]?.seen) {
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

describe('QA path documents (docs/paths, docs/machines)', () => {
  it('are up to date with the machines and the flow models', () => {
    const docs = renderDocs(flows, MODELS)
    const stale = [...docs]
      .filter(([path, content]) => {
        const file = join(root, path)
        return !existsSync(file) || readFileSync(file, 'utf8') !== content
      })
      .map(([path]) => path)
    const leftOver = generatedFilesOnDisk(root).filter((path) => !docs.has(path))
    expect([...stale, ...leftOver], 'QA documents out of date: run npm run paths').toEqual([])
  })
})

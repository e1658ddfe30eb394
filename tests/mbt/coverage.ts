/**
 * Coverage of machines by paths: which state nodes and transitions some paths reach, against
 * every state node and transition of each machine, as rows and as text. The jsdom side (the
 * coverage test, `npm run paths`) and the browser replay's reporter print it, per flow and in all.
 */
import { stateNodes, transitions } from './graph.ts'
import type { Model } from './plan.ts'
import { pathCoverage, type QaPath } from './qa.ts'

/** What some paths reached of one model's machine. */
export type Reached = { model: string; states: Iterable<string>; transitions: Iterable<string> }

/** One line of the summary. */
export type CoverageRow = {
  model: string
  title: string
  paths: number
  states: { reached: number; total: number; missing: string[] }
  transitions: { reached: number; total: number; missing: string[] }
}

/** The coverage of each of `models` by `reached` (several entries per model are merged). */
export function coverageRows(
  models: readonly Model[],
  reached: readonly Reached[],
  pathCounts: Readonly<Record<string, number>>,
): CoverageRow[] {
  return models.map((model): CoverageRow => {
    const states = new Set<string>()
    const taken = new Set<string>()
    for (const entry of reached.filter((r) => r.model === model.name)) {
      for (const id of entry.states) states.add(id)
      for (const key of entry.transitions) taken.add(key)
    }
    const allStates = stateNodes(model.machine).map((node) => node.id)
    const allTransitions = transitions(model.machine)
    const missingStates = allStates.filter((id) => !states.has(id))
    const missingTransitions = allTransitions.filter((key) => !taken.has(key))
    return {
      model: model.name,
      title: model.title,
      paths: pathCounts[model.name] ?? 0,
      states: {
        reached: allStates.length - missingStates.length,
        total: allStates.length,
        missing: missingStates,
      },
      transitions: {
        reached: allTransitions.length - missingTransitions.length,
        total: allTransitions.length,
        missing: missingTransitions,
      },
    }
  })
}

/** The models some paths walk, each once, in the order they first appear. */
export function modelsOf(paths: readonly QaPath[]): Model[] {
  return [...new Set(paths.map((path) => path.model))]
}

/** How many paths walk each model. */
export function countPaths(paths: readonly QaPath[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const path of paths) counts[path.model.name] = (counts[path.model.name] ?? 0) + 1
  return counts
}

/** The coverage of `paths` as generated (what the view tests replay). */
export function pathsCoverage(
  paths: readonly QaPath[],
  models: readonly Model[] = modelsOf(paths),
): CoverageRow[] {
  return coverageRows(
    models,
    paths.map((path) => ({ model: path.model.name, ...pathCoverage(path) })),
    countPaths(paths),
  )
}

function percent(reached: number, total: number): string {
  return total === 0 ? '100%' : `${Math.floor((reached / total) * 1000) / 10}%`
}

/** Whether every state and transition of every row's machine is reached. */
export function isComplete(rows: readonly CoverageRow[]): boolean {
  return rows.every(
    (row) => row.states.missing.length === 0 && row.transitions.missing.length === 0,
  )
}

/** The summary as text: one line per machine, then anything missing. */
export function formatCoverage(rows: readonly CoverageRow[], heading: string): string {
  const lines = [heading]
  for (const row of rows) {
    const states = `${row.states.reached}/${row.states.total} states (${percent(row.states.reached, row.states.total)})`
    const taken = `${row.transitions.reached}/${row.transitions.total} transitions (${percent(row.transitions.reached, row.transitions.total)})`
    lines.push(
      `  ${row.title.padEnd(24)} ${states.padEnd(22)} ${taken.padEnd(28)} ${row.paths} paths`,
    )
  }
  for (const row of rows) {
    const missing = [
      ...row.states.missing.map((id) => `state ${id} not reached`),
      ...row.transitions.missing.map((key) => `transition ${key} not taken`),
    ]
    for (const text of missing) lines.push(`  ✖ ${row.title}: ${text}`)
  }
  return lines.join('\n')
}

/**
 * Coverage of the flow machines by the QA paths: which state nodes and transitions the paths
 * reach, against every state node and transition of each machine. Both runners print it: the
 * model side (`npm run test:unit`, through the docs test) and the browser replay
 * (`npm run test:paths`).
 */

import { modelStateNodes, modelTransitions } from '#tests/model/sign-up.paths.ts'
import {
  MACHINE_TITLES,
  MACHINES,
  type MachineKey,
  pathCoverage,
  type QaPath,
  qaFlows,
} from '#tests/paths/flows.ts'

/** What some paths reached of one machine. */
export type Reached = { machine: MachineKey; states: Set<string>; transitions: Set<string> }

/** One line of the summary. */
export type CoverageRow = {
  machine: MachineKey
  title: string
  paths: number
  states: { reached: number; total: number; missing: string[] }
  transitions: { reached: number; total: number; missing: string[] }
}

const ORDER: MachineKey[] = ['signInScreen', 'signUp', 'phoneVerification', 'registerPersonnel']

/** Every state node id of a machine the paths must reach (eventless start steps left out). */
export function machineStates(machine: MachineKey): string[] {
  return modelStateNodes(MACHINES[machine]).map((node) => node.id)
}

/** Every transition key of a machine the paths must take. */
export function machineTransitions(machine: MachineKey): string[] {
  return modelTransitions(MACHINES[machine])
}

/** The coverage of each machine by `reached` (several entries per machine are merged). */
export function coverageRows(reached: Reached[], pathCounts: Partial<Record<MachineKey, number>>) {
  return ORDER.map((machine): CoverageRow => {
    const states = new Set<string>()
    const transitions = new Set<string>()
    for (const entry of reached.filter((r) => r.machine === machine)) {
      for (const id of entry.states) states.add(id)
      for (const key of entry.transitions) transitions.add(key)
    }
    const allStates = machineStates(machine)
    const allTransitions = machineTransitions(machine)
    const missingStates = allStates.filter((id) => !states.has(id))
    const missingTransitions = allTransitions.filter((key) => !transitions.has(key))
    return {
      machine,
      title: MACHINE_TITLES[machine],
      paths: pathCounts[machine] ?? 0,
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

/** The coverage of the generated paths, as the model-based tests walk them. */
export function modelCoverage(): CoverageRow[] {
  const paths = qaFlows().flatMap((flow) => flow.sections.flatMap((s) => s.paths))
  return coverageRows(
    paths.map((path) => ({ machine: path.machine, ...pathCoverage(path) })),
    countPaths(paths),
  )
}

/** How many paths walk each machine. */
export function countPaths(paths: QaPath[]): Partial<Record<MachineKey, number>> {
  const counts: Partial<Record<MachineKey, number>> = {}
  for (const path of paths) counts[path.machine] = (counts[path.machine] ?? 0) + 1
  return counts
}

function percent(reached: number, total: number): string {
  return total === 0 ? '100%' : `${Math.floor((reached / total) * 1000) / 10}%`
}

/** Whether every state and transition of every machine is reached. */
export function isComplete(rows: CoverageRow[]): boolean {
  return rows.every(
    (row) => row.states.missing.length === 0 && row.transitions.missing.length === 0,
  )
}

/** The summary as text: one line per machine, then anything missing. */
export function formatCoverage(rows: CoverageRow[], heading: string): string {
  const lines = [heading]
  for (const row of rows) {
    const states = `${row.states.reached}/${row.states.total} states (${percent(row.states.reached, row.states.total)})`
    const transitions = `${row.transitions.reached}/${row.transitions.total} transitions (${percent(row.transitions.reached, row.transitions.total)})`
    lines.push(
      `  ${row.title.padEnd(24)} ${states.padEnd(22)} ${transitions.padEnd(28)} ${row.paths} paths`,
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

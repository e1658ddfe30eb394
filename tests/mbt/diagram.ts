/**
 * A machine as a Mermaid `stateDiagram-v2`, generated from its definition: states and nested
 * states, the initial state of each level, final states, and every transition labelled with its
 * event and guard. Mermaid cannot draw an arrow between states inside different composite
 * states, so such an arrow is drawn between their ancestors that share a parent, and its label
 * names the exact target. Output is stable: document order of the definition.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate'

type Definition = {
  eventType: string
  target?: readonly AnyStateNode[] | undefined
  guard?: unknown
}

/** A short id that Mermaid accepts: the node's path joined with `_` (the root is `root`). */
function mermaidId(node: AnyStateNode): string {
  return node.path.length === 0 ? 'root' : node.path.join('_')
}

/** The part of a state node id after the machine id: `signIn.editing.ready`. */
export function shortStateId(id: string): string {
  const dot = id.indexOf('.')
  return dot < 0 ? id : id.slice(dot + 1)
}

/** An event as a person reads it in the diagram: `signIn done`, `after outdatedNotice`. */
export function eventLabel(eventType: string): string {
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType)
  if (done) return `${done[1]} done`
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType)
  if (error) return `${error[1]} fails`
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType)
  if (after) return `after ${after[1]}`
  return eventType
}

/** The name of a guard: `isCaptchaMissing`, `isResumingAt(confirmation)`, `and(a, b)`. */
export function guardLabel(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined
  if (typeof guard === 'string') return guard
  if (typeof guard === 'function') {
    const inner = (guard as { guards?: unknown[] }).guards
    if (Array.isArray(inner)) {
      return `${guard.name || 'guard'}(${inner.map((g) => guardLabel(g) ?? '?').join(', ')})`
    }
    return guard.name || 'guard'
  }
  if (typeof guard === 'object' && 'type' in guard) {
    const { type, params } = guard as { type: string; params?: unknown }
    if (params && typeof params === 'object') {
      return `${type}(${Object.values(params as Record<string, unknown>).join(', ')})`
    }
    return type
  }
  return 'guard'
}

function ancestors(node: AnyStateNode): AnyStateNode[] {
  const chain: AnyStateNode[] = []
  for (let current: AnyStateNode | undefined = node; current; current = current.parent) {
    chain.unshift(current)
  }
  return chain
}

/**
 * Where Mermaid can draw an arrow from `source` to `target`: the two ancestors (or the states
 * themselves) whose parent is the lowest common one, and that parent.
 */
function drawable(
  source: AnyStateNode,
  target: AnyStateNode,
): { from: AnyStateNode; to: AnyStateNode; scope: AnyStateNode } {
  const a = ancestors(source)
  const b = ancestors(target)
  let common = 0
  while (common < a.length && common < b.length && a[common] === b[common]) common++
  // A state to itself, or to its own ancestor or descendant: draw it on the outer one.
  if (common >= a.length || common >= b.length) {
    const outer = a.length <= b.length ? source : target
    const scope = outer.parent ?? outer
    return { from: outer, to: outer, scope }
  }
  return {
    from: a[common] as AnyStateNode,
    to: b[common] as AnyStateNode,
    scope: a[common - 1] as AnyStateNode,
  }
}

function label(
  definition: Definition,
  count: number,
  ends: { from?: string | undefined; to?: string | undefined },
): string {
  const guard = guardLabel(definition.guard)
  const parts = [eventLabel(definition.eventType)]
  if (guard) parts.push(`[${guard}]`)
  else if (count > 1) parts.push('[otherwise]')
  if (ends.from) parts.push(`from ${ends.from}`)
  if (ends.to) parts.push(`to ${ends.to}`)
  // Mermaid ends a label at `:` or `;`.
  return parts.join(' ').replace(/[:;]/g, ' ')
}

/** Every arrow of the machine, grouped by the composite state it is drawn in. */
function arrows(machine: AnyStateMachine): Map<AnyStateNode, string[]> {
  const byScope = new Map<AnyStateNode, string[]>()
  const add = (scope: AnyStateNode, line: string) => {
    const lines = byScope.get(scope) ?? []
    lines.push(line)
    byScope.set(scope, lines)
  }
  const visit = (node: AnyStateNode) => {
    const groups: Array<[string, Definition[]]> = [...node.transitions.entries()].map(
      ([eventType, definitions]) => [eventType, definitions as Definition[]],
    )
    if (node.always?.length) {
      groups.push(['always', node.always.map((d) => ({ ...d, eventType: 'always' }))])
    }
    for (const [, definitions] of groups) {
      for (const definition of definitions) {
        const targets = definition.target?.length ? definition.target : [node]
        for (const target of targets) {
          // Transitions of the root without a target (machine-wide events) have nowhere to go.
          if (node === machine.root && target === node) continue
          const { from, to, scope } = drawable(node, target)
          const ends = {
            from: from === node ? undefined : shortStateId(node.id),
            to: to === target ? undefined : shortStateId(target.id),
          }
          add(
            scope,
            `${mermaidId(from)} --> ${mermaidId(to)} : ${label(definition, definitions.length, ends)}`,
          )
        }
      }
    }
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child)
  }
  visit(machine.root)
  return byScope
}

function block(node: AnyStateNode, byScope: Map<AnyStateNode, string[]>, indent: string): string[] {
  const lines: string[] = []
  const children = Object.values(node.states) as AnyStateNode[]
  for (const child of children) {
    const name = child.key
    lines.push(`${indent}state "${name}" as ${mermaidId(child)}`)
  }
  const initial = node.initial?.target?.[0]
  if (initial) lines.push(`${indent}[*] --> ${mermaidId(initial)}`)
  for (const child of children) {
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state ${mermaidId(child)} {`)
      lines.push(...block(child, byScope, `${indent}  `))
      lines.push(`${indent}}`)
    }
  }
  for (const child of children) {
    if (child.type === 'final') lines.push(`${indent}${mermaidId(child)} --> [*]`)
  }
  lines.push(...(byScope.get(node) ?? []).map((line) => `${indent}${line}`))
  return lines
}

/** The Mermaid source of a machine's diagram. */
export function mermaidDiagram(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2', ...block(machine.root, arrows(machine), '  ')]
  return lines.join('\n')
}

/** Events the machine handles in every state without changing it (its root's `on`). */
export function machineWideEvents(machine: AnyStateMachine): string[] {
  return [...machine.root.transitions.keys()].map(eventLabel)
}

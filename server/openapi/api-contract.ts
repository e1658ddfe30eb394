/**
 * The browser's typed contract of the API (`src/api/contract.gen.ts`, written by
 * `npm run api:contract`): for each route the OpenAPI document describes, the type of its JSON
 * request body and of its success answer, named by the very domain schemas the route declares.
 * The browser's client parses each answer through `parseAnswer` (src/api/contract.ts) with the
 * route's key, so a route whose declared answer changes fails the client's type check until the
 * client parses the new shape. server/openapi/api-contract.test.ts keeps the file up to date.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type * as v from 'valibot'
import { type RouteEntry, routeContracts } from './document.ts'

/** Where the generated file lives, from the repository's root. */
export const API_CONTRACT_FILE = 'src/api/contract.gen.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** An exported value of a domain module: the module's import specifier and the export's name. */
type DomainExport = { module: string; name: string }

/** The `domain/` source files (tests aside), as `#domain/...` specifiers, in a stable order. */
function domainModules(): string[] {
  return readdirSync(`${ROOT}domain`, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort()
    .map((file) => `#domain/${file}`)
}

/**
 * Every object exported by a domain module, by identity. A schema exported by two modules (one
 * re-exporting the other's) is named by the first in path order, so the output is stable.
 */
async function domainExports() {
  const found = new Map<unknown, DomainExport>()
  for (const module of domainModules()) {
    const file = pathToFileURL(`${ROOT}${module.slice('#'.length)}`).href
    const exports = (await import(file)) as Record<string, unknown>
    for (const name of Object.keys(exports).sort()) {
      const value = exports[name]
      if (typeof value !== 'object' || value === null || found.has(value)) continue
      found.set(value, { module, name })
    }
  }
  return found
}

/** A code-unit order, so the output does not depend on the machine's locale. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The text of `src/api/contract.gen.ts` for an app's routes (`app.routes`), before formatting:
 * one entry per documented route, sorted by key, with `body` (the input type of its JSON body
 * schema), `answer` (the output type of its JSON success answers, a union when 200 and 201 differ)
 * and, for answers that are not JSON, `text` (the `text/plain` texts it may answer) or `media`
 * (the media types of its body, read as a Blob or text by the caller).
 */
export async function apiContractSource(routes: readonly RouteEntry[]): Promise<string> {
  const exports = await domainExports()
  const imports = new Map<string, Set<string>>()
  const unnamed: string[] = []
  const name = (key: string, what: string, schema: v.GenericSchema): string => {
    const found = exports.get(schema)
    if (!found) {
      unnamed.push(`${key}: its ${what} schema`)
      return 'unknown'
    }
    let names = imports.get(found.module)
    if (!names) {
      names = new Set()
      imports.set(found.module, names)
    }
    names.add(found.name)
    return found.name
  }

  const entries: { key: string; fields: string[] }[] = []
  for (const route of routeContracts(routes)) {
    const fields: string[] = []
    if (route.body) fields.push(`body: v.InferInput<typeof ${name(route.key, 'body', route.body)}>`)
    const json = new Set<string>()
    const texts = new Set<string>()
    const media = new Set<string>()
    for (const answer of route.success) {
      if ('json' in answer) {
        const type = `v.InferOutput<typeof ${name(route.key, 'answer', answer.json)}>`
        json.add(answer.array ? `${type}[]` : type)
      } else if ('text' in answer) {
        for (const text of answer.text) texts.add(JSON.stringify(text))
      } else {
        for (const type of answer.media) media.add(JSON.stringify(type))
      }
    }
    if (json.size > 0) fields.push(`answer: ${[...json].join(' | ')}`)
    if (texts.size > 0) fields.push(`text: ${[...texts].join(' | ')}`)
    if (media.size > 0) fields.push(`media: ${[...media].join(' | ')}`)
    entries.push({ key: route.key, fields })
  }
  if (unnamed.length > 0) {
    throw new Error(
      `Schemas the browser's client cannot name: each must be an export of a domain module (domain/**/*.ts) that the route uses itself:\n${unnamed.join('\n')}`,
    )
  }
  entries.sort((a, b) => byCodeUnits(a.key, b.key))

  const lines = ["import type * as v from 'valibot'"]
  for (const module of [...imports.keys()].sort(byCodeUnits)) {
    const names = [...(imports.get(module) ?? [])].sort(byCodeUnits)
    lines.push(`import type { ${names.join(', ')} } from '${module}'`)
  }
  lines.push(
    '',
    '/**',
    " * Generated by `npm run api:contract` from the server's route declarations; do not edit.",
    ' *',
    ' * Each route the OpenAPI document describes, by `METHOD /api/path` as the server writes it:',
    ' * `body`, its JSON request body; `answer`, its JSON success answer as the schema parses it;',
    ' * `text`, the texts of a `text/plain` success answer; `media`, the media types of any other.',
    ' */',
    'export type ApiContract = {',
    // A route with neither a JSON body nor a success body to describe (none so far) is still listed.
    ...entries.map(({ key, fields }) =>
      fields.length > 0
        ? `  '${key}': { ${fields.join('; ')} }`
        : `  '${key}': Record<never, never>`,
    ),
    '}',
    '',
  )
  return lines.join('\n')
}

/** Formats a TypeScript text as Biome would format the file at `path` (biome.json's settings). */
export function formatWithBiome(text: string, path: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
  const result = spawnSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  })
  if (result.status !== 0) {
    throw new Error(`biome format failed for ${path}:\n${result.stderr || result.stdout}`)
  }
  return result.stdout
}

/** The formatted text of `src/api/contract.gen.ts` for an app's routes. */
export async function apiContractText(routes: readonly RouteEntry[]): Promise<string> {
  return formatWithBiome(await apiContractSource(routes), API_CONTRACT_FILE)
}

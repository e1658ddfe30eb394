import { relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Plugin, Rolldown } from 'vite'
import { routePreloadTable } from './route-preloads.ts'

/**
 * What the entry chunk (what every page, /signin included, downloads before its first paint) may
 * hold. Route files keep only their address checks outside their lazy chunks, and what those
 * import comes first: one import of a schema module once pulled the patient and phone schemas
 * (libphonenumber, 35 KB gzip) into every page. The build fails, naming the module and who
 * imported it, instead of the page getting heavier unnoticed.
 */
export const ENTRY_BUDGET = {
  /** The entry chunk's gzip size (level 9, as the server compresses) may not pass this. */
  maxGzipBytes: 125 * 1024,
  /** Modules only signed-in or multi-step pages use; none may reach the entry chunk. */
  forbidden: [
    /[/\\]node_modules[/\\]libphonenumber-js[/\\]/,
    /[/\\]node_modules[/\\]@mantine[/\\](charts|dates|dropzone)[/\\]/,
    /[/\\]node_modules[/\\]xstate[/\\]/,
    /[/\\]node_modules[/\\]@stripe[/\\]/,
    /[/\\]node_modules[/\\]ky[/\\]/,
    /[/\\]domain[/\\](practice-data|promotions|visits|ledger|phone|patients)\.ts$/,
    /[/\\]src[/\\]api[/\\]/,
  ],
  /**
   * The signed-in areas' routes and the whole route tree, which arrive with the first signed-in
   * page (src/app/router.tsx): a page added there may not make the sign-in page heavier.
   */
  signedInRoutes: [
    /[/\\]src[/\\]routes[/\\]_shell[^/\\]*\.tsx$/,
    /[/\\]src[/\\]routeTree\.gen\.ts$/,
  ],
}

/** A module's package (`libphonenumber-js`), or its path in the project (`domain/phone.ts`). */
function sourceName(id: string): string {
  const inPackage = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(id)
  if (inPackage?.[1]) return inPackage[1].replaceAll('\\', '/')
  return relative(process.cwd(), id.replace(/\?.*$/, '')).replaceAll('\\', '/')
}

/** What is wrong with the entry chunk `chunk`: one sentence per breach, none when it is fine. */
export function entryBreaches(
  chunk: Pick<Rolldown.OutputChunk, 'fileName' | 'code' | 'moduleIds'>,
  importerOf: (id: string) => string | undefined,
  budget = ENTRY_BUDGET,
): string[] {
  const breaches: string[] = []
  const gzip = gzipSync(chunk.code, { level: 9 }).length
  if (gzip > budget.maxGzipBytes) {
    breaches.push(
      `The entry chunk ${chunk.fileName} is ${(gzip / 1024).toFixed(1)} KB gzip, over its budget of ${(budget.maxGzipBytes / 1024).toFixed(0)} KB.`,
    )
  }
  // One sentence per package or file, with one module that brought it in.
  const found = new Map<string, string | undefined>()
  for (const id of chunk.moduleIds) {
    if (!budget.forbidden.some((pattern) => pattern.test(id))) continue
    const name = sourceName(id)
    if (!found.has(name)) found.set(name, importerOf(id))
  }
  for (const [name, by] of found) {
    const importer = by ? sourceName(by) : undefined
    breaches.push(
      `The entry chunk holds ${name}${importer && importer !== name ? ` (imported by ${importer})` : ''}, which only later pages need: import it from the route's lazy part (its loader or component), or move what the address check needs into a small module of its own.`,
    )
  }
  const routes = chunk.moduleIds.filter((id) => budget.signedInRoutes.some((p) => p.test(id)))
  if (routes.length > 0) {
    const by = importerOf(routes[0] ?? '')
    breaches.push(
      `The entry chunk holds the signed-in routes (${routes.map(sourceName).join(', ')})${by ? `, imported by ${sourceName(by)}` : ''}: only the public pages' route tree (src/public-route-tree.gen.ts) belongs there; the whole tree is loaded by the router when a signed-in address is opened.`,
    )
  }
  return breaches
}

/**
 * What the sign-in page (a visitor's first page, and every staff member's every morning) may not
 * load before someone uses it: its statechart's library comes at the first focus or click
 * (src/lib/deferred-actor.ts).
 */
export const SIGN_IN_PAGE_BUDGET = {
  pattern: '^/signin/?$',
  forbidden: [/[/\\]node_modules[/\\]@?xstate[/\\]/],
}

/** What is wrong with the files the sign-in page loads on arrival: one sentence per file. */
export function signInPageBreaches(
  bundle: Rolldown.OutputBundle,
  budget = SIGN_IN_PAGE_BUDGET,
): string[] {
  const page = routePreloadTable(bundle).find((route) => route.pattern === budget.pattern)
  const breaches: string[] = []
  for (const file of page?.files ?? []) {
    const chunk = bundle[file.replace(/^\//, '')]
    if (chunk?.type !== 'chunk') continue
    const found = chunk.moduleIds.find((id) => budget.forbidden.some((p) => p.test(id)))
    if (found) {
      breaches.push(
        `The sign-in page loads ${sourceName(found)} on arrival (in ${chunk.fileName}): a view of the screen imports it statically. Views take the actor as an ActorSource (src/lib/actor-source.ts); the machine is loaded when the visitor starts (src/lib/deferred-actor.ts).`,
      )
    }
  }
  return breaches
}

/**
 * Fails a production build whose entry chunk breaks {@link ENTRY_BUDGET}, or whose sign-in page
 * breaks {@link SIGN_IN_PAGE_BUDGET}.
 */
export function entryBudget(): Plugin {
  return {
    name: 'glow:entry-budget',
    // The browser's bundle only: the prerender's server build holds every page by design.
    apply: (_config, { command, isSsrBuild }) => command === 'build' && !isSsrBuild,
    generateBundle(_options, bundle) {
      const importerOf = (id: string) => this.getModuleInfo(id)?.importers[0]
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk' || !output.isEntry) continue
        const breaches = entryBreaches(output, importerOf)
        if (breaches.length > 0) this.error(breaches.join('\n'))
      }
      const signIn = signInPageBreaches(bundle)
      if (signIn.length > 0) this.error(signIn.join('\n'))
    },
  }
}

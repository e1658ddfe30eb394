import type { Result, Router } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { SmartRouter } from 'hono/router/smart-router'
import { TrieRouter } from 'hono/router/trie-router'

/** How many method and path pairs the cache holds before it starts over. */
const MAX_ENTRIES = 1000
/** Longer paths are matched every time: they would make the cache large, and are rare. */
const MAX_PATH_LENGTH = 200

/**
 * Hono's default router (SmartRouter: RegExpRouter, or TrieRouter when a route does not fit it,
 * as this app's do) that remembers its answer for each method and path. Matching walks every
 * route in the tree and was an eighth of the CPU time of a cached `GET /api/practice/plans`;
 * a repeated request now costs one Map lookup.
 *
 * The answer depends on the method and path alone, and Hono only reads it (RegExpRouter itself
 * hands the same answer to every request for a static path). The cache starts over when full, so
 * requests for ever new paths cannot grow it, and whenever a route is added.
 */
export class CachedRouter<T> implements Router<T> {
  name = 'CachedRouter'
  readonly #router: Router<T> = new SmartRouter({
    routers: [new RegExpRouter(), new TrieRouter()],
  })
  /** Answers by method, then by path. */
  readonly #answers = new Map<string, Map<string, Result<T>>>()
  #size = 0

  add(method: string, path: string, handler: T): void {
    this.#clear()
    this.#router.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_PATH_LENGTH) return this.#router.match(method, path)
    const known = this.#answers.get(method)?.get(path)
    if (known) return known
    const answer = this.#router.match(method, path)
    if (this.#size >= MAX_ENTRIES) this.#clear()
    let byPath = this.#answers.get(method)
    if (!byPath) {
      byPath = new Map()
      this.#answers.set(method, byPath)
    }
    byPath.set(path, answer)
    this.#size++
    return answer
  }

  #clear(): void {
    this.#answers.clear()
    this.#size = 0
  }
}

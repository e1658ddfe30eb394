import { useRouter } from '@tanstack/react-router'
import { useCallback, useRef, useState } from 'react'
import { apiErrorMessage } from '#src/lib/http.ts'
import { forgetRefusedSession, isSessionRefused } from '#src/lib/load-data.ts'

/** What a refused write tells its caller: the sentence to show, or an object that carries it. */
export type ActionFailure = string | { message: string }

/** Options of one {@link Action.run}. */
export type ActionOptions<T, F extends ActionFailure> = {
  /** Reload the route loaders after the write succeeded (default true). */
  invalidate?: boolean
  /**
   * What a failure becomes for the caller, when a form wants more than the sentence (a refused
   * field, the record it clashes with). Default: the sentence of `apiErrorMessage`.
   */
  failure?: (error: unknown) => Promise<F>
  /** Runs after the write and the reload, with the write's answer (e.g. opening what was made). */
  onSuccess?: (result: T) => unknown
}

/** A screen's writes: one at a time or many, with what they are doing and how the last one ended. */
export type Action = {
  /**
   * Runs a write. Resolves to undefined when it succeeded, else to what the user should read;
   * it never throws, so a form keeps its values and shows the message. A 401 also forgets the
   * session and goes to sign in, as a route loader does.
   */
  run: <T, F extends ActionFailure = string>(
    work: () => Promise<T>,
    options?: ActionOptions<T, F>,
  ) => Promise<F | undefined>
  /** Whether a write is under way. */
  pending: boolean
  /** The sentence of the last write's failure, until the next write or {@link Action.reset}. */
  error: string | undefined
  /** Forgets the last failure. */
  reset: () => void
}

const sentence = (failure: ActionFailure) =>
  typeof failure === 'string' ? failure : failure.message

/**
 * The one way a screen that is not a flow writes: reads are its route loader's (`loadData`), and
 * after a write the loaders run again so the screen shows what is now stored.
 */
export function useAction(): Action {
  const router = useRouter()
  const running = useRef(0)
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<string>()

  const run = useCallback(
    async <T, F extends ActionFailure = string>(
      work: () => Promise<T>,
      { invalidate = true, failure, onSuccess }: ActionOptions<T, F> = {},
    ): Promise<F | undefined> => {
      running.current += 1
      setPending(true)
      setError(undefined)
      try {
        const result = await work()
        if (invalidate) await router.invalidate()
        await onSuccess?.(result)
        return undefined
      } catch (caught) {
        const refused = (await (failure ?? apiErrorMessage)(caught)) as F
        setError(sentence(refused))
        if (isSessionRefused(caught)) {
          forgetRefusedSession()
          await router.navigate({ to: '/signin' })
        }
        return refused
      } finally {
        running.current -= 1
        setPending(running.current > 0)
      }
    },
    [router],
  )
  const reset = useCallback(() => setError(undefined), [])
  return { run, pending, error, reset }
}

import { fromPromise } from 'xstate'

/** A promise with its resolve and reject in hand (`Promise.withResolvers` is missing on Node 20). */
export type Deferred<T> = {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (e: unknown) => void
}

/** Makes a {@link Deferred}. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/**
 * A fake actor whose every call waits until the test answers it: `logic` goes into
 * `machine.provide({ actors })`, `latest().answer.resolve(…)` or `.reject(…)` settles the last call.
 */
export function controlled<TOutput, TInput>() {
  const calls: Array<{ input: TInput; answer: Deferred<TOutput> }> = []
  return {
    calls,
    logic: fromPromise<TOutput, TInput>(({ input }) => {
      const answer = deferred<TOutput>()
      calls.push({ input, answer })
      return answer.promise
    }),
    latest() {
      const call = calls.at(-1)
      if (!call) throw new Error('the actor was not called')
      return call
    },
  }
}

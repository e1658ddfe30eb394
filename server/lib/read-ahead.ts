/**
 * Reads a chain of pages, each of which names the next, ahead of their consumer: the reading goes
 * on while the consumer works, and pauses when `depth` pages wait to be taken. A failed read ends
 * the reading and is thrown to the consumer when it reaches that page, in order. `stop` ends the
 * reading: nothing further is requested (a read under way finishes and is dropped).
 */
export function readAhead<Page, Value>(
  first: Page,
  read: (page: Page) => Promise<Value>,
  nextOf: (value: Value) => Page | null,
  depth: number,
) {
  const ready: ({ value: Value } | { error: unknown })[] = []
  let taken: (() => void) | null = null
  let arrived: (() => void) | null = null
  let stopped = false
  let ended = false
  const wake = (which: 'taken' | 'arrived') => {
    const resolve = which === 'taken' ? taken : arrived
    if (which === 'taken') taken = null
    else arrived = null
    resolve?.()
  }
  void (async () => {
    let page: Page | null = first
    while (page !== null && !stopped) {
      while (ready.length >= depth && !stopped) {
        await new Promise<void>((resolve) => {
          taken = resolve
        })
      }
      if (stopped) break
      try {
        const value: Value = await read(page)
        if (stopped) break
        page = nextOf(value)
        ready.push({ value })
      } catch (error) {
        page = null
        ready.push({ error })
      }
      wake('arrived')
    }
    ended = true
    wake('arrived')
  })()
  return {
    /** The next page, once it is read; the failure of its read, thrown. */
    async next(): Promise<Value> {
      if (stopped) throw new Error('There is no page left to read.')
      while (ready.length === 0) {
        if (ended || stopped) throw new Error('There is no page left to read.')
        await new Promise<void>((resolve) => {
          arrived = resolve
        })
      }
      const item = ready.shift() as { value: Value } | { error: unknown }
      wake('taken')
      if ('error' in item) throw item.error
      return item.value
    },
    stop() {
      stopped = true
      wake('taken')
    },
  }
}

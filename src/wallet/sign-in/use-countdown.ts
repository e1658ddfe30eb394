import { useEffect, useState } from 'react'

/** What the countdown needs of a clock: XState's `Clock` (an actor's `clock`) has it. */
export type CountdownClock = {
  setTimeout: (fn: () => void, timeout: number) => unknown
  clearTimeout: (id: unknown) => void
}

/**
 * Whole seconds left of `from`, counted down once a second on `clock` (the sign-in actor's own
 * clock, so that a test's simulated clock moves the view's countdown and the machine's wait
 * together) while `running`; `restart` changes start it again from `from` (a new code was sent).
 */
export function useCountdown(
  clock: CountdownClock,
  from: number,
  running: boolean,
  restart: number,
): number {
  const [tick, setTick] = useState({ restart, elapsed: 0 })
  const elapsed = tick.restart === restart ? tick.elapsed : 0
  useEffect(() => {
    if (!running) return
    let timer: unknown
    let seconds = 0
    const next = () => {
      timer = clock.setTimeout(() => {
        seconds += 1
        setTick({ restart, elapsed: seconds })
        next()
      }, 1000)
    }
    next()
    return () => clock.clearTimeout(timer)
  }, [clock, running, restart])
  return Math.max(0, from - elapsed)
}

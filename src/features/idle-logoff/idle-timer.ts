/** The phases of the automatic logoff: active, warned (the last minute), or timed out. */
export type IdlePhase = 'active' | 'warning' | 'timedOut'

/** What {@link createIdleTimer} needs. */
export type IdleTimerOptions = {
  /** Inactivity after which the session ends. */
  timeoutMs: number
  /** How long before the end the warning shows (one minute, or half the timeout if shorter). */
  warningMs?: number
  /** The clock; `Date.now` by default (fake timers in tests replace it too). */
  now?: () => number
  /** Called whenever the phase or the seconds left change. */
  onChange: (state: IdleState) => void
}

/** The timer's state: the phase and the whole seconds left until sign-out. */
export type IdleState = { phase: IdlePhase; secondsLeft: number }

/** The one-minute warning of HIPAA's automatic logoff. */
export const IDLE_WARNING_MS = 60_000

/**
 * HIPAA automatic logoff (45 CFR 164.312(a)(2)(iii)) without React: counts down from the last
 * activity and reports the phase. It ticks once a second and compares with the clock instead of
 * one long timeout, so a computer that slept past the deadline signs out as soon as it wakes.
 * Activity during the warning does not count: only an explicit `stayActive()` (the dialog's
 * button) keeps the session, so that a stray mouse move cannot dismiss the warning unread.
 */
export function createIdleTimer({
  timeoutMs,
  warningMs = Math.min(IDLE_WARNING_MS, Math.floor(timeoutMs / 2)),
  now = Date.now,
  onChange,
}: IdleTimerOptions) {
  let lastActivity = now()
  let state: IdleState = { phase: 'active', secondsLeft: Math.ceil(timeoutMs / 1000) }
  let interval: ReturnType<typeof setInterval> | undefined

  function evaluate() {
    if (state.phase === 'timedOut') return
    const left = lastActivity + timeoutMs - now()
    const next: IdleState =
      left <= 0
        ? { phase: 'timedOut', secondsLeft: 0 }
        : { phase: left <= warningMs ? 'warning' : 'active', secondsLeft: Math.ceil(left / 1000) }
    // Only phase changes and the countdown of the warning are news; quiet otherwise.
    const changed =
      next.phase !== state.phase ||
      (next.phase === 'warning' && next.secondsLeft !== state.secondsLeft)
    state = next
    if (changed) onChange(state)
    if (state.phase === 'timedOut') stop()
  }

  function stop() {
    if (interval !== undefined) clearInterval(interval)
    interval = undefined
  }

  return {
    /** Starts ticking. */
    start() {
      stop()
      lastActivity = now()
      interval = setInterval(evaluate, 1000)
    },
    stop,
    /** The person did something: the countdown starts again, unless the warning is showing. */
    activity() {
      if (state.phase !== 'active') return
      lastActivity = now()
    },
    /** "Stay signed in": ends the warning and starts the countdown again. */
    stayActive() {
      if (state.phase === 'timedOut') return
      lastActivity = now()
      evaluate()
    },
    /** Checks the clock now (after the tab wakes up or becomes visible). */
    check: evaluate,
    get state() {
      return state
    },
  }
}

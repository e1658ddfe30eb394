import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createIdleTimer, type IdleState } from './idle-timer.ts'

const MINUTE = 60_000

describe('the idle timer', () => {
  let changes: IdleState[]
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-06-01T09:00:00Z') })
    changes = []
  })
  afterEach(() => vi.useRealTimers())

  const make = (timeoutMs = 15 * MINUTE) => {
    const timer = createIdleTimer({ timeoutMs, onChange: (state) => changes.push(state) })
    timer.start()
    return timer
  }

  it('warns one minute before the timeout, counts down, then times out', () => {
    const timer = make()
    vi.advanceTimersByTime(14 * MINUTE - 1000)
    expect(timer.state.phase).toBe('active')
    vi.advanceTimersByTime(1000)
    expect(timer.state).toEqual({ phase: 'warning', secondsLeft: 60 })
    vi.advanceTimersByTime(1000)
    expect(timer.state).toEqual({ phase: 'warning', secondsLeft: 59 })
    vi.advanceTimersByTime(59_000)
    expect(timer.state).toEqual({ phase: 'timedOut', secondsLeft: 0 })
    expect(changes.at(-1)?.phase).toBe('timedOut')
    expect(changes.filter((c) => c.phase === 'timedOut')).toHaveLength(1)
  })

  it('starts again on activity, but not once the warning shows: only "stay" ends it', () => {
    const timer = make()
    vi.advanceTimersByTime(10 * MINUTE)
    timer.activity()
    vi.advanceTimersByTime(10 * MINUTE)
    expect(timer.state.phase).toBe('active')
    vi.advanceTimersByTime(4 * MINUTE)
    expect(timer.state.phase).toBe('warning')
    timer.activity()
    vi.advanceTimersByTime(1000)
    expect(timer.state.phase).toBe('warning')
    timer.stayActive()
    expect(timer.state.phase).toBe('active')
    vi.advanceTimersByTime(14 * MINUTE - 1000)
    expect(timer.state.phase).toBe('active')
  })

  it('times out at once when the computer slept past the deadline', () => {
    const timer = make()
    // A sleeping machine runs no timers; the clock jumps when it wakes.
    vi.setSystemTime(Date.now() + 20 * MINUTE)
    timer.check()
    expect(timer.state.phase).toBe('timedOut')
  })

  it('keeps the warning to half the timeout when the timeout is short', () => {
    const timer = make(MINUTE)
    vi.advanceTimersByTime(29_000)
    expect(timer.state.phase).toBe('active')
    vi.advanceTimersByTime(1000)
    expect(timer.state).toEqual({ phase: 'warning', secondsLeft: 30 })
    timer.stop()
    vi.advanceTimersByTime(MINUTE)
    expect(timer.state.phase).toBe('warning')
  })
})

import { useEffect, useState } from 'react'

/**
 * The current time, refreshed every second while `active` (for a countdown on screen). The
 * machine owns the real wait; this only redraws the seconds left.
 */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [active])
  return now
}

import { Button, Group, Text } from '@mantine/core'
import { useEffect, useRef, useState } from 'react'
import { env } from '#src/lib/env.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { createIdleTimer, type IdleState } from './idle-timer.ts'

/** What counts as activity: pointer, keyboard, wheel, touch and scrolling. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart', 'scroll']

/** The warning's text, with the seconds left. */
export function idleWarningText(seconds: number): string {
  return `You will be signed out in ${seconds} ${seconds === 1 ? 'second' : 'seconds'} because you have been inactive.`
}

/** The warning's title and button, as the dialog shows them. */
export const IDLE_WARNING_TITLE = 'Are you still there?'
export const STAY_SIGNED_IN = 'Stay signed in'

export type IdleLogoffProps = {
  /** Minutes without activity before signing out; `VITE_IDLE_TIMEOUT_MINUTES` (default 15). */
  timeoutMinutes?: number
  /** Signs the person out (the route sends them to /logout). */
  onTimeout: () => void
}

/**
 * HIPAA automatic logoff for the signed-in shell: after `timeoutMinutes` without activity the
 * session ends; a minute before, a dialog counts down with a "Stay signed in" button.
 */
export function IdleLogoff({
  timeoutMinutes = env.VITE_IDLE_TIMEOUT_MINUTES,
  onTimeout,
}: IdleLogoffProps) {
  const [state, setState] = useState<IdleState>({ phase: 'active', secondsLeft: 0 })
  const timeoutRef = useRef(onTimeout)
  timeoutRef.current = onTimeout
  const timerRef = useRef<ReturnType<typeof createIdleTimer> | null>(null)

  useEffect(() => {
    const timer = createIdleTimer({
      timeoutMs: timeoutMinutes * 60_000,
      onChange: (next) => {
        setState(next)
        if (next.phase === 'timedOut') timeoutRef.current()
      },
    })
    timerRef.current = timer
    const onActivity = () => timer.activity()
    const onVisible = () => {
      if (document.visibilityState === 'visible') timer.check()
    }
    for (const name of ACTIVITY_EVENTS) {
      window.addEventListener(name, onActivity, { passive: true, capture: true })
    }
    document.addEventListener('visibilitychange', onVisible)
    timer.start()
    return () => {
      timer.stop()
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, onActivity, true)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [timeoutMinutes])

  return (
    <AppModal
      opened={state.phase === 'warning'}
      onClose={() => timerRef.current?.stayActive()}
      title={IDLE_WARNING_TITLE}
      centered
      closeOnClickOutside={false}
      withCloseButton={false}
    >
      <Text>{idleWarningText(state.secondsLeft)}</Text>
      <Group justify="flex-end" mt="md">
        <Button onClick={() => timerRef.current?.stayActive()} data-autofocus>
          {STAY_SIGNED_IN}
        </Button>
      </Group>
    </AppModal>
  )
}

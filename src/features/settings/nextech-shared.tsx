import { Alert, Button, Stack, Text, Title } from '@mantine/core'
import { type ReactNode, useCallback, useEffect, useState } from 'react'
import { apiErrorMessage } from '#src/lib/http.ts'

/** A list the sync's views read themselves (Admin): what the server answered, or why not. */
export type NextechList<T> = {
  /** The answer; null until the first one. */
  value: T | null
  /** Replaces the list with what an action answered. */
  setValue: (value: T) => void
  /** Why the last read failed, in words. */
  error: string | null
  /** Reads the list again. */
  retry: () => void
}

/**
 * Reads a list while `enabled`, again when `generation` changes (a sync ended, the connection
 * changed) and on "Try again". An answer that arrives after a newer read was asked for is dropped.
 */
export function useNextechList<T>(
  load: () => Promise<T>,
  generation: string,
  enabled: boolean,
): NextechList<T> {
  const [attempt, setAttempt] = useState(0)
  const [value, setValue] = useState<T | null>(null)
  const [failure, setFailure] = useState<{ request: string; message: string } | null>(null)
  const request = `${generation}/${attempt}`

  useEffect(() => {
    if (!enabled) return
    let current = true
    load().then(
      (answer) => {
        if (!current) return
        setValue(answer)
        setFailure(null)
      },
      async (caught: unknown) => {
        const message = await apiErrorMessage(caught)
        if (current) setFailure({ request, message })
      },
    )
    return () => {
      current = false
    }
  }, [load, request, enabled])

  const retry = useCallback(() => {
    setFailure(null)
    setAttempt((n) => n + 1)
  }, [])
  return { value, setValue, error: failure?.message ?? null, retry }
}

/** A part of the Integrations section under its own heading (level 3). */
export function NextechPart({
  id,
  title,
  children,
}: {
  /** The heading's id, which names the part. */
  id: string
  title: string
  children: ReactNode
}) {
  return (
    <Stack gap="sm" component="section" aria-labelledby={id}>
      <Title order={3} size="h5" id={id}>
        {title}
      </Title>
      {children}
    </Stack>
  )
}

/** A list that could not be read: the sentence, and "Try again". */
export function LoadFailure({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Alert color="red" role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{message}</Text>
        <Button variant="light" size="xs" onClick={onRetry}>
          Try again
        </Button>
      </Stack>
    </Alert>
  )
}

/** "1 bill line", "3 bill lines". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

import { Alert, Button, Stack } from '@mantine/core'
import { type ErrorComponentProps, useRouter } from '@tanstack/react-router'
import { FALLBACK_ERROR_MESSAGE } from '#src/lib/messages.ts'
import { UserFacingError } from '#src/lib/user-facing-error.ts'

/**
 * Shown where a route failed to load or render: the reason in words the user understands and a
 * way to try again. Messages of unexpected errors are not shown; they may hold internals.
 */
export function RouteError({ error }: ErrorComponentProps) {
  const router = useRouter()
  const message = error instanceof UserFacingError ? error.message : FALLBACK_ERROR_MESSAGE
  return (
    <Stack gap="sm" align="flex-start">
      <Alert color="red" role="alert" w="100%">
        {message}
      </Alert>
      <Button variant="light" onClick={() => void router.invalidate()}>
        Try again
      </Button>
    </Stack>
  )
}

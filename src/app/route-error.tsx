import { Alert, Button, Stack, Text } from '@mantine/core'
import { type ErrorComponentProps, useRouter } from '@tanstack/react-router'
import { toRole } from '#domain/permissions.ts'
import { FALLBACK_ERROR_MESSAGE } from '#src/lib/messages.ts'
import { readSession } from '#src/lib/session.ts'
import { UserFacingError } from '#src/lib/user-facing-error.ts'
import { ButtonLink } from '#src/ui/links.tsx'

/**
 * Shown where a route failed to load or render: the reason in words the user understands and a
 * way on. Messages of unexpected errors are not shown; they may hold internals. A refusal by
 * permission (403) is not offered "Try again", which cannot help: the server's sentence
 * names the role that is needed, the view says which role the user has and who can change it,
 * and leads back to the dashboard.
 */
export function RouteError({ error }: ErrorComponentProps) {
  const router = useRouter()
  const message = error instanceof UserFacingError ? error.message : FALLBACK_ERROR_MESSAGE
  if (error instanceof UserFacingError && error.status === 403) {
    const session = readSession()
    return (
      <Stack gap="sm" align="flex-start">
        <Alert color="red" role="alert" w="100%">
          {message}
        </Alert>
        {session && (
          <Text size="sm">
            Your role in this practice is {toRole(session.user.access_rights)}. An admin of your
            practice can change it in Personnel.
          </Text>
        )}
        <ButtonLink to="/dashboard" variant="light">
          Back to the dashboard
        </ButtonLink>
      </Stack>
    )
  }
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

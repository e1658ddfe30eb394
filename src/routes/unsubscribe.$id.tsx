import { Alert, Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { unsubscribePatient } from '#src/api/patients.ts'
import { UnsubscribePending } from '#src/features/unsubscribe/unsubscribe-pending.tsx'
import { apiErrorMessage } from '#src/lib/http.ts'
import { PublicPage } from '#src/ui/public-page.tsx'

const INVALID_LINK = 'This unsubscribe link is not valid or has expired.'

type Outcome = { ok: true } | { ok: false; message: string }

export const Route = createFileRoute('/unsubscribe/$id')({
  // Opening the link is the action (spec section 2); the outcome is data, never a blank page.
  loader: async ({ params }): Promise<Outcome> => {
    try {
      await unsubscribePatient(params.id)
      return { ok: true }
    } catch (error) {
      const status = error instanceof HTTPError ? error.response.status : 0
      if (status === 404 || status === 400) return { ok: false, message: INVALID_LINK }
      return { ok: false, message: await apiErrorMessage(error) }
    }
  },
  // The call is not repeated when the page is revisited within the session.
  staleTime: Number.POSITIVE_INFINITY,
  pendingComponent: () => <UnsubscribePending />,
  component: UnsubscribePage,
})

function UnsubscribePage() {
  const outcome = Route.useLoaderData()
  if (outcome.ok) {
    return (
      <PublicPage title="Unsubscribe">
        <Alert color="green" role="status">
          You are successfully unsubscribed!
        </Alert>
        <Text ta="center">You will no longer receive marketing e-mails from this practice.</Text>
      </PublicPage>
    )
  }
  return (
    <PublicPage title="Unsubscribe">
      <Alert color="red" role="alert">
        {outcome.message}
      </Alert>
      <Text ta="center">
        If you keep receiving e-mails you did not ask for, contact the practice that sent them.
      </Text>
    </PublicPage>
  )
}

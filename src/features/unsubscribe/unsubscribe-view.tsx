import { Alert, Group, Loader, Text } from '@mantine/core'
import { PublicPage } from '#src/ui/public-page.tsx'

/** What opening an unsubscribe link came to; `null` while the call is under way. */
export type UnsubscribeOutcome = { ok: true } | { ok: false; message: string } | null

/**
 * /unsubscribe/:id (spec section 2): the page's text first, then the outcome of the call in one
 * status line below it. The build prerenders it with `outcome` null as the page's first paint,
 * before the app has loaded; the app renders the same layout at once and fills the status line
 * when the call answers, so nothing on screen moves and the largest text is painted with the
 * first paint (issue 18: Lighthouse mobile performance 95 with applied throttling).
 */
export function UnsubscribeView({ outcome }: { outcome: UnsubscribeOutcome }) {
  return (
    <PublicPage title="Unsubscribe">
      <Text ta="center">
        This link stops the marketing e-mails of the practice that sent it: its offers, points
        reminders and points statements.
      </Text>
      {outcome === null ? (
        <Alert color="gray" role="status">
          <Group gap="xs" justify="center" wrap="nowrap">
            <Loader size="xs" aria-hidden />
            <span>Please wait...</span>
          </Group>
        </Alert>
      ) : outcome.ok ? (
        <Alert color="green" role="status">
          You are successfully unsubscribed!
        </Alert>
      ) : (
        <Alert color="red" role="alert">
          {outcome.message}
        </Alert>
      )}
      {outcome?.ok === true && (
        <Text ta="center" size="sm">
          You will no longer receive marketing e-mails from this practice.
        </Text>
      )}
      {outcome?.ok === false && (
        <Text ta="center" size="sm">
          If you keep receiving e-mails you did not ask for, contact the practice that sent them.
        </Text>
      )}
    </PublicPage>
  )
}

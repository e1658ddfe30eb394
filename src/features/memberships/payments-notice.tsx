import { Alert, Text } from '@mantine/core'
import { MEMBERSHIP_MESSAGES } from '#domain/memberships.ts'
import { AnchorLink } from '#src/ui/links.tsx'

/**
 * Says that patients cannot join a plan until payments are connected; an Admin gets the way to
 * Settings → Payments, everyone else the sentence naming who can.
 */
export function PaymentsNotConnected({ canConnect }: { canConnect: boolean }) {
  return (
    <Alert color="orange" title="Patients cannot join a plan yet">
      <Text size="sm">{MEMBERSHIP_MESSAGES.notConnected}</Text>
      {canConnect && (
        <AnchorLink to="/settings" hash="payments" size="sm" fw={600}>
          Open Settings → Payments
        </AnchorLink>
      )}
    </Alert>
  )
}

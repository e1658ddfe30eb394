import { Group, Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { ButtonLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

export const Route = createFileRoute('/404')({
  component: NotFoundPage,
})

function NotFoundPage() {
  return (
    <PublicPage title="Page not found">
      <Text ta="center">
        The page you are looking for does not exist or has moved. Check the address, or go back to a
        page you know.
      </Text>
      <Group justify="center" gap="sm">
        <ButtonLink to="/dashboard">Go to Dashboard</ButtonLink>
        <ButtonLink to="/signin" variant="subtle">
          Sign In
        </ButtonLink>
      </Group>
    </PublicPage>
  )
}

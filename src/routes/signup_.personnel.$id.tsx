import { Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { AnchorLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

// The registration form for invited personnel replaces this page (issue 5).
export const Route = createFileRoute('/signup_/personnel/$id')({
  component: RegistrationPage,
})

function RegistrationPage() {
  return (
    <PublicPage title="Registration">
      <Text ta="center">Registration for invited personnel is coming soon.</Text>
      <AnchorLink to="/signin" ta="center">
        Back to Sign In
      </AnchorLink>
    </PublicPage>
  )
}

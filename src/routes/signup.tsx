import { Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { AnchorLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

// The four-step wizard replaces this page (issue 4).
export const Route = createFileRoute('/signup')({
  component: SignUpPage,
})

function SignUpPage() {
  return (
    <PublicPage title="Sign Up">
      <Text ta="center">Online sign-up for new practices is coming soon.</Text>
      <AnchorLink to="/signin" ta="center">
        Back to Sign In
      </AnchorLink>
    </PublicPage>
  )
}

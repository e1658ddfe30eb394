import { List, Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { ButtonLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

export const Route = createFileRoute('/thankyou')({
  component: ThankYouPage,
})

function ThankYouPage() {
  return (
    <PublicPage title="Congratulations!">
      <Text>Your practice is signed up. Here is what happens next:</Text>
      <List type="ordered" spacing="sm">
        <List.Item>Check your email to see whether your account is set up.</List.Item>
        <List.Item>Log in to your new admin portal.</List.Item>
        <List.Item>Get excited: your rewards programme is on its way!</List.Item>
      </List>
      <ButtonLink to="/signin" fullWidth>
        Back to Sign In
      </ButtonLink>
    </PublicPage>
  )
}

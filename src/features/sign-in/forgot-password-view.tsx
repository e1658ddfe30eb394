import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { AUTH_MESSAGES, type ForgotPasswordForm, ForgotPasswordFormSchema } from '#domain/auth.ts'
import { webmailFor } from '#domain/webmail.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { EmailField } from '#src/ui/form-fields.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import type { SendSignInScreenEvent, SignInScreenView } from './sign-in-screen-view.ts'

/**
 * The Forgot Password view: Email, Reset and Cancel; once the link is on its way,
 * 'We have sent the link to your email' with Check email (the inbox of a known webmail; no
 * button for other domains) and a way back to Sign In.
 */
export function ForgotPasswordView({
  view,
  send,
}: {
  view: SignInScreenView
  send: SendSignInScreenEvent
}) {
  const { sent, busy: sending, error } = view

  const form = useForm<ForgotPasswordForm>({
    mode: 'uncontrolled',
    initialValues: { email: '' },
    validate: schemaResolver(ForgotPasswordFormSchema, { sync: true }),
    validateInputOnBlur: true,
  })

  const back = () => send({ type: 'link.back' })

  if (sent) {
    const webmail = webmailFor(form.getValues().email)
    return (
      <PublicPage title={AUTH_MESSAGES.forgotPasswordSent}>
        <Alert color="green" role="status">
          {AUTH_MESSAGES.forgotPasswordSuccess}
        </Alert>
        <Text size="sm" ta="center">
          The link works for one hour. If no e-mail arrives, check your spam folder.
        </Text>
        {webmail && (
          <Button component="a" href={webmail} target="_blank" rel="noopener noreferrer" fullWidth>
            Check email
          </Button>
        )}
        <Anchor component="button" type="button" size="sm" ta="center" onClick={back}>
          Back to Sign In
        </Anchor>
      </PublicPage>
    )
  }

  return (
    <PublicPage title="Forgot Password">
      <Text size="sm" ta="center">
        Enter the e-mail of your account and we will send you a link to choose a new password.
      </Text>
      <FailureAlert>{error}</FailureAlert>
      <form
        noValidate
        onSubmit={form.onSubmit((input) => send({ type: 'forgotForm.submit', input }))}
      >
        <Stack gap="md">
          <EmailField
            autoComplete="email"
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <Group grow>
            <Button variant="default" type="button" onClick={back} disabled={sending}>
              Cancel
            </Button>
            <Button type="submit" loading={sending}>
              Reset
            </Button>
          </Group>
        </Stack>
      </form>
    </PublicPage>
  )
}

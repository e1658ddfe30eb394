import { Alert, Anchor, Button, Checkbox, Group, Stack, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useEffect, useRef } from 'react'
import { type SignInForm, SignInFormSchema } from '#domain/auth.ts'
import { CaptchaField } from '#src/ui/captcha-field.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { EmailField } from '#src/ui/form-fields.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import type { SendSignInScreenEvent, SignInScreenView } from './sign-in-screen-view.ts'

/** Props of {@link SignInView}. */
export type SignInViewProps = {
  /** What the machine's state says to show. */
  view: SignInScreenView
  send: SendSignInScreenEvent
  /** The hCaptcha site key; the widget shows only when the machine requires a captcha. */
  captchaSiteKey?: string | undefined
  /** An e-mail to start with (the person who just registered); the password then has the focus. */
  initialEmail?: string | null | undefined
}

/**
 * The Sign In view: Email, Password with an eye toggle, Remember me, Forgot
 * Password, the captcha when it is on, Sign In and the way to Sign Up; banners for the
 * personnel sign-up success, an outdated reset link and a failed sign-in.
 */
export function SignInView({ view, send, captchaSiteKey, initialEmail }: SignInViewProps) {
  const { busy: submitting, notice, error, captchaRequired, captchaError, attempts } = view

  const form = useForm<SignInForm>({
    mode: 'uncontrolled',
    initialValues: { email: initialEmail ?? '', password: '', remember: false },
    validate: schemaResolver(SignInFormSchema, { sync: true }),
    validateInputOnBlur: true,
  })
  // Who just registered signs in with the e-mail they registered with: only the password is left.
  const focusPassword = useRef(Boolean(initialEmail))
  useEffect(() => {
    if (focusPassword.current) form.getInputNode('password')?.focus()
    focusPassword.current = false
  }, [form])

  return (
    <PublicPage title="Sign In">
      {notice && (
        <Alert color="green" role="status">
          {notice}
        </Alert>
      )}
      <FailureAlert>{error}</FailureAlert>
      <form
        noValidate
        onSubmit={form.onSubmit((input) => send({ type: 'signInForm.submit', input }))}
      >
        <Stack gap="md">
          <EmailField
            autoComplete="username"
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <PasswordField
            label="Password"
            autoComplete="current-password"
            withAsterisk
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Checkbox
              label="Remember me"
              key={form.key('remember')}
              {...form.getInputProps('remember', { type: 'checkbox' })}
            />
            <Anchor
              component="button"
              type="button"
              size="sm"
              onClick={() => send({ type: 'link.forgot' })}
              disabled={submitting}
            >
              Forgot Password
            </Anchor>
          </Group>
          {captchaRequired && captchaSiteKey && (
            <CaptchaField
              // A token works once: after a failed attempt the widget starts over.
              key={attempts}
              siteKey={captchaSiteKey}
              error={captchaError}
              onVerify={(token) => send({ type: 'captcha.verified', token })}
              onExpire={() => send({ type: 'captcha.expired' })}
            />
          )}
          <Button type="submit" fullWidth loading={submitting}>
            Sign In
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center">
        New practice?{' '}
        <AnchorLink to="/signup" fw={600}>
          Sign Up
        </AnchorLink>
      </Text>
    </PublicPage>
  )
}

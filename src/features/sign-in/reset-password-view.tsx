import { Button, Stack } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { type ResetPasswordForm, ResetPasswordFormSchema } from '#domain/reset-password.ts'
import { PasswordField } from '#src/ui/password-field.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import type { SignInScreenActorRef } from './sign-in-view.tsx'

/**
 * The Reset Password view: 'Please enter a new password!', New password and
 * Confirm password each with a show/hide toggle, and 'Reset and Sign In'.
 */
export function ResetPasswordView({ actorRef }: { actorRef: SignInScreenActorRef }) {
  const submitting = useSelector(actorRef, (s) => s.matches({ resetPassword: 'submitting' }))

  const form = useForm<ResetPasswordForm>({
    mode: 'uncontrolled',
    initialValues: { password: '', confirm_password: '' },
    validate: schemaResolver(ResetPasswordFormSchema, { sync: true }),
    validateInputOnBlur: true,
  })

  return (
    <PublicPage title="Please enter a new password!">
      <form
        noValidate
        onSubmit={form.onSubmit((input) => actorRef.send({ type: 'resetForm.submit', input }))}
      >
        <Stack gap="md">
          <PasswordField
            label="New password"
            description="At least 8 characters."
            autoComplete="new-password"
            withAsterisk
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <PasswordField
            label="Confirm password"
            autoComplete="new-password"
            withAsterisk
            key={form.key('confirm_password')}
            {...form.getInputProps('confirm_password')}
          />
          <Button type="submit" fullWidth loading={submitting}>
            Reset and Sign In
          </Button>
        </Stack>
      </form>
    </PublicPage>
  )
}

import { Button, Stack } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { type ResetPasswordForm, ResetPasswordFormSchema } from '#domain/reset-password.ts'
import { FormFields, type PasswordFieldSpec } from '#src/ui/form-fields.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import type { SendSignInScreenEvent, SignInScreenView } from './sign-in-screen-view.ts'

const PASSWORD_FIELDS: PasswordFieldSpec<keyof ResetPasswordForm>[] = [
  { path: 'password', label: 'New password', description: 'At least 8 characters.' },
  { path: 'confirm_password', label: 'Confirm password' },
]

/**
 * The Reset Password view: 'Please enter a new password!', New password and
 * Confirm password each with a show/hide toggle, and 'Reset and Sign In'.
 */
export function ResetPasswordView({
  view,
  send,
}: {
  view: SignInScreenView
  send: SendSignInScreenEvent
}) {
  const submitting = view.busy

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
        onSubmit={form.onSubmit((input) => send({ type: 'resetForm.submit', input }))}
      >
        <Stack gap="md">
          <FormFields
            form={form}
            component={PasswordField}
            common={{ autoComplete: 'new-password', withAsterisk: true }}
            fields={PASSWORD_FIELDS}
          />
          <Button type="submit" fullWidth loading={submitting}>
            Reset and Sign In
          </Button>
        </Stack>
      </form>
    </PublicPage>
  )
}

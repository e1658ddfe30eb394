import { Alert, Button, Group, Paper, PasswordInput, Stack, Title } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import {
  type ChangePasswordPayload,
  ChangePasswordPayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'

type Values = Omit<ChangePasswordPayload, 'remember'>

/**
 * My Profile's "Change password": the current password, then the new one twice with
 * the strong rule of sign-up and registration. A refusal keeps what was typed; a
 * success empties the form and says that every
 * other session has ended.
 */
export function ChangePasswordForm({
  onSave,
}: {
  /** Changes the password; answers the refusal to show, or nothing when it changed. */
  onSave: (values: Values) => Promise<string | undefined>
}) {
  const [saving, setSaving] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null)
  const form = useForm<Values>({
    mode: 'uncontrolled',
    initialValues: { current_password: '', password: '', passwordConfirmation: '' },
    validate: schemaResolver(ChangePasswordPayloadSchema, { sync: true }),
  })
  return (
    <Paper withBorder p="lg" radius="md">
      <form
        noValidate
        aria-labelledby="change-password-title"
        onSubmit={form.onSubmit(async (values) => {
          setSaving(true)
          setOutcome(null)
          const failure = await onSave(values)
          setSaving(false)
          if (failure) setOutcome({ ok: false, message: failure })
          else {
            form.reset()
            setOutcome({ ok: true, message: SELF_SERVICE_MESSAGES.passwordChanged })
          }
        })}
      >
        <Stack gap="md">
          <Title order={2} size="h4" id="change-password-title">
            Change password
          </Title>
          {outcome && (
            <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
              {outcome.message}
            </Alert>
          )}
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            key={form.key('current_password')}
            {...form.getInputProps('current_password')}
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters, with lowercase and uppercase letters and numbers; not a common password."
            autoComplete="new-password"
            required
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            required
            key={form.key('passwordConfirmation')}
            {...form.getInputProps('passwordConfirmation')}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={saving}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  )
}

import { PasswordInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import {
  type ChangePasswordPayload,
  ChangePasswordPayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import { FormFields, type PasswordFieldSpec } from '#src/ui/form-fields.tsx'
import { SaveButton, SaveOutcomeAlert, useSaveOutcome } from '#src/ui/save-outcome.tsx'
import { FormCard } from '#src/ui/section-card.tsx'

type Values = Omit<ChangePasswordPayload, 'remember'>

const PASSWORD_FIELDS: PasswordFieldSpec<keyof Values>[] = [
  { path: 'current_password', label: 'Current password', autoComplete: 'current-password' },
  {
    path: 'password',
    label: 'New password',
    description:
      'At least 8 characters, with lowercase and uppercase letters and numbers; not a common password.',
    autoComplete: 'new-password',
  },
  { path: 'passwordConfirmation', label: 'Confirm new password', autoComplete: 'new-password' },
]

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
  const { saving, outcome, save } = useSaveOutcome()
  const form = useForm<Values>({
    mode: 'uncontrolled',
    initialValues: { current_password: '', password: '', passwordConfirmation: '' },
    validate: schemaResolver(ChangePasswordPayloadSchema, { sync: true }),
  })
  return (
    <FormCard
      id="change-password-title"
      title="Change password"
      onSubmit={form.onSubmit((values) =>
        save(() => onSave(values), SELF_SERVICE_MESSAGES.passwordChanged, form.reset),
      )}
    >
      <SaveOutcomeAlert outcome={outcome} />
      <FormFields
        form={form}
        component={PasswordInput}
        common={{ required: true }}
        fields={PASSWORD_FIELDS}
      />
      <SaveButton saving={saving}>Change password</SaveButton>
    </FormCard>
  )
}

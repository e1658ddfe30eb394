import { Select, SimpleGrid, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { TITLES } from '#domain/fields.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import {
  type ProfileUpdatePayload,
  ProfileUpdatePayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import { FormFields, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { SaveButton, SaveOutcomeAlert, useSaveOutcome } from '#src/ui/save-outcome.tsx'
import { FormCard } from '#src/ui/section-card.tsx'

/** First and last name, as the browser may fill them in for the signed-in user. */
const NAME_FIELDS: TextFieldSpec<keyof ProfileUpdatePayload>[] = [
  { path: 'first_name', label: 'First name', autoComplete: 'given-name' },
  { path: 'last_name', label: 'Last name', autoComplete: 'family-name' },
]

/**
 * My Profile's own details: title, first and last name with the sign-up's rules. A
 * refusal keeps what was typed.
 */
export function ProfileForm({
  member,
  onSave,
}: {
  member: StaffMember
  /** Saves the details; answers the refusal to show, or nothing when saved. */
  onSave: (values: ProfileUpdatePayload) => Promise<string | undefined>
}) {
  const { saving, outcome, save } = useSaveOutcome()
  const form = useForm<ProfileUpdatePayload>({
    mode: 'uncontrolled',
    initialValues: {
      title: member.title ?? '',
      first_name: member.first_name,
      last_name: member.last_name,
    },
    validate: schemaResolver(ProfileUpdatePayloadSchema, { sync: true }),
    validateInputOnBlur: true,
  })
  return (
    <FormCard
      id="profile-form-title"
      title="Your details"
      onSubmit={form.onSubmit((values) =>
        save(() => onSave(values), SELF_SERVICE_MESSAGES.profileSaved),
      )}
    >
      <SaveOutcomeAlert outcome={outcome} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <Select
          label="Title"
          placeholder="No title"
          data={[...TITLES]}
          clearable
          key={form.key('title')}
          {...form.getInputProps('title')}
          onChange={(value) => form.setFieldValue('title', value ?? '')}
        />
        <FormFields
          form={form}
          component={TextInput}
          common={{ required: true }}
          fields={NAME_FIELDS}
        />
      </SimpleGrid>
      <SaveButton saving={saving}>Save details</SaveButton>
    </FormCard>
  )
}

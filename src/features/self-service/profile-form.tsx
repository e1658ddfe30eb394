import { Paper, Select, SimpleGrid, Stack, TextInput, Title } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { TITLES } from '#domain/fields.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import {
  type ProfileUpdatePayload,
  ProfileUpdatePayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import { SaveButton, SaveOutcomeAlert, useSaveOutcome } from '#src/ui/save-outcome.tsx'

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
    <Paper withBorder p="lg" radius="md">
      <form
        noValidate
        aria-labelledby="profile-form-title"
        onSubmit={form.onSubmit((values) =>
          save(() => onSave(values), SELF_SERVICE_MESSAGES.profileSaved),
        )}
      >
        <Stack gap="md">
          <Title order={2} size="h4" id="profile-form-title">
            Your details
          </Title>
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
            <TextInput
              label="First name"
              required
              autoComplete="given-name"
              key={form.key('first_name')}
              {...form.getInputProps('first_name')}
            />
            <TextInput
              label="Last name"
              required
              autoComplete="family-name"
              key={form.key('last_name')}
              {...form.getInputProps('last_name')}
            />
          </SimpleGrid>
          <SaveButton saving={saving}>Save details</SaveButton>
        </Stack>
      </form>
    </Paper>
  )
}

import {
  Alert,
  Button,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import { TITLES } from '#domain/fields.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import {
  type ProfileUpdatePayload,
  ProfileUpdatePayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'

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
  const [saving, setSaving] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null)
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
        onSubmit={form.onSubmit(async (values) => {
          setSaving(true)
          setOutcome(null)
          const failure = await onSave(values)
          setSaving(false)
          setOutcome(
            failure
              ? { ok: false, message: failure }
              : { ok: true, message: SELF_SERVICE_MESSAGES.profileSaved },
          )
        })}
      >
        <Stack gap="md">
          <Title order={2} size="h4" id="profile-form-title">
            Your details
          </Title>
          {outcome && (
            <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
              {outcome.message}
            </Alert>
          )}
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
          <Group justify="flex-end">
            <Button type="submit" loading={saving}>
              Save details
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  )
}

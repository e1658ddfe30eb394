import { SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useMemo, useState } from 'react'
import { formatPhone } from '#domain/phone.ts'
import {
  PRACTICE_SETTINGS_MESSAGES,
  type PracticeAnswer,
  type PracticeSettingsInput,
  practiceFormValues,
  practiceSettingsSchema,
} from '#domain/practice-settings.ts'
import { COUNTRIES, type CountryCode, regionsFor } from '#domain/regions.ts'
import { env } from '#src/lib/env.ts'
import { FormFields, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { PracticeDetailsFields } from '#src/ui/practice-details-fields.tsx'
import { SaveButton, SaveOutcomeAlert, useSaveOutcome } from '#src/ui/save-outcome.tsx'
import { SectionCard } from '#src/ui/section-card.tsx'

/** What a refused save says: the sentence, and each field's own message. */
export type PracticeSaveFailure = { message: string; fields: Record<string, string> }

/** The footer links whose hint is fixed (Support's names the configured address). */
const FOOTER_LINK_FIELDS: TextFieldSpec<'footer_links.about' | 'footer_links.privacy'>[] = [
  {
    path: 'footer_links.about',
    label: 'About link',
    placeholder: 'https://www.your-practice.com/about',
    inputMode: 'url',
    description: 'Empty: the Glow Rewards About page',
  },
  {
    path: 'footer_links.privacy',
    label: 'Privacy link',
    placeholder: 'https://www.your-practice.com/privacy',
    inputMode: 'url',
    description: 'Empty: the privacy section of the Terms',
  },
]

/** A detail as read by those who may not change it; an empty one shows a dash. */
function Row({ label, value }: { label: string; value: string }) {
  return <LabelledValue label={label} value={value || '—'} />
}

/**
 * The practice's details in Settings: for an Admin, a form with the sign-up wizard's
 * fields, rules and messages, the Nextech fields (username and password write-only) and the
 * footer links; a refused save keeps what was typed and shows each message on its field. Everyone
 * else reads the details, with who can change them.
 */
export function PracticeDetailsSection({
  practice,
  canChange,
  onSave,
}: {
  practice: PracticeAnswer
  canChange: boolean
  /** Saves; resolves with the saved practice, or the refusal to show. */
  onSave: (values: PracticeSettingsInput) => Promise<PracticeAnswer | PracticeSaveFailure>
}) {
  return (
    <SectionCard id="practice-details" title="Practice details">
      {canChange ? (
        <PracticeForm practice={practice} onSave={onSave} />
      ) : (
        <PracticeView practice={practice} />
      )}
    </SectionCard>
  )
}

function PracticeView({ practice }: { practice: PracticeAnswer }) {
  const address = [
    practice.practice_address,
    practice.practice_address_2,
    [practice.city, practice.state, practice.practice_zip].filter(Boolean).join(' '),
    COUNTRIES.find((country) => country.code === practice.country)?.name ?? '',
  ]
    .filter(Boolean)
    .join(', ')
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <Row label="Practice name" value={practice.practice_name} />
        <Row label="Office name" value={practice.office_name} />
        <Row label="Website" value={practice.url} />
        <Row label="Practice phone" value={formatPhone(practice.practice_phone)} />
        <Row label="Practice email" value={practice.practice_email} />
        <Row label="Address" value={address} />
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        Only an admin can change the practice details.
      </Text>
    </>
  )
}

function PracticeForm({
  practice,
  onSave,
}: {
  practice: PracticeAnswer
  onSave: (values: PracticeSettingsInput) => Promise<PracticeAnswer | PracticeSaveFailure>
}) {
  const [stored, setStored] = useState(() => ({
    username: practice.nextech?.username_set ?? false,
    password: practice.nextech?.password_set ?? false,
  }))
  const schema = useMemo(() => practiceSettingsSchema(stored), [stored])
  const form = useForm<PracticeSettingsInput>({
    mode: 'controlled',
    initialValues: practiceFormValues(practice),
    validate: schemaResolver(schema, { sync: true }),
    validateInputOnBlur: true,
  })
  const { saving, outcome, save } = useSaveOutcome()
  const supportDefault = env.VITE_SUPPORT_EMAIL

  return (
    <form
      noValidate
      aria-label="Practice details"
      onSubmit={form.onSubmit((values) =>
        save(async () => {
          const answer = await onSave(values)
          if ('message' in answer) {
            // Everything typed stays; each refusal shows on its field.
            form.setErrors(answer.fields)
            return answer.message
          }
          setStored({
            username: answer.nextech?.username_set ?? false,
            password: answer.nextech?.password_set ?? false,
          })
          const next = practiceFormValues(answer)
          form.setValues(next)
          form.resetDirty(next)
          return undefined
        }, PRACTICE_SETTINGS_MESSAGES.saved),
      )}
    >
      <Stack gap="md">
        <PracticeDetailsFields
          form={form}
          regions={regionsFor(form.values.country as CountryCode)}
          storedCredentials={stored}
        />
        <Stack gap="xs">
          <Title order={3} size="h5">
            Footer links
          </Title>
          <Text size="sm" c="dimmed">
            Where the links at the foot of every page lead. Leave a link empty to open the Glow
            Rewards page instead.
          </Text>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <FormFields
            form={form}
            fields={[
              ...FOOTER_LINK_FIELDS,
              {
                path: 'footer_links.support',
                label: 'Support link or e-mail',
                placeholder: 'help@your-practice.com',
                description: `Empty: ${supportDefault}`,
              },
            ]}
          />
        </SimpleGrid>
        <SaveOutcomeAlert outcome={outcome} />
        <SaveButton saving={saving}>Save practice details</SaveButton>
      </Stack>
    </form>
  )
}

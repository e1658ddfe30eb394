import { NumberInput, SimpleGrid, Stack, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { type ProgrammeRules, ProgrammeRulesSchema } from '#domain/ledger.ts'
import { pointsText } from '#domain/points.ts'
import { formatCents } from '#src/lib/format.ts'
import { SaveButton, SaveOutcomeAlert, useSaveOutcome } from '#src/ui/save-outcome.tsx'
import { SectionCard } from '#src/ui/section-card.tsx'

/** Each rule: its label, the hint under it, and how a read-only view says its value. */
const FIELDS: {
  key: keyof ProgrammeRules
  label: string
  description: string
  show: (value: number) => string
}[] = [
  {
    key: 'point_value_cents',
    label: 'Point value (cents)',
    description: 'What one point is worth when redeemed.',
    show: (cents) => `${cents} ¢ (100 points = ${formatCents(cents * 100)})`,
  },
  {
    key: 'points_per_dollar',
    label: 'Points per dollar',
    description: 'For procedures and products without their own points.',
    show: (n) => `${n} per dollar`,
  },
  {
    key: 'joining_bonus',
    label: 'Joining bonus (points)',
    description: 'Given once to each patient added from now on.',
    show: (n) => (n === 0 ? 'None' : pointsText(n)),
  },
  {
    key: 'referral_bonus',
    label: 'Referral bonus (points)',
    description: 'Given once per patient referred, when their first Nextech bill earns.',
    show: (n) => (n === 0 ? 'None' : pointsText(n)),
  },
  {
    key: 'expiry_months',
    label: 'Points expire after (months)',
    description: '0 means never. Points already earned keep their date.',
    show: (n) => (n === 0 ? 'Never' : `${n} months`),
  },
  {
    key: 'redemption_code_threshold',
    label: "Ask for the patient's code above (points)",
    description: '0 means always ask.',
    show: (n) => (n === 0 ? 'Always' : pointsText(n)),
  },
  {
    key: 'max_points_per_line',
    label: "Most points a line earns without a manager's approval",
    description: 'A line of a visit above this, or priced above the catalogue, needs approval.',
    show: (n) => pointsText(n),
  },
]

/**
 * The programme rules in Settings: a form for an Admin (a refused save keeps what was typed and
 * says why), the values in words for everyone else, with who can change them.
 */
export function ProgrammeRulesSection({
  rules,
  canChange,
  onSave,
}: {
  rules: ProgrammeRules
  canChange: boolean
  /** Saves; resolves with the sentence of a failure, or nothing when saved. */
  onSave: (rules: ProgrammeRules) => Promise<string | undefined>
}) {
  return (
    <SectionCard id="programme-rules" title="Programme rules">
      {canChange ? (
        <RulesForm rules={rules} onSave={onSave} />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            {FIELDS.map((field) => (
              <Stack gap={2} key={field.key}>
                <Text size="sm" c="dimmed">
                  {field.label}
                </Text>
                <Text fw={500}>{field.show(rules[field.key])}</Text>
              </Stack>
            ))}
          </SimpleGrid>
          <Text size="sm" c="dimmed">
            Only an admin can change the programme rules.
          </Text>
        </>
      )}
    </SectionCard>
  )
}

function RulesForm({
  rules,
  onSave,
}: {
  rules: ProgrammeRules
  onSave: (rules: ProgrammeRules) => Promise<string | undefined>
}) {
  // A field emptied by the person holds '' until they type again; the rules refuse it by name.
  const form = useForm<Record<keyof ProgrammeRules, number | ''>>({
    mode: 'controlled',
    initialValues: rules,
    validate: schemaResolver(ProgrammeRulesSchema),
    validateInputOnBlur: true,
  })
  const { saving, outcome, save } = useSaveOutcome()
  return (
    <form
      noValidate
      aria-label="Programme rules"
      onSubmit={form.onSubmit((values) =>
        save(
          // The resolver let them through: every value is a number.
          () => onSave(values as ProgrammeRules),
          'Programme rules saved. They apply from now on.',
          () => form.resetDirty(values),
        ),
      )}
    >
      <Stack gap="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          {FIELDS.map((field) => (
            <NumberInput
              key={field.key}
              label={field.label}
              description={field.description}
              // Typed as typed: −5 or 1.5 stays in the field with the rule's sentence under it,
              // never silently turned into 5 or 1 (nor clamped to 0 on leaving the field).
              allowDecimal
              allowNegative
              clampBehavior="none"
              {...form.getInputProps(field.key)}
            />
          ))}
        </SimpleGrid>
        <SaveOutcomeAlert outcome={outcome} />
        <SaveButton saving={saving} disabled={!form.isDirty()}>
          Save rules
        </SaveButton>
      </Stack>
    </form>
  )
}

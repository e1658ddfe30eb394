import {
  Alert,
  Button,
  Group,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import { type ProgrammeRules, ProgrammeRulesSchema } from '#domain/ledger.ts'
import { pointsText } from '#domain/points.ts'
import { formatCents } from '#src/lib/format.ts'

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
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="programme-rules">
      <Stack gap="md">
        <Title order={2} size="h4" id="programme-rules">
          Programme rules
        </Title>
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
      </Stack>
    </Paper>
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
  const [saving, setSaving] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null)
  return (
    <form
      noValidate
      aria-label="Programme rules"
      onSubmit={form.onSubmit(async (values) => {
        setSaving(true)
        setOutcome(null)
        // The resolver let them through: every value is a number.
        const failure = await onSave(values as ProgrammeRules)
        setSaving(false)
        if (failure) setOutcome({ ok: false, message: failure })
        else {
          form.resetDirty(values)
          setOutcome({ ok: true, message: 'Programme rules saved. They apply from now on.' })
        }
      })}
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
        {outcome && (
          <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
            {outcome.message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={saving} disabled={!form.isDirty()}>
            Save rules
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

import { Button, Checkbox, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useRef, useState } from 'react'
import { MEMBERSHIP_MESSAGES, type Membership, money, type Plan } from '#domain/memberships.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import {
  CardEntry,
  type CardEntryValues,
  cardErrors,
  cardInput,
  EMPTY_CARD,
} from './card-entry.tsx'
import { agreementText, firstCharge, perksSummary, planOffer } from './membership-texts.ts'
import type { MembershipCalls, StripeCardFields } from './memberships.actors.ts'

type EnrolValues = CardEntryValues & {
  plan_id: string
  accepted: boolean
  accepted_by_name: string
}

/** A key made once per enrolment form, so a double click or a retry enrols once. */
const newKey = () => `enrol-${crypto.randomUUID()}`

/**
 * Starts a membership: the plan (price, cadence, setup fee), the patient's card, the agreement in
 * full with the patient's express consent to automatic renewal and their name as they accepted
 * it, then the first charge. A declined card says why in the form and keeps everything entered.
 */
export function EnrolForm({
  patientId,
  patientName,
  plans,
  treatmentNames,
  calls,
  onCancel,
  onEnrolled,
}: {
  patientId: number
  patientName: string
  plans: readonly Plan[]
  treatmentNames: ReadonlyMap<number, string>
  calls: MembershipCalls
  onCancel: () => void
  onEnrolled: (membership: Membership) => void
}) {
  // One key for this form: a second click of "Charge and start" is the same enrolment.
  const [key, setKey] = useState(newKey)
  const fields = useRef<StripeCardFields | null>(null)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<EnrolValues>({
    mode: 'controlled',
    initialValues: {
      ...EMPTY_CARD,
      name: patientName,
      plan_id: plans.length === 1 && plans[0] ? String(plans[0].id) : '',
      accepted: false,
      accepted_by_name: patientName,
    },
    validate: (values) => ({
      ...cardErrors(calls.mode, values),
      ...(values.plan_id ? {} : { plan_id: 'Please choose a plan.' }),
      ...(values.accepted ? {} : { accepted: MEMBERSHIP_MESSAGES.consentRequired }),
      ...(values.accepted_by_name.trim()
        ? {}
        : { accepted_by_name: MEMBERSHIP_MESSAGES.acceptedByRequired }),
    }),
    validateInputOnBlur: true,
  })
  const plan = plans.find((p) => String(p.id) === form.values.plan_id)
  const inputProps = (path: keyof EnrolValues) => ({
    ...form.getInputProps(path),
    errorProps: { role: 'alert' },
  })
  return (
    <form
      noValidate
      aria-label="Start membership"
      onSubmit={form.onSubmit(async (values) => {
        if (busy) return
        setBusy(true)
        setFailure(null)
        const answer = await calls.enrol(patientId, {
          plan_id: Number(values.plan_id),
          card: cardInput(values),
          fields: fields.current,
          accepted_by_name: values.accepted_by_name.trim(),
          idempotencyKey: key,
        })
        setBusy(false)
        if (answer.ok) {
          onEnrolled(answer.value)
          return
        }
        setFailure(answer.message)
        // A declined card created nothing: the next try, with another card, is a new enrolment.
        if (answer.declined) setKey(newKey())
      })}
    >
      <Stack gap="md">
        <Select
          label="Plan"
          required
          allowDeselect={false}
          placeholder="Choose a plan"
          data={plans.map((p) => ({ value: String(p.id), label: `${p.name} — ${planOffer(p)}` }))}
          {...inputProps('plan_id')}
        />
        {plan && (
          <Text size="sm" c="dimmed">
            Each paid cycle: {perksSummary(plan.perks, treatmentNames)}.
          </Text>
        )}
        <CardEntry
          mode={calls.mode}
          values={form.values}
          inputProps={(field) => form.getInputProps(field)}
          onChange={(field, value) => form.setFieldValue(field, value)}
          fields={fields}
        />
        {plan && (
          <Paper
            withBorder
            p="md"
            radius="sm"
            component="section"
            aria-label="Membership agreement"
          >
            <Stack gap={4}>
              <Text size="sm" fw={600}>
                Membership agreement
              </Text>
              <Text size="sm">{agreementText(plan)}</Text>
            </Stack>
          </Paper>
        )}
        <Checkbox
          label="The patient accepts the agreement, including automatic renewal"
          required
          {...form.getInputProps('accepted', { type: 'checkbox' })}
        />
        <TextInput
          label="Patient's name as accepted"
          required
          autoComplete="off"
          {...inputProps('accepted_by_name')}
        />
        <FailureAlert>{failure}</FailureAlert>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={busy}>
            {plan ? `Charge ${money(firstCharge(plan))} and start` : 'Charge and start'}
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

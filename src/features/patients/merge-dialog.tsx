import { Alert, Button, Group, List, Modal, Radio, Stack, Text } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useState } from 'react'
import type { MergeAnswer, MergePreview } from '#domain/patient-merge.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { type PatientChoice, PatientPicker } from '#src/ui/patient-picker.tsx'

/** A patient as the merge dialog names them: the id, the name, and the phone or e-mail. */
export type MergeSide = { id: number; name: string; detail?: string | undefined }

/** The dialog's steps, in order: choose → preview → confirm → done. */
type Step =
  | { name: 'choose' }
  | { name: 'preview'; kept: MergeSide; merged: MergeSide; preview: MergePreview }
  | { name: 'confirm'; kept: MergeSide; merged: MergeSide; preview: MergePreview }
  | { name: 'done'; kept: MergeSide; merged: MergeSide; answer: MergeAnswer }

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

const FIELD_NAMES = { email: 'e-mail', phone: 'phone', birth_date: 'birth date' } as const

/** The lines of "What moves", the kinds with nothing to move left out. */
function movesOf(moves: MergePreview['moves']): string[] {
  return [
    moves.ledger_entries && count(moves.ledger_entries, 'ledger entry', 'ledger entries'),
    moves.visits && count(moves.visits, 'visit', 'visits'),
    moves.appointments && count(moves.appointments, 'appointment', 'appointments'),
    moves.claims && count(moves.claims, 'claimed offer', 'claimed offers'),
    moves.offers_sent && count(moves.offers_sent, 'offer sent by e-mail', 'offers sent by e-mail'),
    moves.other && count(moves.other, 'other record', 'other records'),
  ].filter((line): line is string => Boolean(line))
}

/**
 * "Merge patients" (Manager and Admin): a multi-step dialog, choose → preview → confirm
 * → done. `first` is the patient it was opened from; `second`, when given (a duplicates pair), is
 * the other one, else the person finds them with the picker. The person chooses which record is
 * kept, sees what moves and the balance after, confirms, and the server merges in one transaction.
 * A plain view with @mantine/form: the route gives it the three calls, it keeps only the step.
 */
export function MergeDialog({
  opened,
  onClose,
  first,
  second,
  searchPatients,
  preview,
  merge,
  onOpenKept,
}: {
  opened: boolean
  onClose: () => void
  first: MergeSide
  second?: MergeSide | undefined
  searchPatients: (term: string) => Promise<PatientChoice[]>
  preview: (keptId: number, mergedId: number) => Promise<MergePreview>
  /** Merges; the dialog's one idempotency key is the route's to make. */
  merge: (keptId: number, mergedId: number) => Promise<MergeAnswer>
  /** After the merge: opens the kept patient's profile. */
  onOpenKept: (keptId: number) => void
}) {
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title="Merge patients"
      size="lg"
    >
      {opened && (
        <MergeSteps
          first={first}
          second={second}
          searchPatients={searchPatients}
          preview={preview}
          merge={merge}
          onClose={onClose}
          onOpenKept={onOpenKept}
        />
      )}
    </Modal>
  )
}

function MergeSteps({
  first,
  second,
  searchPatients,
  preview,
  merge,
  onClose,
  onOpenKept,
}: {
  first: MergeSide
  second?: MergeSide | undefined
  searchPatients: (term: string) => Promise<PatientChoice[]>
  preview: (keptId: number, mergedId: number) => Promise<MergePreview>
  merge: (keptId: number, mergedId: number) => Promise<MergeAnswer>
  onClose: () => void
  onOpenKept: (keptId: number) => void
}) {
  const [step, setStep] = useState<Step>({ name: 'choose' })
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const form = useForm<{ other: PatientChoice | null; keep: string }>({
    mode: 'controlled',
    initialValues: {
      other: second ? { id: second.id, label: second.name } : null,
      keep: String(first.id),
    },
    validate: {
      other: (other) =>
        !other
          ? 'Please choose the other patient.'
          : other.id === first.id
            ? 'Please choose another patient than this one.'
            : null,
    },
  })
  const run = async (work: () => Promise<void>) => {
    setBusy(true)
    setFailure(undefined)
    try {
      await work()
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }

  if (step.name === 'choose') {
    const other: MergeSide | undefined =
      second ??
      (form.values.other
        ? {
            id: form.values.other.id,
            name: form.values.other.label.split(' · ')[0] ?? form.values.other.label,
            detail: form.values.other.label.split(' · ')[1],
          }
        : undefined)
    return (
      <form
        noValidate
        onSubmit={form.onSubmit((values) =>
          run(async () => {
            if (!other) return
            const keptFirst = values.keep === String(first.id)
            const kept = keptFirst ? first : other
            const merged = keptFirst ? other : first
            setStep({ name: 'preview', kept, merged, preview: await preview(kept.id, merged.id) })
          }),
        )}
      >
        <Stack gap="md">
          {second ? (
            <Text size="sm">
              {first.name} and {second.name} may be the same person. Merging keeps one record and
              moves everything of the other onto it.
            </Text>
          ) : (
            <PatientPicker
              label="Other patient"
              placeholder="Type a name, e-mail or phone"
              maw={520}
              autoFocus
              value={form.values.other}
              onChange={(choice) => form.setFieldValue('other', choice)}
              search={searchPatients}
              error={form.errors.other as string | undefined}
            />
          )}
          {other && (
            <Radio.Group
              label="Which record do you keep?"
              description="The other one is archived with a link to it."
              {...form.getInputProps('keep')}
            >
              <Stack gap="xs" mt="xs">
                {[first, other].map((side, index) => (
                  <Radio
                    key={side.id}
                    value={String(side.id)}
                    data-autofocus={second && index === 0 ? true : undefined}
                    label={side.name}
                    description={side.detail ?? `Patient #${side.id}`}
                  />
                ))}
              </Stack>
            </Radio.Group>
          )}
          <FailureAlert>{failure}</FailureAlert>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Preview merge
            </Button>
          </Group>
        </Stack>
      </form>
    )
  }

  if (step.name === 'preview') {
    const { kept, merged, preview: p } = step
    const moves = movesOf(p.moves)
    return (
      <Stack gap="md">
        <Text fw={600}>
          {merged.name} into {kept.name}
        </Text>
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            What moves to {kept.name}
          </Text>
          {moves.length > 0 ? (
            <List size="sm" spacing={2}>
              {moves.map((line) => (
                <List.Item key={line}>{line}</List.Item>
              ))}
            </List>
          ) : (
            <Text size="sm" c="dimmed">
              Nothing: {merged.name} has no history yet.
            </Text>
          )}
        </Stack>
        <Text size="sm">
          Balance after the merge:{' '}
          <Text span fw={700}>
            {count(p.balance, 'point', 'points')}
          </Text>{' '}
          ({kept.name} {p.kept.points.toLocaleString('en-US')} + {merged.name}{' '}
          {p.merged.points.toLocaleString('en-US')}).
        </Text>
        <Text size="sm">
          {p.fills.length > 0
            ? `Filled in from ${merged.name}: ${p.fills.map((f) => FIELD_NAMES[f]).join(', ')}.`
            : `No contact details are copied: ${kept.name} keeps their own.`}
        </Text>
        <Text size="sm">
          Consent after the merge: e-mail {p.email_subscription ? 'yes' : 'no'}, text messages{' '}
          {p.sms_subscription ? 'yes' : 'no'}. A consent stays on only if both records gave it.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setStep({ name: 'choose' })}>
            Back
          </Button>
          <Button data-autofocus onClick={() => setStep({ ...step, name: 'confirm' })}>
            Continue
          </Button>
        </Group>
      </Stack>
    )
  }

  if (step.name === 'confirm') {
    const { kept, merged } = step
    return (
      <Stack gap="md">
        <Text>
          Merge {merged.name} into {kept.name}? {merged.name}&apos;s record will be archived with a
          link to {kept.name}. This cannot be undone.
        </Text>
        <FailureAlert>{failure}</FailureAlert>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setStep({ ...step, name: 'preview' })}>
            Back
          </Button>
          <Button
            color="red"
            loading={busy}
            data-autofocus
            onClick={() =>
              run(async () => {
                const answer = await merge(kept.id, merged.id)
                setStep({ name: 'done', kept, merged, answer })
              })
            }
          >
            Merge patients
          </Button>
        </Group>
      </Stack>
    )
  }

  const { kept, merged, answer } = step
  return (
    <Stack gap="md">
      <Alert color="green" title="Merged" role="status">
        {merged.name} was merged into {kept.name}. {kept.name} now has{' '}
        {count(answer.kept.points, 'point', 'points')}.
      </Alert>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Close
        </Button>
        <Button data-autofocus onClick={() => onOpenKept(kept.id)}>
          Open {kept.name}
        </Button>
      </Group>
    </Stack>
  )
}

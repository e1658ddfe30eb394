import { Button, Group, Loader, Radio, Select, Stack, Text } from '@mantine/core'
import { useCallback, useEffect, useState } from 'react'
import {
  type Membership,
  money,
  PAUSE_CYCLES,
  type Plan,
  type Preview,
} from '#domain/memberships.ts'
import { formatDate } from '#src/lib/format.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { planPrice } from './membership-texts.ts'
import type { MembershipCalls, PricedChange } from './memberships.actors.ts'

/** The changes of the panel that are previewed before they are confirmed. */
export type ChangeKind = 'pause' | 'cancel-end' | 'cancel-now' | 'change-plan' | 'charge'

/** Each change's dialog title and confirming button. */
export const CHANGE_TITLES: Record<ChangeKind, { title: string; confirm: string }> = {
  pause: { title: 'Pause membership', confirm: 'Confirm pause' },
  'cancel-end': { title: 'Cancel at end of term', confirm: 'Confirm cancellation' },
  'cancel-now': { title: 'Cancel now', confirm: 'Cancel membership now' },
  'change-plan': { title: 'Change plan', confirm: 'Confirm plan change' },
  charge: { title: 'Charge now', confirm: 'Confirm charge' },
}

/** "$25.00 is charged now", "$12.00 is refunded now", "Nothing is charged today". */
export function previewAmount(amount: number): string {
  if (amount > 0) return `${money(amount)} is charged now.`
  if (amount < 0) return `${money(-amount)} is refunded now.`
  return 'Nothing is charged or refunded today.'
}

type Choices = {
  cycles: string
  refund: 'yes' | 'no'
  plan_id: string
  at: 'now' | 'period_end'
  by: 'patient' | 'staff'
}

const FIRST_CHOICES: Choices = {
  cycles: String(PAUSE_CYCLES.min),
  refund: 'no',
  plan_id: '',
  at: 'period_end',
  by: 'patient',
}

function changeOf(kind: ChangeKind, choices: Choices): PricedChange {
  switch (kind) {
    case 'pause':
      return { kind: 'pause', cycles: Number(choices.cycles) }
    case 'cancel-end':
      // At the end of the term is what a patient asks for; the practice ends one now.
      return { kind: 'cancel', at: 'period_end', refund: false, requested_by: 'patient' }
    case 'cancel-now':
      return {
        kind: 'cancel',
        at: 'now',
        refund: choices.refund === 'yes',
        requested_by: choices.by,
      }
    case 'change-plan':
      return { kind: 'change-plan', plan_id: Number(choices.plan_id), at: choices.at }
    case 'charge':
      return { kind: 'retry-payment' }
  }
}

/** Whether the change needs choices before its preview (how long, which plan, a refund). */
const hasChoices = (kind: ChangeKind) =>
  kind === 'pause' || kind === 'cancel-now' || kind === 'change-plan'

/**
 * One change of a membership, in two steps: its choices (how many cycles, refund or not, which
 * plan and when), then what the server says it will cost (`?preview=true`: the summary, the amount
 * charged or refunded now, and when it takes effect), and only then the confirmation.
 */
export function ChangeDialog({
  kind,
  membership,
  plans,
  calls,
  onCancel,
  onDone,
  onDeclined,
}: {
  kind: ChangeKind
  membership: Membership
  /** Plans it may move to (active ones). */
  plans: readonly Plan[]
  calls: MembershipCalls
  onCancel: () => void
  onDone: (membership: Membership, summary: string) => void
  /** A declined charge still changed the membership (a failed attempt, the next retry). */
  onDeclined?: () => void
}) {
  const [choices, setChoices] = useState<Choices>(FIRST_CHOICES)
  const [step, setStep] = useState<'choose' | 'review'>(hasChoices(kind) ? 'choose' : 'review')
  const [preview, setPreview] = useState<Preview | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [choiceError, setChoiceError] = useState<string | null>(null)

  const review = useCallback(
    async (change: PricedChange) => {
      setStep('review')
      setPreview(null)
      setFailure(null)
      const answer = await calls.preview(membership.id, change)
      if (answer.ok) setPreview(answer.value)
      else setFailure(answer.message)
    },
    [calls, membership.id],
  )

  // A change without choices shows its cost as soon as the dialog opens.
  useEffect(() => {
    if (!hasChoices(kind)) void review(changeOf(kind, FIRST_CHOICES))
  }, [kind, review])

  const otherPlans = plans.filter((plan) => plan.id !== membership.plan.id && !plan.archived)

  if (step === 'choose') {
    return (
      <form
        noValidate
        aria-label={CHANGE_TITLES[kind].title}
        onSubmit={(event) => {
          event.preventDefault()
          if (kind === 'change-plan' && !choices.plan_id) {
            setChoiceError('Please choose the plan it moves to.')
            return
          }
          void review(changeOf(kind, choices))
        }}
      >
        <Stack gap="md">
          {kind === 'pause' && (
            <Radio.Group
              label="Pause for"
              description="No charges and no perks while paused; the bank stays the patient’s."
              value={choices.cycles}
              onChange={(cycles) => setChoices({ ...choices, cycles })}
            >
              <Stack gap="xs" mt="xs">
                {[1, 2, 3]
                  .filter((n) => n >= PAUSE_CYCLES.min && n <= PAUSE_CYCLES.max)
                  .map((n) => (
                    <Radio key={n} value={String(n)} label={n === 1 ? '1 cycle' : `${n} cycles`} />
                  ))}
              </Stack>
            </Radio.Group>
          )}
          {kind === 'cancel-now' && (
            <Radio.Group
              label="Who asked"
              value={choices.by}
              onChange={(by) => setChoices({ ...choices, by: by as 'patient' | 'staff' })}
            >
              <Stack gap="xs" mt="xs">
                <Radio value="patient" label="The patient asked to cancel" />
                <Radio value="staff" label="The practice is ending the membership" />
              </Stack>
            </Radio.Group>
          )}
          {kind === 'cancel-now' && (
            <Radio.Group
              label="The current cycle"
              value={choices.refund}
              onChange={(refund) => setChoices({ ...choices, refund: refund as 'yes' | 'no' })}
            >
              <Stack gap="xs" mt="xs">
                <Radio value="no" label="No refund" />
                <Radio value="yes" label="Refund the rest of the current cycle" />
              </Stack>
            </Radio.Group>
          )}
          {kind === 'change-plan' && (
            <>
              <Select
                label="New plan"
                required
                allowDeselect={false}
                placeholder="Choose a plan"
                data={otherPlans.map((plan) => ({
                  value: String(plan.id),
                  label: `${plan.name} — ${planPrice(plan)}`,
                }))}
                value={choices.plan_id || null}
                error={choiceError}
                errorProps={{ role: 'alert' }}
                onChange={(plan_id) => {
                  setChoiceError(null)
                  setChoices({ ...choices, plan_id: plan_id ?? '' })
                }}
              />
              <Radio.Group
                label="When"
                value={choices.at}
                onChange={(at) => setChoices({ ...choices, at: at as Choices['at'] })}
              >
                <Stack gap="xs" mt="xs">
                  <Radio value="period_end" label="At the next renewal" />
                  <Radio value="now" label="Now (the difference is prorated)" />
                </Stack>
              </Radio.Group>
            </>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onCancel}>
              Go back
            </Button>
            <Button type="submit">Review cost</Button>
          </Group>
        </Stack>
      </form>
    )
  }

  return (
    <Stack gap="md">
      {!preview && !failure && (
        <Group gap="sm" role="status">
          <Loader size="sm" />
          <Text size="sm">Working out what it costs…</Text>
        </Group>
      )}
      {preview && (
        <Stack gap="xs" role="status" aria-label="What it costs">
          <Text fw={500}>{preview.summary}</Text>
          <Text>{previewAmount(preview.amount_cents)}</Text>
          <Text size="sm" c="dimmed">
            Takes effect on {formatDate(preview.effective_at)}.
          </Text>
        </Stack>
      )}
      <FailureAlert>{failure}</FailureAlert>
      <Group justify="flex-end" gap="sm">
        <Button
          variant="default"
          onClick={hasChoices(kind) ? () => setStep('choose') : onCancel}
          disabled={busy}
        >
          Go back
        </Button>
        <Button
          color={kind.startsWith('cancel') ? 'red' : undefined}
          loading={busy}
          disabled={!preview}
          onClick={async () => {
            if (!preview) return
            setBusy(true)
            setFailure(null)
            const answer = await calls.change(membership.id, changeOf(kind, choices))
            setBusy(false)
            if (answer.ok) onDone(answer.value, preview.summary)
            else {
              setFailure(answer.message)
              if (answer.declined) onDeclined?.()
            }
          }}
        >
          {CHANGE_TITLES[kind].confirm}
        </Button>
      </Group>
    </Stack>
  )
}

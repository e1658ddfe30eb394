import {
  Input,
  MultiSelect,
  NumberInput,
  Radio,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core'
import { useForm } from '@mantine/form'
import { useState } from 'react'
import { MAX_DISCOUNT_CENTS } from '#domain/offer-value.ts'
import {
  endsAfterStart,
  LIVE_EDITABLE_FIELDS,
  PROMOTION_CODE_PATTERN,
  PROMOTION_DESCRIPTION_MAX_LENGTH,
  PROMOTION_MESSAGES,
  PROMOTION_POINTS_MAX,
  PROMOTION_TITLE_MAX_LENGTH,
  type PromotionDetail,
  type PromotionInput,
} from '#domain/promotions.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'
import { FormFields } from '#src/ui/form-fields.tsx'

/** The form's values: numbers as typed (empty allowed), instants as local `datetime-local` text. */
export type PromotionFormValues = {
  title: string
  description: string
  points_cost: number | string
  bonus_points: number | string
  starts_at: string
  ends_at: string
  max_redemptions: number | string
  per_patient_limit: number | string
  audience: 'everyone' | 'code'
  code: string
  /** The offer's value: none, an amount off a visit, or a percentage off each line. */
  discount: 'none' | 'amount' | 'percent'
  /** The amount off, in dollars as typed. */
  discount_amount: number | string
  discount_percent: number | string
  /** The procedures it applies to, as the select's values (ids as text); empty: any procedure. */
  procedure_ids: string[]
}

/** A procedure the offer's value may apply to. */
export type ProcedureOption = { id: number; name: string }

const pad = (n: number) => String(n).padStart(2, '0')

/** An instant as the local `YYYY-MM-DDTHH:mm` a `datetime-local` field shows. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return ''
  const d = new Date(iso)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

const toInstant = (local: string) => (local ? new Date(local).toISOString() : null)

/** The values of a new offer, or of the offer being edited. */
export function promotionValues(offer?: PromotionDetail): PromotionFormValues {
  return {
    title: offer?.title ?? '',
    description: offer?.description ?? '',
    points_cost: offer?.points_cost ?? 0,
    bonus_points: offer?.bonus_points ?? 0,
    starts_at: toLocalInput(offer?.starts_at ?? null),
    ends_at: toLocalInput(offer?.ends_at ?? null),
    max_redemptions: offer?.max_redemptions ?? '',
    per_patient_limit: offer?.per_patient_limit ?? 1,
    audience: offer?.code ? 'code' : 'everyone',
    code: offer?.code ?? '',
    discount: offer?.discount_cents ? 'amount' : offer?.discount_percent ? 'percent' : 'none',
    discount_amount: offer?.discount_cents ? offer.discount_cents / 100 : '',
    discount_percent: offer?.discount_percent ?? '',
    procedure_ids: (offer?.procedure_ids ?? []).map(String),
  }
}

/** The API's body for the values (checked first by the form). */
export function toPromotionInput(values: PromotionFormValues): PromotionInput {
  return {
    title: values.title.trim(),
    description: values.description.trim(),
    points_cost: Number(values.points_cost || 0),
    bonus_points: Number(values.bonus_points || 0),
    starts_at: toInstant(values.starts_at),
    ends_at: toInstant(values.ends_at),
    max_redemptions: values.max_redemptions === '' ? null : Number(values.max_redemptions),
    per_patient_limit: Number(values.per_patient_limit),
    code: values.audience === 'code' ? values.code.trim().toUpperCase() : null,
    discount_cents:
      values.discount === 'amount' ? Math.round(Number(values.discount_amount) * 100) : null,
    discount_percent: values.discount === 'percent' ? Number(values.discount_percent) : null,
    procedure_ids: values.discount === 'none' ? [] : values.procedure_ids.map(Number),
  }
}

const wholeIn = (value: number | string, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max

/**
 * The offer's form in a dialog: title, description, points cost (0 = free), bonus points, start
 * and end, the total limit and the limit per patient, and who may claim it (every patient, or
 * only with a code). Each field says what is wrong next to it; a refusal of the server shows
 * above the buttons and keeps everything typed. A live offer only changes its text, end and
 * limits: the other fields are shown but locked.
 */
export function PromotionFormModal({
  opened,
  title,
  submitLabel,
  initial,
  live = false,
  procedures = [],
  onClose,
  onSave,
}: {
  opened: boolean
  title: string
  submitLabel: string
  initial: PromotionFormValues
  live?: boolean
  /** The catalogue's procedures, for the value's procedures. */
  procedures?: readonly ProcedureOption[]
  onClose: () => void
  onSave: (values: PromotionFormValues) => Promise<string | undefined>
}) {
  const [failure, setFailure] = useState<string>()
  const [busy, setBusy] = useState(false)
  const form = useForm<PromotionFormValues>({
    mode: 'controlled',
    initialValues: initial,
    validate: {
      title: (value) =>
        value.trim() === ''
          ? PROMOTION_MESSAGES.title
          : value.trim().length > PROMOTION_TITLE_MAX_LENGTH
            ? PROMOTION_MESSAGES.titleLength
            : null,
      description: (value) =>
        value.trim().length > PROMOTION_DESCRIPTION_MAX_LENGTH
          ? PROMOTION_MESSAGES.descriptionLength
          : null,
      points_cost: (value) =>
        wholeIn(value === '' ? 0 : value, 0, PROMOTION_POINTS_MAX)
          ? null
          : PROMOTION_MESSAGES.pointsCost,
      bonus_points: (value) =>
        wholeIn(value === '' ? 0 : value, 0, PROMOTION_POINTS_MAX)
          ? null
          : PROMOTION_MESSAGES.bonusPoints,
      ends_at: (value, values) =>
        endsAfterStart(toInstant(values.starts_at), toInstant(value))
          ? null
          : PROMOTION_MESSAGES.endAfterStart,
      max_redemptions: (value) =>
        value === '' || wholeIn(value, 1, 2_147_483_647) ? null : PROMOTION_MESSAGES.maxRedemptions,
      per_patient_limit: (value) =>
        wholeIn(value, 1, 1000) ? null : PROMOTION_MESSAGES.perPatientLimit,
      code: (value, values) =>
        values.audience === 'code' && !PROMOTION_CODE_PATTERN.test(value.trim().toUpperCase())
          ? PROMOTION_MESSAGES.code
          : null,
      discount_amount: (value, values) => {
        if (values.discount !== 'amount') return null
        const cents = Math.round(Number(value) * 100)
        return value !== '' && cents >= 1 && cents <= MAX_DISCOUNT_CENTS
          ? null
          : 'Enter the amount off, from $0.01 to $1,000,000.'
      },
      discount_percent: (value, values) =>
        values.discount !== 'percent' || wholeIn(value, 1, 100)
          ? null
          : 'Enter the percentage off, a whole number from 1 to 100.',
    },
  })
  const locked = (field: string) =>
    live && !(LIVE_EDITABLE_FIELDS as readonly string[]).includes(field)

  const close = () => {
    setFailure(undefined)
    onClose()
  }

  return (
    <AppModal
      opened={opened}
      onClose={close}
      title={title}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        noValidate
        onSubmit={form.onSubmit(async (values) => {
          setBusy(true)
          setFailure(undefined)
          const refusal = await onSave(values)
          setBusy(false)
          if (refusal) setFailure(refusal)
          else form.resetDirty()
        })}
      >
        <Stack gap="md">
          {live && (
            <Text size="sm" c="dimmed">
              This offer is live: its text, end and limits can change; what patients already claimed
              stays as it was.
            </Text>
          )}
          <TextInput
            label="Title"
            required
            maxLength={PROMOTION_TITLE_MAX_LENGTH}
            {...form.getInputProps('title')}
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            maxRows={6}
            {...form.getInputProps('description')}
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <FormFields
              form={form}
              component={NumberInput}
              common={{ min: 0, max: PROMOTION_POINTS_MAX, allowDecimal: false }}
              fields={[
                {
                  path: 'points_cost',
                  label: 'Points cost',
                  description: '0 makes it a free offer.',
                  disabled: locked('points_cost'),
                },
                {
                  path: 'bonus_points',
                  label: 'Bonus points',
                  description: 'Given when it is redeemed.',
                  disabled: locked('bonus_points'),
                },
              ]}
            />
            <FormFields
              form={form}
              component={TextInput}
              common={{ type: 'datetime-local' }}
              fields={[
                {
                  path: 'starts_at',
                  label: 'Starts',
                  description: 'Empty: as soon as it is published.',
                  disabled: locked('starts_at'),
                },
                { path: 'ends_at', label: 'Ends', description: 'Empty: until it is ended.' },
              ]}
            />
            <FormFields
              form={form}
              component={NumberInput}
              common={{ min: 1, allowDecimal: false }}
              fields={[
                {
                  path: 'max_redemptions',
                  label: 'Total limit',
                  description: 'Claims in all; empty for no limit.',
                },
                {
                  path: 'per_patient_limit',
                  label: 'Limit per patient',
                  description: 'Times one patient may claim it.',
                  max: 1000,
                },
              ]}
            />
          </SimpleGrid>
          <Radio.Group
            label="Who may claim it"
            {...form.getInputProps('audience')}
            readOnly={locked('code')}
          >
            <Stack gap="xs" mt="xs">
              <Radio value="everyone" label="Every patient" disabled={locked('code')} />
              <Radio value="code" label="Only patients with a code" disabled={locked('code')} />
            </Stack>
          </Radio.Group>
          <Stack gap="xs">
            {/* The label of every other field, for a control that is a group of radios. */}
            <Input.Wrapper
              label="Discount"
              labelElement="div"
              labelProps={{ id: 'discount-label' }}
            >
              <SegmentedControl
                aria-labelledby="discount-label"
                disabled={locked('discount_cents')}
                fullWidth
                data={[
                  { value: 'none', label: 'None' },
                  { value: 'amount', label: 'Amount off' },
                  { value: 'percent', label: 'Percent off' },
                ]}
                {...form.getInputProps('discount')}
              />
            </Input.Wrapper>
            {form.values.discount === 'amount' && (
              <NumberInput
                label="Amount off ($)"
                description="Taken once off the visit's matching procedures, never below $0."
                min={0.01}
                decimalScale={2}
                prefix="$"
                disabled={locked('discount_cents')}
                {...form.getInputProps('discount_amount')}
              />
            )}
            {form.values.discount === 'percent' && (
              <NumberInput
                label="Percentage off (%)"
                description="Taken off each matching procedure line."
                min={1}
                max={100}
                suffix="%"
                allowDecimal={false}
                disabled={locked('discount_percent')}
                {...form.getInputProps('discount_percent')}
              />
            )}
            {form.values.discount !== 'none' && (
              <MultiSelect
                label="Procedures"
                description="Empty: any procedure."
                placeholder="Any procedure"
                searchable
                data={procedures.map((p) => ({ value: String(p.id), label: p.name }))}
                disabled={locked('procedure_ids')}
                {...form.getInputProps('procedure_ids')}
              />
            )}
          </Stack>
          {form.values.audience === 'code' && (
            <TextInput
              label="Code"
              description="3 to 20 letters, digits or dashes, e.g. GLOW-25."
              required
              disabled={locked('code')}
              {...form.getInputProps('code')}
            />
          )}
          <DialogActions failure={failure} busy={busy} actionLabel={submitLabel} onCancel={close} />
        </Stack>
      </form>
    </AppModal>
  )
}

// Fieldset is this form's only: its styles load with it, not with every page.
import '@mantine/core/styles/Fieldset.css'
import {
  ActionIcon,
  Button,
  Fieldset,
  Group,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core'
import { useForm } from '@mantine/form'
import { IconTrash } from '@tabler/icons-react'
import { useState } from 'react'
import * as v from 'valibot'
import {
  INTERVAL_LABELS,
  PLAN_INTERVALS,
  type Plan,
  type PlanInput,
  PlanInputSchema,
  type PlanInterval,
} from '#domain/memberships.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'

/** A treatment of the catalogue an allowance or a discount may name. */
export type TreatmentOption = { id: number; name: string }

type Amount = number | string

/** One allowance as its row holds it: the treatment's id as the select's text. */
type AllowanceRow = {
  key: string
  catalogue_item_id: string
  quantity: Amount
  rollover_cap: Amount
}

/** The plan form's values: dollars and counts as typed (empty allowed). */
export type PlanFormValues = {
  name: string
  description: string
  price: Amount
  interval: PlanInterval
  setup_fee: Amount
  min_cycles: Amount
  notice_days: Amount
  bank: Amount
  allowances: AllowanceRow[]
  discount_percent: Amount
  discount_item_ids: string[]
  points_multiplier: Amount
  join_bonus_points: Amount
}

let rowKeys = 0
const rowKey = () => {
  rowKeys += 1
  return `allowance-${rowKeys}`
}

/** The values of a new plan, or of the plan being edited. */
export function planValues(plan?: Plan): PlanFormValues {
  return {
    name: plan?.name ?? '',
    description: plan?.description ?? '',
    price: plan ? plan.price_cents / 100 : '',
    interval: plan?.interval ?? 'month',
    setup_fee: plan ? plan.setup_fee_cents / 100 : 0,
    min_cycles: plan?.min_cycles ?? 1,
    notice_days: plan?.notice_days ?? 0,
    bank: plan ? plan.perks.bank_cents / 100 : 0,
    allowances: (plan?.perks.allowances ?? []).map((a) => ({
      key: rowKey(),
      catalogue_item_id: String(a.catalogue_item_id),
      quantity: a.quantity,
      rollover_cap: a.rollover_cap,
    })),
    discount_percent: plan?.perks.discount_percent ?? 0,
    discount_item_ids: (plan?.perks.discount_item_ids ?? []).map(String),
    points_multiplier: plan?.perks.points_multiplier ?? 1,
    join_bonus_points: plan?.perks.join_bonus_points ?? 0,
  }
}

const number = (value: Amount) => (value === '' ? Number.NaN : Number(value))
const cents = (value: Amount) => Math.round(number(value) * 100)

/** The API's body for the values (checked by {@link planErrors} first). */
export function toPlanInput(values: PlanFormValues): PlanInput {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    price_cents: cents(values.price),
    interval: values.interval,
    setup_fee_cents: values.setup_fee === '' ? 0 : cents(values.setup_fee),
    min_cycles: number(values.min_cycles),
    notice_days: values.notice_days === '' ? 0 : number(values.notice_days),
    perks: {
      bank_cents: values.bank === '' ? 0 : cents(values.bank),
      allowances: values.allowances.map((row) => ({
        catalogue_item_id: row.catalogue_item_id === '' ? 0 : Number(row.catalogue_item_id),
        quantity: number(row.quantity),
        rollover_cap: row.rollover_cap === '' ? 0 : number(row.rollover_cap),
      })),
      discount_percent: values.discount_percent === '' ? 0 : number(values.discount_percent),
      discount_item_ids:
        values.discount_percent === '' || number(values.discount_percent) === 0
          ? []
          : values.discount_item_ids.map(Number),
      points_multiplier: values.points_multiplier === '' ? 1 : number(values.points_multiplier),
      join_bonus_points: values.join_bonus_points === '' ? 0 : number(values.join_bonus_points),
    },
  }
}

/** The field of the form each field of the API's body is typed in. */
const FIELD_OF: Record<string, string> = {
  price_cents: 'price',
  setup_fee_cents: 'setup_fee',
  'perks.bank_cents': 'bank',
  'perks.allowances': 'allowances',
  'perks.discount_percent': 'discount_percent',
  'perks.discount_item_ids': 'discount_item_ids',
  'perks.points_multiplier': 'points_multiplier',
  'perks.join_bonus_points': 'join_bonus_points',
}

/**
 * Each field's first refusal by the API's own schema (domain/memberships.ts), on the field where
 * it was typed: "Please enter a price per cycle of $1.00 to $10,000.00." under Price.
 */
export function planErrors(values: PlanFormValues): Record<string, string> {
  const result = v.safeParse(PlanInputSchema, toPlanInput(values))
  if (result.success) return {}
  const errors: Record<string, string> = {}
  for (const issue of result.issues) {
    const path = v.getDotPath(issue) ?? ''
    const field = path.startsWith('perks.allowances.')
      ? path.replace(/^perks\./, '')
      : (FIELD_OF[path] ?? path.split('.')[0] ?? '')
    if (field && !errors[field]) errors[field] = issue.message
  }
  return errors
}

/**
 * A plan's form in a dialog: name, description, price and cadence, setup fee, minimum term and
 * notice, and the perks of each paid cycle (banked value, allowances of treatments, the member
 * discount, points). Each field says what is wrong under it; a refusal of the server shows above
 * the buttons and keeps everything typed. A plan with members gets a new version on a change of
 * price, cadence, terms or perks; its members keep theirs.
 */
export function PlanFormModal({
  title,
  submitLabel,
  initial,
  treatments,
  members = 0,
  onClose,
  onSave,
}: {
  title: string
  submitLabel: string
  initial: PlanFormValues
  treatments: readonly TreatmentOption[]
  /** Members on the plan being edited: they keep their version. */
  members?: number
  onClose: () => void
  onSave: (input: PlanInput) => Promise<string | undefined>
}) {
  const [failure, setFailure] = useState<string>()
  const [busy, setBusy] = useState(false)
  const form = useForm<PlanFormValues>({
    mode: 'controlled',
    initialValues: initial,
    validate: planErrors,
  })
  const options = treatments.map((t) => ({ value: String(t.id), label: t.name }))
  const field = (path: string) => ({ ...form.getInputProps(path), errorProps: { role: 'alert' } })
  return (
    <AppModal opened onClose={onClose} title={title} size="xl">
      <form
        noValidate
        aria-label={title}
        onSubmit={form.onSubmit(async (values) => {
          setBusy(true)
          setFailure(undefined)
          const refusal = await onSave(toPlanInput(values))
          setBusy(false)
          if (refusal) setFailure(refusal)
        })}
      >
        <Stack gap="md">
          {members > 0 && (
            <Text size="sm" c="dimmed">
              {members === 1 ? '1 member is' : `${members.toLocaleString('en-US')} members are`} on
              this plan. A change of price, cadence, terms or perks makes a new version for new
              members; current members keep theirs.
            </Text>
          )}
          <TextInput label="Name" required maxLength={80} {...field('name')} />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            maxRows={5}
            {...field('description')}
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <NumberInput
              label="Price per cycle"
              required
              prefix="$"
              decimalScale={2}
              fixedDecimalScale
              min={0}
              thousandSeparator=","
              {...field('price')}
            />
            <Select
              label="Cadence"
              required
              allowDeselect={false}
              data={PLAN_INTERVALS.map((interval) => ({
                value: interval,
                label: INTERVAL_LABELS[interval],
              }))}
              {...field('interval')}
            />
            <NumberInput
              label="Setup fee"
              description="Charged once, with the first cycle."
              prefix="$"
              decimalScale={2}
              fixedDecimalScale
              min={0}
              thousandSeparator=","
              {...field('setup_fee')}
            />
            <NumberInput
              label="Minimum term (cycles)"
              description="Paid cycles before it can end."
              min={1}
              max={36}
              allowDecimal={false}
              {...field('min_cycles')}
            />
            <NumberInput
              label="Notice (days)"
              description="Days before a renewal a cancellation must come."
              min={0}
              max={90}
              allowDecimal={false}
              {...field('notice_days')}
            />
          </SimpleGrid>
          <Fieldset legend="Perks of each paid cycle" variant="filled">
            <Stack gap="md">
              <SimpleGrid cols={{ base: 1, xs: 2 }}>
                <NumberInput
                  label="Banked value per cycle"
                  description="Credited to the patient's bank; it never expires."
                  prefix="$"
                  decimalScale={2}
                  fixedDecimalScale
                  min={0}
                  thousandSeparator=","
                  {...field('bank')}
                />
                <NumberInput
                  label="Points multiplier"
                  description="1 earns the usual points; 2 doubles them."
                  min={1}
                  max={10}
                  decimalScale={2}
                  {...field('points_multiplier')}
                />
                <NumberInput
                  label="Joining bonus (points)"
                  min={0}
                  max={100_000}
                  allowDecimal={false}
                  thousandSeparator=","
                  {...field('join_bonus_points')}
                />
                <NumberInput
                  label="Member discount (%)"
                  description="0 for none."
                  min={0}
                  max={100}
                  suffix="%"
                  allowDecimal={false}
                  {...field('discount_percent')}
                />
              </SimpleGrid>
              {number(form.values.discount_percent) > 0 && (
                <MultiSelect
                  label="Discounted treatments"
                  description="Empty: the whole catalogue."
                  placeholder="The whole catalogue"
                  searchable
                  data={options}
                  {...field('discount_item_ids')}
                />
              )}
              <Stack gap="xs">
                <Text fw={500} size="sm" id="allowances-label">
                  Allowances
                </Text>
                <Text size="sm" c="dimmed">
                  Treatments included each cycle, e.g. 1 HydraFacial a month.
                </Text>
                {form.values.allowances.map((row, index) => (
                  <Group
                    key={row.key}
                    align="flex-start"
                    gap="sm"
                    wrap="wrap"
                    role="group"
                    aria-label={`Allowance ${index + 1}`}
                  >
                    <Select
                      label="Treatment"
                      required
                      searchable
                      data={options}
                      style={{ flex: '1 1 12rem' }}
                      {...field(`allowances.${index}.catalogue_item_id`)}
                    />
                    <NumberInput
                      label="Quantity"
                      required
                      min={1}
                      max={20}
                      allowDecimal={false}
                      w={110}
                      {...field(`allowances.${index}.quantity`)}
                    />
                    <NumberInput
                      label="Rollover cap"
                      description="0: none"
                      min={0}
                      max={100}
                      allowDecimal={false}
                      w={130}
                      {...field(`allowances.${index}.rollover_cap`)}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      mt={26}
                      aria-label={`Remove allowance ${index + 1}`}
                      onClick={() => form.removeListItem('allowances', index)}
                    >
                      <IconTrash size={18} />
                    </ActionIcon>
                  </Group>
                ))}
                {form.errors.allowances && (
                  <Text c="red" size="sm" role="alert">
                    {form.errors.allowances}
                  </Text>
                )}
                <Group>
                  <Button
                    variant="default"
                    size="xs"
                    disabled={treatments.length === 0}
                    onClick={() =>
                      form.insertListItem('allowances', {
                        key: rowKey(),
                        catalogue_item_id: '',
                        quantity: 1,
                        rollover_cap: 0,
                      })
                    }
                  >
                    Add allowance
                  </Button>
                  {treatments.length === 0 && (
                    <Text size="sm" c="dimmed">
                      Add treatments in Procedures first.
                    </Text>
                  )}
                </Group>
              </Stack>
            </Stack>
          </Fieldset>
          <DialogActions
            failure={failure}
            busy={busy}
            actionLabel={submitLabel}
            onCancel={onClose}
          />
        </Stack>
      </form>
    </AppModal>
  )
}

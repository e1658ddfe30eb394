import {
  Button,
  Group,
  NumberInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core'
import { useForm } from '@mantine/form'
import { IconPlus } from '@tabler/icons-react'
import { useState } from 'react'
import { formatPoints, pointsText } from '#domain/points.ts'
import {
  CATALOGUE_MESSAGES,
  type CatalogueItem,
  type CatalogueItemInput,
} from '#domain/practice-data.ts'
import { formatCents } from '#src/lib/format.ts'
import { TaskModal } from '#src/ui/app-modal.tsx'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { CardList } from '#src/ui/card-list.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'

/**
 * Why a save was refused: the server's sentence, and the field it is about when there is one
 * (a name another active item has), shown under that field.
 */
export type SaveRefusal = { message: string; field?: 'name' }

/** The form's values: the price in dollars as typed, empty numbers as ''. */
type ItemFormValues = {
  name: string
  price: number | ''
  points: number | ''
  min_days_between: number | ''
}

const whole = (value: number | '', max: number) =>
  value !== '' && Number.isInteger(value) && value >= 0 && value <= max

/** What the API takes, from the form's values (dollars become cents; empty points: from price). */
export function toItemInput(values: ItemFormValues): CatalogueItemInput {
  return {
    name: values.name.trim(),
    price: Math.round(Number(values.price) * 100),
    points: values.points === '' ? null : values.points,
    min_days_between: values.min_days_between === '' ? 0 : values.min_days_between,
  }
}

function ItemForm({
  noun,
  initial,
  pointsPerDollar,
  onCancel,
  onSave,
}: {
  noun: string
  initial: CatalogueItem | null
  pointsPerDollar: number
  onCancel: () => void
  onSave: (input: CatalogueItemInput) => Promise<SaveRefusal | undefined>
}) {
  const form = useForm<ItemFormValues>({
    mode: 'controlled',
    initialValues: {
      name: initial?.name ?? '',
      price: initial ? initial.price / 100 : '',
      points: initial?.own_points ?? '',
      min_days_between: initial?.min_days_between ?? 0,
    },
    validate: {
      name: (value) =>
        value.trim() === ''
          ? CATALOGUE_MESSAGES.nameRequired
          : value.trim().length > 120
            ? CATALOGUE_MESSAGES.nameTooLong
            : null,
      price: (value) =>
        value === '' || value < 0 || value > 100_000 || Math.round(value * 100) !== value * 100
          ? CATALOGUE_MESSAGES.price
          : null,
      points: (value) =>
        value === '' || whole(value, 1_000_000) ? null : CATALOGUE_MESSAGES.points,
      min_days_between: (value) =>
        value === '' || whole(value, 3650) ? null : CATALOGUE_MESSAGES.minDays,
    },
    validateInputOnBlur: true,
  })
  const [saving, setSaving] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (values) => {
        setSaving(true)
        setFailure(null)
        const refused = await onSave(toItemInput(values))
        setSaving(false)
        // Under the field when it is about one; what the user typed stays in the form.
        if (refused?.field) form.setFieldError(refused.field, refused.message)
        else if (refused) setFailure(refused.message)
      })}
    >
      <Stack gap="md">
        <TextInput label="Name" withAsterisk maxLength={120} {...form.getInputProps('name')} />
        <NumberInput
          label="Price"
          withAsterisk
          prefix="$"
          decimalScale={2}
          fixedDecimalScale
          thousandSeparator=","
          allowNegative={false}
          {...form.getInputProps('price')}
        />
        <NumberInput
          label="Points per unit"
          description={`Leave empty to earn ${pointsText(pointsPerDollar)} per dollar of the price.`}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('points')}
        />
        <NumberInput
          label="Days between two awards"
          description={`How long before the same patient can earn points for this ${noun} again; 0 for no limit.`}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('min_days_between')}
        />
        <DialogActions
          failure={failure}
          busy={saving}
          actionLabel={initial ? 'Save changes' : `Add ${noun}`}
          cancelLockedWhileBusy
          onCancel={onCancel}
        />
      </Stack>
    </form>
  )
}

function PointsCell({ item }: { item: CatalogueItem }) {
  return (
    <>
      {formatPoints(item.points)}
      {item.own_points === null && (
        <Text span size="xs" c="dimmed">
          {' '}
          (from price)
        </Text>
      )}
    </>
  )
}

const daysText = (days: number) => (days === 0 ? 'No limit' : `${days} day${days === 1 ? '' : 's'}`)

/**
 * One half of the catalogue (treatments or products): a table from 768 px and cards below, with
 * Add, Edit and Archive (or Restore, in the archived view) for those who may change it.
 */
export function CatalogueSection({
  title,
  noun,
  items,
  archived,
  canManage,
  pointsPerDollar,
  onSave,
  onArchive,
}: {
  title: string
  /** "treatment" or "product". */
  noun: string
  items: CatalogueItem[]
  archived: boolean
  canManage: boolean
  pointsPerDollar: number
  onSave: (input: CatalogueItemInput, id?: number) => Promise<SaveRefusal | undefined>
  onArchive: (item: CatalogueItem, archived: boolean) => Promise<string | undefined>
}) {
  const [editing, setEditing] = useState<CatalogueItem | 'new' | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  /** The item whose archive (or restore) is being saved. */
  const [archiving, setArchiving] = useState<number | null>(null)
  const headingId = `catalogue-${noun}`
  const actions = (item: CatalogueItem) =>
    canManage && (
      <Group gap="xs" justify="flex-end" wrap="nowrap">
        {!archived && (
          <Button
            size="xs"
            variant="default"
            onClick={() => setEditing(item)}
            aria-label={`Edit ${item.name}`}
          >
            Edit
          </Button>
        )}
        <Button
          size="xs"
          variant="default"
          aria-label={`${archived ? 'Restore' : 'Archive'} ${item.name}`}
          loading={archiving === item.id}
          onClick={async () => {
            setFailure(null)
            setArchiving(item.id)
            const refused = await onArchive(item, !archived)
            setArchiving(null)
            if (refused) setFailure(refused)
          }}
        >
          {archived ? 'Restore' : 'Archive'}
        </Button>
      </Group>
    )
  return (
    <Stack gap="sm" component="section" aria-labelledby={headingId}>
      <Group justify="space-between" align="center">
        <Title order={2} size="h4" id={headingId}>
          {title}
        </Title>
        {canManage && !archived && (
          <Button
            size="sm"
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => setEditing('new')}
          >
            Add {noun}
          </Button>
        )}
      </Group>
      <FailureAlert>{failure}</FailureAlert>
      {items.length === 0 ? (
        <EmptyNote>{archived ? `No archived ${noun}s.` : `No ${noun}s yet.`}</EmptyNote>
      ) : (
        <>
          <Table visibleFrom="sm" striped verticalSpacing="sm" aria-labelledby={headingId}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th ta="right">Price</Table.Th>
                <Table.Th ta="right">Points per unit</Table.Th>
                <Table.Th>Days between awards</Table.Th>
                {canManage && (
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((item) => (
                <Table.Tr key={item.id}>
                  <Table.Td fw={600}>{item.name}</Table.Td>
                  <Table.Td ta="right">{formatCents(item.price)}</Table.Td>
                  <Table.Td ta="right">
                    <PointsCell item={item} />
                  </Table.Td>
                  <Table.Td>{daysText(item.min_days_between)}</Table.Td>
                  {canManage && <Table.Td>{actions(item)}</Table.Td>}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <CardList items={items} itemKey={(item) => item.id}>
            {(item) => (
              <Stack gap={6}>
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {item.name}
                  </Text>
                  <Text fw={600}>{formatCents(item.price)}</Text>
                </Group>
                <Text size="sm" c="dimmed">
                  <PointsCell item={item} /> points per unit ·{' '}
                  {daysText(item.min_days_between).toLowerCase()} between awards
                </Text>
                {actions(item)}
              </Stack>
            )}
          </CardList>
        </>
      )}
      <TaskModal
        subject={editing}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? `Add ${noun}` : `Edit ${noun}`}
      >
        {(item, finish) => (
          <ItemForm
            noun={noun}
            initial={item === 'new' ? null : item}
            pointsPerDollar={pointsPerDollar}
            onCancel={() => setEditing(null)}
            onSave={(input) => finish(onSave(input, item === 'new' ? undefined : item.id))}
          />
        )}
      </TaskModal>
    </Stack>
  )
}

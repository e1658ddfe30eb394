import {
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
  VisuallyHidden,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import * as v from 'valibot'
import {
  describeEntry,
  type LedgerEntry,
  type LedgerPage,
  MAX_ENTRY_POINTS,
} from '#domain/ledger.ts'
import { formatPhone } from '#domain/phone.ts'
import { formatPoints, pointsText, signedPoints } from '#domain/points.ts'
import type { Patient } from '#domain/practice-data.ts'
import { formatCents, formatDate, formatDateTime } from '#src/lib/format.ts'
import { TaskModal } from '#src/ui/app-modal.tsx'
import { CardList } from '#src/ui/card-list.tsx'
import { ConfirmDialog, DialogForm } from '#src/ui/dialog-actions.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { AnchorLink, ButtonLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'

/** What the signed-in person may do here (from the permission matrix). */
export type ProfileAbilities = { adjust: boolean; archive: boolean; merge?: boolean }

/** The answer of an action: nothing when it worked, else the sentence to show. */
export type ActionResult = string | undefined

const signed = (n: number) => signedPoints(n)

/**
 * A patient's profile: contact details, the balance and its worth, the points lapsing soon, and
 * the ledger history with who made each entry and why. Managers and admins adjust points and
 * reverse an entry, each with a reason; everyone else sees no such control.
 */
export function PatientProfile({
  patient,
  ledger,
  can,
  onEdit,
  onAdjust,
  onReverse,
  onArchive,
  onLedgerPage,
  onMerge,
  mergedInto,
}: {
  patient: Patient
  ledger: LedgerPage
  can: ProfileAbilities
  /** Opens "Merge patients" (Manager, Admin). */
  onMerge?: () => void
  /** The patient this one was merged into, when it was. */
  mergedInto?: { id: number; name: string } | undefined
  onEdit: () => void
  onAdjust: (points: number, reason: string) => Promise<ActionResult>
  onReverse: (entry: LedgerEntry, reason: string) => Promise<ActionResult>
  onArchive: (archived: boolean) => Promise<ActionResult>
  onLedgerPage: (page: number) => void
}) {
  const [adjusting, setAdjusting] = useState(false)
  const [reversing, setReversing] = useState<LedgerEntry>()
  const [archiving, setArchiving] = useState(false)
  const soon = ledger.expiring_soon.reduce((sum, lot) => sum + lot.points, 0)
  return (
    <Stack gap="lg">
      {patient.merged_into_id ? (
        <Alert color="gray" variant="light" title="Merged">
          <Text size="sm">
            Merged into{' '}
            {mergedInto ? (
              <AnchorLink
                to="/patients/$patientId"
                params={{ patientId: String(mergedInto.id) }}
                fw={600}
              >
                {mergedInto.name}
              </AnchorLink>
            ) : (
              `patient #${patient.merged_into_id}`
            )}
            : this record is archived, and its points, visits and history are on that patient.
          </Text>
        </Alert>
      ) : (
        patient.archived && (
          <Alert color="gray" variant="light" title="Archived">
            This patient is archived: they are not listed and get no e-mail. Their history stays.
          </Alert>
        )
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <Group justify="space-between" wrap="nowrap">
              <Title order={2} size="h4">
                Contact details
              </Title>
              {/* A merged record is kept as it was: its details and points live on. */}
              {!patient.merged_into_id && (
                <Button variant="default" size="xs" onClick={onEdit}>
                  Edit details
                </Button>
              )}
            </Group>
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
              <LabelledValue label="Phone" value={formatPhone(patient.phone) || '—'} />
              <LabelledValue label="E-mail" value={patient.email ?? '—'} />
              <LabelledValue
                label="Birth date"
                value={patient.birth_date ? formatDate(`${patient.birth_date}T12:00:00Z`) : '—'}
              />
              <LabelledValue
                label="Consent"
                value={
                  [
                    patient.email_subscription && 'E-mail',
                    patient.sms_subscription && 'Text messages',
                  ]
                    .filter(Boolean)
                    .join(', ') || 'None'
                }
              />
              <LabelledValue label="Patient since" value={formatDate(patient.created_at)} />
              <LabelledValue
                label="Last visit"
                value={patient.last_visit_at ? formatDate(patient.last_visit_at) : '—'}
              />
            </SimpleGrid>
          </Stack>
        </Paper>
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <Title order={2} size="h4">
              Points
            </Title>
            <Group gap="xs" align="baseline">
              <Text fz={32} fw={700} lh={1}>
                {formatPoints(ledger.balance)}
              </Text>
              <Text c="dimmed">points, worth {formatCents(ledger.balance_value_cents)}</Text>
            </Group>
            {soon > 0 ? (
              <Stack gap={4}>
                <Text size="sm" fw={600}>
                  Expiring soon
                </Text>
                {ledger.expiring_soon.map((lot) => (
                  <Text size="sm" key={lot.expires_at}>
                    {pointsText(lot.points)} on {formatDate(lot.expires_at)}
                  </Text>
                ))}
              </Stack>
            ) : (
              <Text size="sm" c="dimmed">
                No points expire in the next 60 days.
              </Text>
            )}
            <Group gap="sm">
              {!patient.archived && (
                <ButtonLink to="/checkout" search={{ patientId: patient.id }}>
                  Record visit
                </ButtonLink>
              )}
              {can.adjust && !patient.merged_into_id && (
                <Button variant="default" onClick={() => setAdjusting(true)}>
                  Adjust points
                </Button>
              )}
              {can.archive && !patient.merged_into_id && (
                <Button variant="default" onClick={() => setArchiving(true)}>
                  {patient.archived ? 'Restore' : 'Archive'}
                </Button>
              )}
              {can.merge && onMerge && !patient.archived && (
                <Button variant="default" onClick={onMerge}>
                  Merge…
                </Button>
              )}
            </Group>
          </Stack>
        </Paper>
      </SimpleGrid>

      <Stack gap="sm">
        <Title order={2} size="h4">
          History
        </Title>
        {ledger.data.length === 0 ? (
          <Text c="dimmed">No points yet.</Text>
        ) : (
          <>
            <Table visibleFrom="sm" verticalSpacing="sm" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>What</Table.Th>
                  <Table.Th>By</Table.Th>
                  <Table.Th ta="right">Points</Table.Th>
                  <Table.Th ta="right">Balance</Table.Th>
                  {can.adjust && (
                    <Table.Th>
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {ledger.data.map((entry) => (
                  <Table.Tr key={entry.id}>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      {formatDateTime(entry.created_at)}
                    </Table.Td>
                    <Table.Td>
                      {describeEntry(entry)}
                      {entry.reversed_by !== null && (
                        <Badge ml="xs" color="gray" variant="light">
                          Reversed
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>{authorName(entry)}</Table.Td>
                    <Table.Td ta="right">{signed(entry.points)}</Table.Td>
                    <Table.Td ta="right">{formatPoints(entry.balance_after)}</Table.Td>
                    {can.adjust && (
                      <Table.Td ta="right">
                        {isReversible(entry) && (
                          <Button size="xs" variant="subtle" onClick={() => setReversing(entry)}>
                            Reverse
                            <VisuallyHidden>
                              {' '}
                              entry of {formatDateTime(entry.created_at)}
                            </VisuallyHidden>
                          </Button>
                        )}
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <CardList items={ledger.data} itemKey={(entry) => entry.id}>
              {(entry) => (
                <Stack gap={4}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Text fw={500} style={{ overflowWrap: 'anywhere' }}>
                      {describeEntry(entry)}
                    </Text>
                    <Text fw={700} style={{ whiteSpace: 'nowrap' }}>
                      {signed(entry.points)}
                    </Text>
                  </Group>
                  <Text size="sm" c="dimmed">
                    {formatDateTime(entry.created_at)} · {authorName(entry)} · balance{' '}
                    {formatPoints(entry.balance_after)}
                  </Text>
                  {entry.reversed_by !== null && (
                    <Badge color="gray" variant="light">
                      Reversed
                    </Badge>
                  )}
                  {can.adjust && isReversible(entry) && (
                    <Button size="xs" variant="default" onClick={() => setReversing(entry)}>
                      Reverse
                    </Button>
                  )}
                </Stack>
              )}
            </CardList>
          </>
        )}
        <ListPagination
          list={ledger}
          onPage={onLedgerPage}
          itemLabel={(n) => `History page ${n}`}
        />
      </Stack>

      <TaskModal subject={adjusting} onClose={() => setAdjusting(false)} title="Adjust points">
        {(_, finish) => (
          <AdjustForm
            balance={ledger.balance}
            onCancel={() => setAdjusting(false)}
            onSubmit={(points, reason) => finish(onAdjust(points, reason))}
          />
        )}
      </TaskModal>
      <TaskModal subject={reversing} onClose={() => setReversing(undefined)} title="Reverse entry">
        {(entry, finish) => (
          <ReasonForm
            intro={`“${describeEntry(entry)}” (${signed(entry.points)} points) will be cancelled by a new entry of ${signed(-entry.points)} points.`}
            submitLabel="Reverse entry"
            onCancel={() => setReversing(undefined)}
            onSubmit={(reason) => finish(onReverse(entry, reason))}
          />
        )}
      </TaskModal>
      <TaskModal
        subject={archiving}
        onClose={() => setArchiving(false)}
        title={patient.archived ? 'Restore patient' : 'Archive patient'}
      >
        {(_, finish) => (
          <ConfirmArchive
            archived={patient.archived}
            name={`${patient.first_name} ${patient.last_name}`}
            onCancel={() => setArchiving(false)}
            onConfirm={() => finish(onArchive(!patient.archived))}
          />
        )}
      </TaskModal>
    </Stack>
  )
}

function authorName(entry: LedgerEntry): string {
  if (entry.created_by) return `${entry.created_by.first_name} ${entry.created_by.last_name}`
  // Points a Nextech bill earned, and their reversal when the bill was voided.
  const fromNextech = entry.source_type === 'nextech' || entry.reason?.startsWith('Nextech bill')
  return fromNextech ? 'Nextech sync' : 'System'
}

function isReversible(entry: LedgerEntry): boolean {
  return entry.reversed_by === null && entry.kind !== 'expire' && entry.kind !== 'reverse'
}

const ReasonSchema = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty('Please give a reason.'),
  v.maxLength(500, 'The reason can be at most 500 characters.'),
)

function AdjustForm({
  balance,
  onCancel,
  onSubmit,
}: {
  balance: number
  onCancel: () => void
  onSubmit: (points: number, reason: string) => Promise<ActionResult>
}) {
  const form = useForm<{ points: number | string; reason: string }>({
    mode: 'uncontrolled',
    initialValues: { points: '', reason: '' },
    validate: schemaResolver(
      v.object({
        points: v.pipe(
          v.number('Please enter a number of points, e.g. 500 or -200.'),
          v.integer('Points must be a whole number.'),
          v.check((n) => n !== 0, 'Please enter a number of points other than 0.'),
          v.check(
            (n) => n >= -balance,
            `The balance is ${formatPoints(balance)}: it cannot go below 0.`,
          ),
          v.maxValue(
            MAX_ENTRY_POINTS,
            `A change can move at most ${pointsText(MAX_ENTRY_POINTS)}.`,
          ),
        ),
        reason: ReasonSchema,
      }),
      { sync: true },
    ),
  })
  return (
    <DialogForm
      form={form}
      actionLabel="Save adjustment"
      onCancel={onCancel}
      onSubmit={(values) => onSubmit(Number(values.points), values.reason.trim())}
    >
      <Text size="sm">
        Current balance: {pointsText(balance)}. Use a minus sign to take points away.
      </Text>
      <NumberInput
        label="Points"
        required
        allowDecimal={false}
        hideControls
        data-autofocus
        key={form.key('points')}
        {...form.getInputProps('points')}
      />
      <Textarea
        label="Reason"
        required
        description="Shown in the patient's history and the activity log"
        autosize
        minRows={2}
        key={form.key('reason')}
        {...form.getInputProps('reason')}
      />
    </DialogForm>
  )
}

function ReasonForm({
  intro,
  submitLabel,
  onCancel,
  onSubmit,
}: {
  intro: string
  submitLabel: string
  onCancel: () => void
  onSubmit: (reason: string) => Promise<ActionResult>
}) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { reason: '' },
    validate: schemaResolver(v.object({ reason: ReasonSchema }), { sync: true }),
  })
  return (
    <DialogForm
      form={form}
      actionLabel={submitLabel}
      color="red"
      onCancel={onCancel}
      onSubmit={(values) => onSubmit(values.reason.trim())}
    >
      <Text size="sm">{intro}</Text>
      <Textarea
        label="Reason"
        required
        autosize
        minRows={2}
        data-autofocus
        key={form.key('reason')}
        {...form.getInputProps('reason')}
      />
    </DialogForm>
  )
}

function ConfirmArchive({
  archived,
  name,
  onCancel,
  onConfirm,
}: {
  archived: boolean
  name: string
  onCancel: () => void
  onConfirm: () => Promise<ActionResult>
}) {
  return (
    <ConfirmDialog
      text={
        archived
          ? `${name} will be listed again and can receive e-mail if they agreed to it.`
          : `${name} will no longer be listed or e-mailed. Their points and history stay, and you can restore them from the Archive.`
      }
      actionLabel={archived ? 'Restore patient' : 'Archive patient'}
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  )
}

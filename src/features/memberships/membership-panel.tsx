import {
  Alert,
  Badge,
  Button,
  Group,
  List,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core'
import { useForm } from '@mantine/form'
import { type ReactNode, useId, useRef, useState } from 'react'
import {
  MEMBERSHIP_MESSAGES,
  type Membership,
  type MembershipBank,
  money,
  type PaymentAccount,
  type Plan,
  STATUS_LABELS,
} from '#domain/memberships.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { formatDate, formatDateTime } from '#src/lib/format.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'
import {
  CardEntry,
  type CardEntryValues,
  cardErrors,
  cardInput,
  EMPTY_CARD,
} from './card-entry.tsx'
import { CHANGE_TITLES, ChangeDialog, type ChangeKind } from './change-dialog.tsx'
import { EnrolForm } from './enrol-form.tsx'
import { StatusBadge } from './member-list.tsx'
import { BankHistory, CELL_END } from './membership-bank.tsx'
import {
  allowanceLeftText,
  cardText,
  chartAllows,
  isLive,
  nextBillText,
  otherPerksTexts,
  perksOnHold,
  rolloverText,
} from './membership-texts.ts'
import type { MembershipCalls, StripeCardFields } from './memberships.actors.ts'
import { PaymentsNotConnected } from './payments-notice.tsx'

/** One line of a membership's history, as `GET /memberships/{id}/events` answers it. */
export type MembershipEventLine = {
  kind: string
  amount_cents: number | null
  at: string
  detail: string
}

/** What the signed-in person may do here (from the permission matrix). */
export type MembershipAbilities = { enrol: boolean; cancelNow: boolean; connect: boolean }

type Dialog = ChangeKind | 'enrol' | 'card' | 'resume' | 'undo-cancel'

/**
 * The patient's membership on the profile. Without one: "Start membership" (the enrolment form).
 * With one, at a glance: the plan (and the version it is grandfathered on), the status (past due,
 * unpaid and paused in words, with what the desk should do), the next bill, the perks left this
 * cycle, the bank and its history; then the card and the agreement, what is scheduled, and the
 * changes the lifecycle chart allows in its status for this role, each confirmed after the server
 * said what it costs. Its history follows. A membership that is over still shows its bank while it
 * holds money: that is the patient's.
 */
export function MembershipPanel({
  patient,
  memberships,
  events,
  bank,
  plans,
  account,
  treatmentNames,
  can,
  calls,
  onChanged,
}: {
  patient: { id: number; first_name: string; last_name: string; archived: boolean }
  /** The patient's memberships, newest first; a sentence when they could not be read. */
  memberships: Membership[] | string
  /** The shown membership's history; a sentence when it could not be read. */
  events: readonly MembershipEventLine[] | string
  /** The shown membership's bank; a sentence when it could not be read; null without one. */
  bank: MembershipBank | string | null
  /** The active plans, to join or move to. */
  plans: readonly Plan[]
  /** The practice's payment account; null when it could not be read. */
  account: PaymentAccount | null
  treatmentNames: ReadonlyMap<number, string>
  can: MembershipAbilities
  calls: MembershipCalls
  /** After a change: the page reads the membership again. */
  onChanged: () => Promise<unknown>
}) {
  const [dialog, setDialog] = useState<Dialog | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  // A declined charge (Charge now, a new card that owes) changed the membership on the server:
  // a failed attempt, the next retry, the card saved. The panel reads it again once closed.
  const declined = useRef(false)
  const onDeclined = () => {
    declined.current = true
  }
  const close = () => {
    setDialog(null)
    if (declined.current) {
      declined.current = false
      void onChanged()
    }
  }
  const done = async (message: string) => {
    declined.current = false
    setDialog(null)
    setNotice(message)
    await onChanged()
  }

  if (typeof memberships === 'string') {
    return (
      <PanelFrame>
        <FailureAlert>{memberships}</FailureAlert>
      </PanelFrame>
    )
  }
  const live = memberships.find((m) => isLive(m.status))
  const shown = live ?? memberships[0]
  const name = `${patient.first_name} ${patient.last_name}`

  return (
    <PanelFrame>
      {notice && (
        <Alert color="green" role="status" withCloseButton onClose={() => setNotice(null)}>
          {notice}
        </Alert>
      )}
      {live ? (
        <MembershipDetails
          membership={live}
          bank={bank}
          currentVersion={plans.find((plan) => plan.id === live.plan.id)?.version}
          treatmentNames={treatmentNames}
          can={can}
          onAction={(next) => {
            setNotice(null)
            setDialog(next)
          }}
        />
      ) : (
        <NoMembership
          previous={shown}
          bank={bank}
          patientArchived={patient.archived}
          account={account}
          hasPlans={plans.length > 0}
          can={can}
          onStart={() => {
            setNotice(null)
            setDialog('enrol')
          }}
        />
      )}
      {shown && <MembershipEvents events={events} />}

      <AppModal
        opened={dialog === 'enrol'}
        onClose={close}
        title={`Start membership for ${name}`}
        size="lg"
      >
        {dialog === 'enrol' && (
          <EnrolForm
            patientId={patient.id}
            patientName={name}
            plans={plans}
            treatmentNames={treatmentNames}
            calls={calls}
            onCancel={close}
            onEnrolled={(membership) =>
              void done(`${name} is now a member of ${membership.plan.name}.`)
            }
          />
        )}
      </AppModal>
      {live && (
        <>
          <AppModal
            opened={dialog !== null && dialog in CHANGE_TITLES}
            onClose={close}
            title={
              dialog && dialog in CHANGE_TITLES ? CHANGE_TITLES[dialog as ChangeKind].title : ''
            }
          >
            {dialog && dialog in CHANGE_TITLES && (
              <ChangeDialog
                kind={dialog as ChangeKind}
                membership={live}
                plans={plans}
                calls={calls}
                onCancel={close}
                onDone={(_, summary) => void done(summary)}
                onDeclined={onDeclined}
              />
            )}
          </AppModal>
          <AppModal opened={dialog === 'resume'} onClose={close} title="Resume membership">
            {dialog === 'resume' && (
              <SimpleConfirm
                text={`Billing starts again: the card on file is charged ${money(live.plan.price_cents)} at the next renewal, and the perks of each paid cycle come back.`}
                actionLabel="Resume membership"
                run={() => calls.resume(live.id)}
                onCancel={close}
                onDone={() => void done('The membership is active again: billing starts again.')}
              />
            )}
          </AppModal>
          <AppModal opened={dialog === 'undo-cancel'} onClose={close} title="Keep membership">
            {dialog === 'undo-cancel' && (
              <SimpleConfirm
                text={`The cancellation is taken back: the membership renews on ${formatDate(live.current_period_end)} for ${money(live.plan.price_cents)}, and at each renewal after.`}
                actionLabel="Keep membership"
                run={() => calls.undoCancel(live.id)}
                onCancel={close}
                onDone={() => void done('The membership is kept: it renews as before.')}
              />
            )}
          </AppModal>
          <AppModal opened={dialog === 'card'} onClose={close} title="Update card">
            {dialog === 'card' && (
              <UpdateCardForm
                membership={live}
                patientName={name}
                calls={calls}
                onCancel={close}
                onDeclined={onDeclined}
                onDone={(membership) =>
                  void done(
                    membership.status === 'active' && live.status !== 'active'
                      ? `The new card was charged: the membership is active again.`
                      : `The card on file is now ${cardText(membership.card)}.`,
                  )
                }
              />
            )}
          </AppModal>
        </>
      )}
    </PanelFrame>
  )
}

function PanelFrame({ children }: { children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="membership-heading">
      <Stack gap="md">
        <Title order={2} size="h4" id="membership-heading">
          Membership
        </Title>
        {children}
      </Stack>
    </Paper>
  )
}

function NoMembership({
  previous,
  bank,
  patientArchived,
  account,
  hasPlans,
  can,
  onStart,
}: {
  previous: Membership | undefined
  bank: MembershipBank | string | null
  patientArchived: boolean
  account: PaymentAccount | null
  hasPlans: boolean
  can: MembershipAbilities
  onStart: () => void
}) {
  const connected = account?.connected !== false
  // The bank of a membership that is over is still the patient's money: it shows while it holds
  // some, or has a history to read.
  const keptBank =
    previous && bank && (typeof bank === 'string' || bank.bank_cents > 0 || bank.data.length > 0)
  return (
    <Stack gap="sm" align="flex-start">
      <Text>
        {previous
          ? `No membership now. The last one, ${previous.plan.name}, is ${STATUS_LABELS[previous.status].toLowerCase()}${previous.ended_at ? ` since ${formatDate(previous.ended_at)}` : ''}.`
          : 'Not a member yet.'}
      </Text>
      {keptBank && (
        <Stack gap="sm" w="100%">
          {typeof bank !== 'string' && (
            <BankBalance
              cents={bank.bank_cents}
              note={
                bank.bank_cents > 0
                  ? 'Still the patient’s: it never expires and pays at checkout with the patient’s code.'
                  : 'Nothing is left in the bank.'
              }
            />
          )}
          <BankHistory bank={bank} />
        </Stack>
      )}
      {patientArchived ? (
        <Text size="sm" c="dimmed">
          {MEMBERSHIP_MESSAGES.archivedPatient}
        </Text>
      ) : !connected ? (
        <PaymentsNotConnected canConnect={can.connect} />
      ) : !hasPlans ? (
        <Text size="sm" c="dimmed">
          No plans yet: a manager or an admin builds them in Memberships.
        </Text>
      ) : can.enrol ? (
        <Button onClick={onStart}>Start membership</Button>
      ) : (
        <Text size="sm" c="dimmed">
          {PERMISSION_REFUSALS['memberships.enrol']}
        </Text>
      )}
    </Stack>
  )
}

function MembershipDetails({
  membership,
  bank,
  currentVersion,
  treatmentNames,
  can,
  onAction,
}: {
  membership: Membership
  bank: MembershipBank | string | null
  /** The plan's version new members join now; undefined when unknown (an archived plan). */
  currentVersion: number | undefined
  treatmentNames: ReadonlyMap<number, string>
  can: MembershipAbilities
  onAction: (dialog: Dialog) => void
}) {
  const { status } = membership
  const allows = (event: Parameters<typeof chartAllows>[1]) => chartAllows(status, event)
  const owes = status === 'past_due' || status === 'unpaid'
  const scheduled = [
    membership.cancel_at_period_end &&
      membership.cancel_at &&
      `Ends on ${formatDate(membership.cancel_at)}: it will not renew.`,
    membership.next_plan &&
      `Moves to ${membership.next_plan.name} (${money(membership.next_plan.price_cents)}) at the next renewal${membership.current_period_end ? `, on ${formatDate(membership.current_period_end)}` : ''}.`,
  ].filter((line): line is string => Boolean(line))
  const grandfathered = currentVersion !== undefined && currentVersion > membership.plan.version

  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Group gap="sm">
          <Text fw={600} size="lg">
            {membership.plan.name}
          </Text>
          {grandfathered && (
            <Badge variant="outline" color="gray">
              Version {membership.plan.version}
            </Badge>
          )}
          <StatusBadge status={status} />
        </Group>
        {grandfathered && (
          <Text size="sm" c="dimmed">
            Kept on version {membership.plan.version} (grandfathered): new members join version{' '}
            {currentVersion}. Its price and perks stay until staff change the plan.
          </Text>
        )}
      </Stack>
      {owes && (
        <Alert
          // White on Mantine's red 6 or orange is below 4.5:1: unpaid is filled dark red (5.5:1),
          // past due the theme's orange tint.
          color={status === 'unpaid' ? 'red.9' : 'orange'}
          variant={status === 'unpaid' ? 'filled' : 'light'}
          role="alert"
          title={status === 'unpaid' ? 'Unpaid: perks are stopped' : 'Payment past due'}
        >
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              {status === 'unpaid'
                ? `Every retry of the renewal was declined and no more are scheduled. Perks stop until ${money(membership.next_plan?.price_cents ?? membership.plan.price_cents)} is paid; the bank stays the patient’s. Ask the patient for another card (“Update card” charges it at once), or charge the card on file now.`
                : `The renewal was declined${membership.failed_attempts > 0 ? ` ${membership.failed_attempts === 1 ? 'once' : `${membership.failed_attempts} times`}` : ''}.${membership.next_payment_attempt_at ? ` The next retry is on ${formatDate(membership.next_payment_attempt_at)}.` : ''} Perks are on hold until it is paid. Ask the patient for another card, or charge now.`}
            </Text>
            {allows('charge.succeeded') && (
              <Button
                color={status === 'unpaid' ? 'dark' : undefined}
                variant={status === 'unpaid' ? 'white' : 'filled'}
                size="xs"
                onClick={() => onAction('charge')}
              >
                Charge now
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {status === 'paused' && (
        <Alert color="blue" variant="light" title="Paused: no charges, no perks">
          <Text size="sm">
            {membership.resumes_at
              ? `Paused: billing starts again on ${formatDate(membership.resumes_at)}.`
              : 'Paused.'}{' '}
            The perks come back with the first paid cycle; the bank can still pay at checkout.
            “Resume” starts billing again sooner if the patient asks.
          </Text>
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
        <LabelledValue label="Next bill" value={nextBillText(membership)} />
        <LabelledValue
          label="Current period"
          value={`${formatDate(membership.current_period_start)} – ${formatDate(membership.current_period_end)}`}
        />
        <LabelledValue label="Card" value={cardText(membership.card)} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <PerksLeft membership={membership} treatmentNames={treatmentNames} />
        <Paper withBorder p="md" radius="md">
          <BankBalance
            cents={membership.bank_cents}
            note="The patient’s own money: it never expires and pays at checkout with the patient’s code."
          />
        </Paper>
      </SimpleGrid>
      {bank !== null && <BankHistory bank={bank} />}
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
        <LabelledValue label="Member since" value={formatDate(membership.started_at)} />
        <LabelledValue
          label="Agreement"
          value={`Accepted by ${membership.consent.accepted_by_name} on ${formatDate(membership.consent.accepted_at)}`}
        />
      </SimpleGrid>
      {scheduled.length > 0 && (
        <Alert color="blue" variant="light" title="Scheduled">
          <Stack gap={2}>
            {scheduled.map((line) => (
              <Text size="sm" key={line}>
                {line}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}
      <Group gap="sm">
        {allows('pause') && !membership.cancel_at_period_end && (
          <Button variant="default" onClick={() => onAction('pause')}>
            Pause
          </Button>
        )}
        {allows('resume') && (
          <Button variant="default" onClick={() => onAction('resume')}>
            Resume
          </Button>
        )}
        {allows('plan.change') && !membership.cancel_at_period_end && (
          <Button variant="default" onClick={() => onAction('change-plan')}>
            Change plan
          </Button>
        )}
        {allows('card.update') && (
          <Button variant="default" onClick={() => onAction('card')}>
            Update card
          </Button>
        )}
        {allows('cancel.at_period_end') && !membership.cancel_at_period_end && (
          <Button variant="light" color="red" onClick={() => onAction('cancel-end')}>
            Cancel at end of term
          </Button>
        )}
        {allows('cancel.undo') && membership.cancel_at_period_end && (
          <Button variant="default" onClick={() => onAction('undo-cancel')}>
            Keep membership
          </Button>
        )}
        {allows('cancel.now') && can.cancelNow && (
          <Button variant="light" color="red" onClick={() => onAction('cancel-now')}>
            Cancel now
          </Button>
        )}
      </Group>
      {allows('cancel.now') && !can.cancelNow && (
        <Text size="sm" c="dimmed">
          {PERMISSION_REFUSALS['memberships.cancelNow']}
        </Text>
      )}
    </Stack>
  )
}

/**
 * What the membership still gives this cycle: each allowance's units left ("1 of 1 HydraFacial
 * left this month") with its rollover cap in words, the member price, the points multiplier and
 * what each paid cycle banks; and why none of it applies in a status that stops the perks.
 */
function PerksLeft({
  membership,
  treatmentNames,
}: {
  membership: Membership
  treatmentNames: ReadonlyMap<number, string>
}) {
  const headingId = useId()
  const { plan } = membership
  const planAllowance = (id: number) =>
    plan.perks.allowances.find((allowance) => allowance.catalogue_item_id === id)
  const others = otherPerksTexts(plan, treatmentNames)
  const hold = perksOnHold(membership.status)
  const none = membership.allowances.length === 0 && others.length === 0
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="xs">
        <Title order={3} size="h5" id={headingId}>
          Perks left this cycle
        </Title>
        {hold && (
          <Text size="sm" fw={500}>
            {hold}
          </Text>
        )}
        {none ? (
          <Text size="sm">This plan has no perks.</Text>
        ) : (
          <List size="sm" spacing={6}>
            {membership.allowances.map((allowance) => {
              const perk = planAllowance(allowance.catalogue_item_id)
              return (
                <List.Item key={allowance.catalogue_item_id}>
                  <Text size="sm" fw={600} span>
                    {allowanceLeftText(allowance, perk?.quantity, plan.interval)}
                  </Text>
                  {perk && (
                    <Text size="xs" c="dimmed">
                      {rolloverText(perk.rollover_cap, plan.interval)}
                    </Text>
                  )}
                </List.Item>
              )
            })}
            {others.map((line) => (
              <List.Item key={line}>{line}</List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Paper>
  )
}

/** The bank's balance, large, with what it means. */
function BankBalance({ cents, note }: { cents: number; note: string }) {
  const headingId = useId()
  return (
    <Stack gap={6} component="section" aria-labelledby={headingId}>
      <Title order={3} size="h5" id={headingId}>
        Bank
      </Title>
      <Text fz={32} fw={700} lh={1}>
        {money(cents)}
      </Text>
      <Text size="sm" c="dimmed">
        {note}
      </Text>
    </Stack>
  )
}

function SimpleConfirm({
  text,
  actionLabel,
  run,
  onCancel,
  onDone,
}: {
  text: string
  actionLabel: string
  run: () => Promise<{ ok: true } | { ok: false; message: string }>
  onCancel: () => void
  onDone: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  return (
    <Stack gap="md">
      <Text size="sm">{text}</Text>
      <FailureAlert>{failure}</FailureAlert>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel}>
          Go back
        </Button>
        <Button
          loading={busy}
          onClick={async () => {
            setBusy(true)
            setFailure(null)
            const answer = await run()
            setBusy(false)
            if (answer.ok) onDone()
            else setFailure(answer.message)
          }}
        >
          {actionLabel}
        </Button>
      </Group>
    </Stack>
  )
}

function UpdateCardForm({
  membership,
  patientName,
  calls,
  onCancel,
  onDone,
  onDeclined,
}: {
  membership: Membership
  patientName: string
  calls: MembershipCalls
  onCancel: () => void
  onDone: (membership: Membership) => void
  /** The new card was saved but its charge declined. */
  onDeclined: () => void
}) {
  const fields = useRef<StripeCardFields | null>(null)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<CardEntryValues>({
    mode: 'controlled',
    initialValues: { ...EMPTY_CARD, name: patientName },
    validate: (values) => cardErrors(calls.mode, values),
    validateInputOnBlur: true,
  })
  const owes = membership.status === 'past_due' || membership.status === 'unpaid'
  return (
    <form
      noValidate
      aria-label="New card"
      onSubmit={form.onSubmit(async (values) => {
        setBusy(true)
        setFailure(null)
        const answer = await calls.updateCard(membership.id, cardInput(values), fields.current)
        setBusy(false)
        if (answer.ok) onDone(answer.value)
        else {
          setFailure(answer.message)
          if (answer.declined) onDeclined()
        }
      })}
    >
      <Stack gap="md">
        <Text size="sm">
          {owes
            ? `The new card is charged ${money(membership.plan.price_cents)} at once for the payment that is due, then at each renewal.`
            : 'The renewals are charged to this card from now on.'}
        </Text>
        <CardEntry
          mode={calls.mode}
          values={form.values}
          inputProps={(field) => form.getInputProps(field)}
          onChange={(field, value) => form.setFieldValue(field, value)}
          fields={fields}
        />
        <FailureAlert>{failure}</FailureAlert>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Go back
          </Button>
          <Button type="submit" loading={busy}>
            {owes ? 'Save card and charge' : 'Save card'}
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** The membership's history: charges, failures, perks issued and used, changes. */
function MembershipEvents({ events }: { events: readonly MembershipEventLine[] | string }) {
  return (
    <Stack gap="xs" component="section" aria-labelledby="membership-history">
      <Title order={3} size="h5" id="membership-history">
        Membership history
      </Title>
      {typeof events === 'string' ? (
        <FailureAlert>{events}</FailureAlert>
      ) : events.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing yet.
        </Text>
      ) : (
        <TableScroll label="Membership history" minWidth={520}>
          <Table striped verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {events.map((event) => (
                <Table.Tr key={`${event.at}-${event.kind}-${event.detail}`}>
                  <Table.Td data-label="When" style={{ whiteSpace: 'nowrap' }}>
                    {formatDateTime(event.at)}
                  </Table.Td>
                  <Table.Td data-label="What">{event.detail}</Table.Td>
                  <Table.Td data-label="Amount" ta={CELL_END}>
                    {event.amount_cents === null ? '—' : money(event.amount_cents)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </Stack>
  )
}

import {
  Badge,
  Box,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, type UseFormReturnType, useForm } from '@mantine/form'
import { IconChevronLeft, IconChevronRight, IconPlus } from '@tabler/icons-react'
import { type ReactNode, useState } from 'react'
import * as v from 'valibot'
import {
  APPOINTMENT_MESSAGES,
  APPOINTMENT_NOTES_MAX_LENGTH,
  type AppointmentDetail,
} from '#domain/appointments.ts'
import { formatTime } from '#src/lib/format.ts'
import { TaskModal } from '#src/ui/app-modal.tsx'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { ConfirmDialog, DialogForm } from '#src/ui/dialog-actions.tsx'
import { AnchorLink, ButtonLink } from '#src/ui/links.tsx'
import { type PatientChoice, PatientPicker } from '#src/ui/patient-picker.tsx'
import classes from './appointments-view.module.css'

/** Day or week, as the address keeps it. */
export type AppointmentsViewMode = 'day' | 'week'

/** What an action answers: nothing when it worked, else the sentence to show. */
export type ActionResult = string | undefined

/** A booking as the form sends it, the start as an instant. */
export type NewAppointment = {
  patient_id: number
  procedure_id: number | null
  starts_at: string
  notes: string
}

const STATUS_COLOR = { scheduled: 'glow', completed: 'green', cancelled: 'gray' } as const

/** Nextech's appointment statuses (FHIR STU3) as the desk reads them. */
const NEXTECH_STATUS_WORDS: Record<string, string> = {
  proposed: 'Proposed',
  pending: 'Pending',
  booked: 'Booked',
  arrived: 'Arrived',
  'checked-in': 'Checked in',
  fulfilled: 'Fulfilled',
  cancelled: 'Cancelled',
  noshow: 'No-show',
  'entered-in-error': 'Entered in error',
}

/** The status Nextech gives an appointment, in words: "No-show", "Booked", "Fulfilled". */
export function nextechStatusInWords(status: string): string {
  const known = NEXTECH_STATUS_WORDS[status.toLowerCase()]
  if (known) return known
  const words = status.replace(/[-_]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const dayTitle = new Intl.DateTimeFormat('en-US', {
  weekday: 'long',
  month: 'long',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
})

/** `2026-11-24` as "Tuesday, November 24, 2026" (the calendar day, as the server counts it). */
export function formatDay(day: string): string {
  return dayTitle.format(new Date(`${day}T00:00:00.000Z`))
}

/** The calendar day `days` after `day` (both `YYYY-MM-DD`). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

/** The Monday of `day`'s week. */
export function mondayOf(day: string): string {
  const weekday = new Date(`${day}T00:00:00.000Z`).getUTCDay()
  return addDays(day, -((weekday + 6) % 7))
}

/** The days a view shows: the day, or the seven days of its week from Monday. */
export function daysShown(day: string, mode: AppointmentsViewMode): string[] {
  if (mode === 'day') return [day]
  const monday = mondayOf(day)
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i))
}

/**
 * The front desk's appointments: a day or a week, moved with Previous, Today, Next or a date;
 * booking, rescheduling, cancelling and deleting, each destructive action asked first. The route
 * owns the address and the calls; this view only shows and asks.
 */
export function AppointmentsView({
  day,
  today,
  mode,
  appointments,
  procedures,
  searchPatients,
  onNavigate,
  onCreate,
  onReschedule,
  onCancel,
  onDelete,
}: {
  day: string
  today: string
  mode: AppointmentsViewMode
  appointments: AppointmentDetail[]
  procedures: { id: number; name: string }[]
  searchPatients: (term: string) => Promise<PatientChoice[]>
  onNavigate: (to: { day?: string; mode?: AppointmentsViewMode }) => void
  onCreate: (input: NewAppointment) => Promise<ActionResult>
  onReschedule: (
    appointment: AppointmentDetail,
    changes: { starts_at: string; notes: string },
  ) => Promise<ActionResult>
  onCancel: (appointment: AppointmentDetail) => Promise<ActionResult>
  onDelete: (appointment: AppointmentDetail) => Promise<ActionResult>
}) {
  const [creating, setCreating] = useState(false)
  const [rescheduling, setRescheduling] = useState<AppointmentDetail>()
  const [confirming, setConfirming] = useState<{
    appointment: AppointmentDetail
    action: 'cancel' | 'delete'
  }>()
  const step = mode === 'day' ? 1 : 7
  const days = daysShown(day, mode)
  const byDay = (shown: string) => appointments.filter((a) => a.starts_at.slice(0, 10) === shown)
  const rangeLabel = mode === 'day' ? formatDay(day) : `Week of ${formatDay(days[0] as string)}`

  return (
    <Stack gap="lg">
      {/* Two rows that each hold together at 390 px: the day (previous, today, next,
          the date) and the view with New appointment; one line from 768 px. */}
      <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <StepButton
            label={mode === 'day' ? 'Previous day' : 'Previous week'}
            leftSection={<IconChevronLeft size={16} aria-hidden />}
            onClick={() => onNavigate({ day: addDays(day, -step) })}
          />
          <Button
            variant="default"
            px={{ base: 'sm', sm: 'md' }}
            onClick={() => onNavigate({ day: today })}
            disabled={day === today}
          >
            Today
          </Button>
          <StepButton
            label={mode === 'day' ? 'Next day' : 'Next week'}
            rightSection={<IconChevronRight size={16} aria-hidden />}
            onClick={() => onNavigate({ day: addDays(day, step) })}
          />
          <TextInput
            type="date"
            label="Date"
            value={day}
            w={{ base: 150, sm: 170 }}
            onChange={(event) => {
              const next = event.currentTarget.value
              if (/^\d{4}-\d{2}-\d{2}$/.test(next)) onNavigate({ day: next })
            }}
          />
        </Group>
        <Group
          gap="sm"
          align="flex-end"
          justify="space-between"
          wrap="nowrap"
          className={classes.viewRow}
        >
          <SegmentedControl
            aria-label="View"
            value={mode}
            onChange={(next) => onNavigate({ mode: next as AppointmentsViewMode })}
            data={[
              { value: 'day', label: 'Day' },
              { value: 'week', label: 'Week' },
            ]}
          />
          <Button
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => setCreating(true)}
          >
            New appointment
          </Button>
        </Group>
      </Group>

      <Title order={2} size="h3" aria-live="polite">
        {rangeLabel}
      </Title>

      {days.map((shown) => {
        const rows = byDay(shown)
        return (
          <Stack key={shown} gap="xs" component="section" aria-label={formatDay(shown)}>
            {mode === 'week' && (
              <Title order={3} size="h5">
                {formatDay(shown)}
                {shown === today ? ' (today)' : ''}
              </Title>
            )}
            {rows.length === 0 ? (
              <EmptyNote>
                {mode === 'day'
                  ? 'No appointments on this day. Book one with "New appointment".'
                  : 'No appointments.'}
              </EmptyNote>
            ) : (
              <SimpleGrid cols={1} spacing="xs">
                {rows.map((appointment) => (
                  <AppointmentCard
                    key={appointment.id}
                    appointment={appointment}
                    onReschedule={() => setRescheduling(appointment)}
                    onCancel={() => setConfirming({ appointment, action: 'cancel' })}
                    onDelete={() => setConfirming({ appointment, action: 'delete' })}
                  />
                ))}
              </SimpleGrid>
            )}
          </Stack>
        )
      })}

      <TaskModal subject={creating} onClose={() => setCreating(false)} title="New appointment">
        {(_, finish) => (
          <NewAppointmentForm
            day={day}
            procedures={procedures}
            searchPatients={searchPatients}
            onCancel={() => setCreating(false)}
            onSubmit={(input) => finish(onCreate(input))}
          />
        )}
      </TaskModal>
      <TaskModal
        subject={rescheduling}
        onClose={() => setRescheduling(undefined)}
        title="Reschedule appointment"
      >
        {(appointment, finish) => (
          <RescheduleForm
            appointment={appointment}
            onCancel={() => setRescheduling(undefined)}
            onSubmit={(changes) => finish(onReschedule(appointment, changes))}
          />
        )}
      </TaskModal>
      <TaskModal
        subject={confirming}
        onClose={() => setConfirming(undefined)}
        title={confirming?.action === 'delete' ? 'Delete appointment' : 'Cancel appointment'}
      >
        {({ appointment, action }, finish) => (
          <ConfirmAction
            text={
              action === 'delete'
                ? `The appointment of ${patientName(appointment)} at ${formatTime(appointment.starts_at)} will be removed for good.`
                : `The appointment of ${patientName(appointment)} at ${formatTime(appointment.starts_at)} will be marked cancelled. It stays on the day so the desk can see it.`
            }
            actionLabel={action === 'delete' ? 'Delete appointment' : 'Cancel appointment'}
            // "Cancel" beside "Cancel appointment" would read as the same action.
            cancelLabel="Keep appointment"
            onCancel={() => setConfirming(undefined)}
            onConfirm={() => finish((action === 'delete' ? onDelete : onCancel)(appointment))}
          />
        )}
      </TaskModal>
    </Stack>
  )
}

function patientName(appointment: AppointmentDetail): string {
  return `${appointment.patient.first_name} ${appointment.patient.last_name}`
}

/**
 * Previous or Next (day or week): its arrow always, its words only from 768 px (the arrow alone is
 * named by `label` for screen readers).
 */
function StepButton({
  label,
  leftSection,
  rightSection,
  onClick,
}: {
  label: string
  leftSection?: ReactNode
  rightSection?: ReactNode
  onClick: () => void
}) {
  return (
    <Button
      variant="default"
      px={{ base: 'xs', sm: 'md' }}
      aria-label={label}
      leftSection={leftSection}
      rightSection={rightSection}
      classNames={{ section: classes.navSection }}
      onClick={onClick}
    >
      <Box component="span" visibleFrom="sm">
        {label}
      </Box>
    </Button>
  )
}

/** A small button of an appointment's card, named for screen readers with the appointment's `name`. */
function CardAction({
  action,
  name,
  variant = 'default',
  color,
  onClick,
}: {
  action: string
  name: string
  variant?: 'default' | 'subtle'
  color?: string
  onClick: () => void
}) {
  return (
    <Button
      size="xs"
      variant={variant}
      color={color}
      onClick={onClick}
      aria-label={`${action} ${name}`}
    >
      {action}
    </Button>
  )
}

function AppointmentCard({
  appointment,
  onReschedule,
  onCancel,
  onDelete,
}: {
  appointment: AppointmentDetail
  onReschedule: () => void
  onCancel: () => void
  onDelete: () => void
}) {
  const name = patientName(appointment)
  const scheduled = appointment.status === 'scheduled'
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      component="article"
      aria-label={`${formatTime(appointment.starts_at)}, ${name}`}
    >
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={700}>{formatTime(appointment.starts_at)}</Text>
            <Badge color={STATUS_COLOR[appointment.status]} variant="light">
              {appointment.status}
            </Badge>
            {appointment.nextech_status !== null && (
              <Badge color="gray" variant="outline">
                Nextech · {nextechStatusInWords(appointment.nextech_status)}
              </Badge>
            )}
          </Group>
          <AnchorLink
            to="/patients/$patientId"
            params={{ patientId: String(appointment.patient_id) }}
            fw={600}
          >
            {name}
          </AnchorLink>
          <Text size="sm" c="dimmed">
            {appointment.procedure?.name ?? 'No procedure chosen'}
          </Text>
          {appointment.notes && (
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {appointment.notes}
            </Text>
          )}
        </Stack>
        <Group gap="xs" wrap="wrap">
          {scheduled && (
            <>
              <CardAction action="Reschedule" name={name} onClick={onReschedule} />
              <CardAction action="Cancel" name={name} onClick={onCancel} />
              <ButtonLink
                size="xs"
                to="/checkout"
                search={{ appointmentId: appointment.id }}
                aria-label={`Complete ${name}`}
              >
                Complete
              </ButtonLink>
            </>
          )}
          {appointment.status === 'completed' ? (
            <Text size="xs" c="dimmed" maw={220}>
              Completed: reverse its visit from the patient's profile.
            </Text>
          ) : (
            <CardAction
              action="Delete"
              name={name}
              variant="subtle"
              color="red"
              onClick={onDelete}
            />
          )}
        </Group>
      </Group>
    </Paper>
  )
}

/** A local date and time from the form as an instant. */
function toInstant(date: string, time: string): string {
  return new Date(`${date}T${time}`).toISOString()
}

/** The local date and time of an instant, as the form's inputs take them. */
function toInputs(iso: string): { date: string; time: string } {
  const local = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  return {
    date: `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`,
    time: `${pad(local.getHours())}:${pad(local.getMinutes())}`,
  }
}

const WhenSchema = {
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'Please choose the date.')),
  time: v.pipe(v.string(), v.regex(/^\d{2}:\d{2}$/, 'Please choose the time.')),
  notes: v.pipe(v.string(), v.maxLength(APPOINTMENT_NOTES_MAX_LENGTH, APPOINTMENT_MESSAGES.notes)),
}

/** The start and the notes of a booking, as both the booking and the reschedule forms ask them. */
function WhenFields<V extends { date: string; time: string; notes: string }>({
  form,
  autofocus = false,
}: {
  form: UseFormReturnType<V>
  autofocus?: boolean
}) {
  return (
    <>
      <Group grow>
        <TextInput
          type="date"
          label="Date"
          required
          data-autofocus={autofocus || undefined}
          key={form.key('date')}
          {...form.getInputProps('date')}
        />
        <TextInput
          type="time"
          label="Time"
          required
          key={form.key('time')}
          {...form.getInputProps('time')}
        />
      </Group>
      <Textarea
        label="Notes"
        autosize
        minRows={2}
        key={form.key('notes')}
        {...form.getInputProps('notes')}
      />
    </>
  )
}

function NewAppointmentForm({
  day,
  procedures,
  searchPatients,
  onCancel,
  onSubmit,
}: {
  day: string
  procedures: { id: number; name: string }[]
  searchPatients: (term: string) => Promise<PatientChoice[]>
  onCancel: () => void
  onSubmit: (input: NewAppointment) => Promise<ActionResult>
}) {
  const [patient, setPatient] = useState<PatientChoice | null>(null)
  const [patientError, setPatientError] = useState<string>()
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { procedure: '', date: day, time: '09:00', notes: '' },
    validate: schemaResolver(v.object({ procedure: v.string(), ...WhenSchema }), { sync: true }),
  })
  return (
    <DialogForm
      form={form}
      actionLabel="Book appointment"
      onCancel={onCancel}
      onSubmit={(values) => {
        if (!patient) {
          setPatientError(APPOINTMENT_MESSAGES.patientNotFound)
          return undefined
        }
        return onSubmit({
          patient_id: patient.id,
          procedure_id: values.procedure ? Number(values.procedure) : null,
          starts_at: toInstant(values.date, values.time),
          notes: values.notes.trim(),
        })
      }}
    >
      <PatientPicker
        value={patient}
        maw={undefined}
        search={searchPatients}
        error={patientError}
        onChange={(next) => {
          setPatient(next)
          setPatientError(undefined)
        }}
      />
      <Select
        label="Procedure"
        placeholder="No procedure chosen"
        clearable
        data={procedures.map((p) => ({ value: String(p.id), label: p.name }))}
        key={form.key('procedure')}
        {...form.getInputProps('procedure')}
      />
      <WhenFields form={form} />
    </DialogForm>
  )
}

function RescheduleForm({
  appointment,
  onCancel,
  onSubmit,
}: {
  appointment: AppointmentDetail
  onCancel: () => void
  onSubmit: (changes: { starts_at: string; notes: string }) => Promise<ActionResult>
}) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { ...toInputs(appointment.starts_at), notes: appointment.notes },
    validate: schemaResolver(v.object(WhenSchema), { sync: true }),
  })
  return (
    <DialogForm
      form={form}
      actionLabel="Reschedule"
      onCancel={onCancel}
      onSubmit={(values) =>
        onSubmit({ starts_at: toInstant(values.date, values.time), notes: values.notes.trim() })
      }
    >
      <Text size="sm">
        {patientName(appointment)}, {appointment.procedure?.name ?? 'no procedure chosen'}
      </Text>
      <WhenFields form={form} autofocus />
    </DialogForm>
  )
}

function ConfirmAction({
  text,
  actionLabel,
  cancelLabel,
  onCancel,
  onConfirm,
}: {
  text: string
  actionLabel: string
  cancelLabel: string
  onCancel: () => void
  onConfirm: () => Promise<ActionResult>
}) {
  return (
    <ConfirmDialog
      text={text}
      actionLabel={actionLabel}
      cancelLabel={cancelLabel}
      color="red"
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  )
}

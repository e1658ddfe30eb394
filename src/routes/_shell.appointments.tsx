import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import * as v from 'valibot'
import {
  cancelAppointment,
  createAppointment,
  deleteAppointment,
  listAppointmentRange,
  toDay,
  updateAppointment,
} from '#src/api/appointments.ts'
import { listPatients } from '#src/api/patients.ts'
import { listProcedures } from '#src/api/procedures.ts'
import {
  AppointmentsView,
  addDays,
  daysShown,
} from '#src/features/appointments/appointments-view.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { type PatientChoice, patientChoice } from '#src/ui/patient-picker.tsx'

/** The day and the view in the address, so a reload or a shared link shows the same. */
const AppointmentsSearchSchema = v.object({
  day: v.optional(v.pipe(v.string(), v.isoDate())),
  view: v.optional(v.picklist(['day', 'week'])),
})
type AppointmentsSearch = { day?: string; view?: 'day' | 'week' }

export const Route = createFileRoute('/_shell/appointments')({
  validateSearch: (search): AppointmentsSearch => {
    const parsed = v.safeParse(AppointmentsSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  // Today's day view stays out of the address: /appointments is today.
  search: { middlewares: [stripSearchParams<AppointmentsSearch>({ view: 'day' })] },
  loaderDeps: ({ search }) => ({ day: search.day, view: search.view ?? 'day' }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const today = toDay(new Date())
      const day = deps.day ?? today
      const days = daysShown(day, deps.view)
      const first = days[0] as string
      const [appointments, procedures] = await Promise.all([
        listAppointmentRange(first, addDays(first, days.length)),
        listProcedures(context.session.practice.id),
      ])
      return { today, day, appointments, procedures }
    }),
  component: AppointmentsPage,
})

async function searchPatients(term: string): Promise<PatientChoice[]> {
  const page = await listPatients({ search: term, pageSize: 10 })
  return page.data.map(patientChoice)
}

function AppointmentsPage() {
  const { today, day, appointments, procedures } = Route.useLoaderData()
  const view = Route.useSearch({ select: (s) => s.view ?? 'day' })
  const navigate = Route.useNavigate()
  // Each change reloads the days shown; a refusal becomes the dialog's sentence.
  const action = useAction()
  return (
    <AreaPage title="Appointments" description="Book, move and cancel the practice's visits.">
      <AppointmentsView
        day={day}
        today={today}
        mode={view}
        appointments={appointments}
        procedures={procedures.filter((p) => !p.archived)}
        searchPatients={searchPatients}
        onNavigate={(to) =>
          void navigate({
            search: (prev) => ({
              ...prev,
              ...(to.day === undefined ? {} : { day: to.day === today ? undefined : to.day }),
              ...(to.mode === undefined ? {} : { view: to.mode }),
            }),
          })
        }
        onCreate={(input) =>
          action.run(async () => {
            const booked = await createAppointment({ ...input, notes: input.notes || undefined })
            const bookedDay = booked.starts_at.slice(0, 10)
            // Show the day it was booked on, so the desk sees it land.
            if (!daysShown(day, view).includes(bookedDay)) {
              await navigate({ search: (prev) => ({ ...prev, day: bookedDay }) })
            }
          })
        }
        onReschedule={(appointment, changes) =>
          action.run(() => updateAppointment(appointment.id, changes))
        }
        onCancel={(appointment) => action.run(() => cancelAppointment(appointment.id))}
        onDelete={(appointment) => action.run(() => deleteAppointment(appointment.id))}
      />
    </AreaPage>
  )
}

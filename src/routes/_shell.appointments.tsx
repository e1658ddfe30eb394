import { createFileRoute } from '@tanstack/react-router'
import { listAppointments, toDay } from '#src/api/appointments.ts'
import { patientNames } from '#src/api/patients.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { AppointmentsTable } from '#src/features/shell/appointments-table.tsx'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { formatDate } from '#src/features/shell/format.ts'
import { loadData } from '#src/lib/load-data.ts'

export const Route = createFileRoute('/_shell/appointments')({
  loader: ({ context }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      const today = new Date()
      const [appointments, procedures] = await Promise.all([
        listAppointments(practiceId, toDay(today)),
        listProcedures(practiceId),
      ])
      // Only the day's patients, by id: the practice's whole patient table is never loaded.
      const names = await patientNames(appointments.map((a) => a.patient_id))
      const procedureNames = new Map(procedures.map((p) => [p.id, p.name]))
      return {
        day: today.toISOString(),
        rows: appointments.map((appointment) => ({
          ...appointment,
          patient: names.get(appointment.patient_id) ?? `Patient #${appointment.patient_id}`,
          procedure:
            appointment.procedure_id === null
              ? '—'
              : (procedureNames.get(appointment.procedure_id) ?? '—'),
        })),
      }
    }),
  component: AppointmentsPage,
})

function AppointmentsPage() {
  const { day, rows } = Route.useLoaderData()
  return (
    <AreaPage title="Appointments" description={`Today, ${formatDate(day)}`}>
      {rows.length === 0 ? (
        <EmptyNote>No appointments today.</EmptyNote>
      ) : (
        <AppointmentsTable label="Today's appointments" rows={rows} withProcedure />
      )}
    </AreaPage>
  )
}

import { Badge, Table } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { listAppointments, toDay } from '#src/api/appointments.ts'
import { patientNames } from '#src/api/patients.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { formatDate, formatTime } from '#src/features/shell/format.ts'
import { loadData } from '#src/lib/load-data.ts'
import { TableScroll } from '#src/ui/table-scroll.tsx'

const STATUS_COLOR = { scheduled: 'glow', completed: 'green', cancelled: 'gray' } as const

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
        <TableScroll label="Today's appointments" minWidth={520}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Patient</Table.Th>
                <Table.Th>Procedure</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td data-label="Time">{formatTime(row.starts_at)}</Table.Td>
                  <Table.Td data-label="Patient">{row.patient}</Table.Td>
                  <Table.Td data-label="Procedure">{row.procedure}</Table.Td>
                  <Table.Td data-label="Status">
                    <Badge color={STATUS_COLOR[row.status]} variant="light">
                      {row.status}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </AreaPage>
  )
}

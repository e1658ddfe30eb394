import { Badge, Table, TextInput } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import * as v from 'valibot'
import { listAppointments } from '#src/api/appointments.ts'
import { listAllPatientsByPractice } from '#src/api/patients.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { formatTime } from '#src/features/shell/format.ts'
import { loadData } from '#src/lib/load-data.ts'
import { TableScroll } from '#src/ui/table-scroll.tsx'

const DAY = /^\d{4}-\d{2}-\d{2}$/

const SearchSchema = v.object({
  day: v.fallback(v.optional(v.pipe(v.string(), v.regex(DAY))), undefined),
})

// The UTC day as toDay() of src/api/appointments.ts writes it. Not imported from there: loaderDeps
// stays in the entry chunk of every page, which must not carry the API client (issue 8).
function yesterday(): string {
  return new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

export const Route = createFileRoute('/_shell/archive')({
  validateSearch: SearchSchema,
  loaderDeps: ({ search }) => ({ day: search.day ?? yesterday() }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      const [appointments, patients] = await Promise.all([
        listAppointments(practiceId, deps.day),
        listAllPatientsByPractice(practiceId),
      ])
      const names = new Map(patients.map((p) => [p.id, `${p.first_name} ${p.last_name}`]))
      return {
        day: deps.day,
        rows: appointments.map((appointment) => ({
          ...appointment,
          patient: names.get(appointment.patient_id) ?? `Patient #${appointment.patient_id}`,
        })),
      }
    }),
  component: ArchivePage,
})

function ArchivePage() {
  const { day, rows } = Route.useLoaderData()
  const navigate = Route.useNavigate()
  return (
    <AreaPage title="Archive" description="Appointments of past days.">
      <TextInput
        type="date"
        label="Day"
        maw={220}
        value={day}
        onChange={(event) => {
          const next = event.currentTarget.value
          if (DAY.test(next)) void navigate({ search: { day: next } })
        }}
      />
      {rows.length === 0 ? (
        <EmptyNote>No appointments on this day.</EmptyNote>
      ) : (
        <TableScroll label="Appointments of the day" minWidth={420}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Patient</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td data-label="Time">{formatTime(row.starts_at)}</Table.Td>
                  <Table.Td data-label="Patient">{row.patient}</Table.Td>
                  <Table.Td data-label="Status">
                    <Badge color={row.status === 'completed' ? 'green' : 'gray'} variant="light">
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

import { Badge, Table } from '@mantine/core'
import type { Appointment } from '#domain/practice-data.ts'
import { formatTime } from '#src/lib/format.ts'
import { TableScroll } from '#src/ui/table-scroll.tsx'

const STATUS_COLOR = { scheduled: 'glow', completed: 'green', cancelled: 'gray' } as const

/** A day's appointment with the names a person reads (the procedure's only where it is shown). */
export type AppointmentRow = Appointment & { patient: string; procedure?: string }

/**
 * A day's appointments: time, patient, the procedure when `withProcedure`, and the status; a
 * table that becomes labelled cards on a phone (TableScroll).
 */
export function AppointmentsTable({
  label,
  rows,
  withProcedure = false,
}: {
  label: string
  rows: AppointmentRow[]
  withProcedure?: boolean
}) {
  return (
    <TableScroll label={label} minWidth={withProcedure ? 520 : 420}>
      <Table striped verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Patient</Table.Th>
            {withProcedure && <Table.Th>Procedure</Table.Th>}
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id}>
              <Table.Td data-label="Time">{formatTime(row.starts_at)}</Table.Td>
              <Table.Td data-label="Patient">{row.patient}</Table.Td>
              {withProcedure && <Table.Td data-label="Procedure">{row.procedure ?? '—'}</Table.Td>}
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
  )
}

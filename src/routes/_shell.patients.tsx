import { Badge, Table } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { listAllPatientsByPractice } from '#src/api/patients.ts'
import { loadData } from '#src/app/load-data.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

export const Route = createFileRoute('/_shell/patients')({
  loader: ({ context }) => loadData(() => listAllPatientsByPractice(context.session.practice.id)),
  component: PatientsPage,
})

function PatientsPage() {
  const patients = Route.useLoaderData()
  return (
    <AreaPage title="Patients" description="Everyone in your rewards programme.">
      {patients.length === 0 ? (
        <EmptyNote>No patients yet.</EmptyNote>
      ) : (
        <TableScroll label="Patients" minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Phone</Table.Th>
                <Table.Th ta="right">Points</Table.Th>
                <Table.Th>E-mail subscription</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {patients.map((patient) => (
                <Table.Tr key={patient.id}>
                  <Table.Td>
                    {patient.first_name} {patient.last_name}
                  </Table.Td>
                  <Table.Td>{patient.email ?? '—'}</Table.Td>
                  <Table.Td>{patient.phone ?? '—'}</Table.Td>
                  <Table.Td ta="right">{patient.points}</Table.Td>
                  <Table.Td>
                    {patient.email_subscription ? (
                      <Badge color="glow" variant="light">
                        Subscribed
                      </Badge>
                    ) : (
                      <Badge color="gray" variant="light">
                        Unsubscribed
                      </Badge>
                    )}
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

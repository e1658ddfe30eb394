import { Badge, Table } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { listUsers } from '#src/api/users.ts'
import { loadData } from '#src/app/load-data.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

export const Route = createFileRoute('/_shell/personnel/')({
  loader: () => loadData(listUsers),
  component: PersonnelPage,
})

function PersonnelPage() {
  const staff = Route.useLoaderData()
  return (
    <AreaPage title="Personnel" description="The staff of your practice.">
      {staff.length === 0 ? (
        <EmptyNote>No staff yet.</EmptyNote>
      ) : (
        <TableScroll label="Staff" minWidth={560}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Position</Table.Th>
                <Table.Th>Access rights</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {staff.map((member) => (
                <Table.Tr key={member.id}>
                  <Table.Td>
                    <AnchorLink to="/personnel/$userId" params={{ userId: String(member.id) }}>
                      {[member.title, member.first_name, member.last_name]
                        .filter(Boolean)
                        .join(' ')}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>{member.email}</Table.Td>
                  <Table.Td>{member.position ?? '—'}</Table.Td>
                  <Table.Td>
                    <Badge
                      color={member.access_rights === 'Admin' ? 'glow' : 'gray'}
                      variant="light"
                    >
                      {member.access_rights}
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

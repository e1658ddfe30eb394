import { Badge, Select, Table } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import * as v from 'valibot'
import { listAllPatientsByPractice } from '#src/api/patients.ts'
import { listPatientPromotions } from '#src/api/promotions.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { formatDateTime } from '#src/features/shell/format.ts'
import { loadData } from '#src/lib/load-data.ts'
import { TableScroll } from '#src/ui/table-scroll.tsx'

const SearchSchema = v.object({
  patient: v.fallback(v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))), undefined),
})

export const Route = createFileRoute('/_shell/promotions')({
  validateSearch: SearchSchema,
  loaderDeps: ({ search }) => ({ patient: search.patient }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const [patients, promotions] = await Promise.all([
        listAllPatientsByPractice(context.session.practice.id),
        deps.patient === undefined ? Promise.resolve(null) : listPatientPromotions(deps.patient),
      ])
      return { patients, promotions }
    }),
  component: PromotionsPage,
})

function PromotionsPage() {
  const { patients, promotions } = Route.useLoaderData()
  const { patient } = Route.useSearch()
  const navigate = Route.useNavigate()
  return (
    <AreaPage title="Promotions" description="The promotions each patient has claimed or redeemed.">
      <Select
        label="Patient"
        placeholder="Choose a patient"
        searchable
        maw={360}
        data={patients.map((p) => ({
          value: String(p.id),
          label: `${p.first_name} ${p.last_name}`,
        }))}
        value={patient === undefined ? null : String(patient)}
        onChange={(value) =>
          void navigate({ search: { patient: value === null ? undefined : Number(value) } })
        }
        nothingFoundMessage="No patient by that name"
      />
      {promotions === null ? (
        <EmptyNote>Choose a patient to see their promotions.</EmptyNote>
      ) : promotions.length === 0 ? (
        <EmptyNote>This patient has no promotions yet.</EmptyNote>
      ) : (
        <TableScroll label="The patient's promotions" minWidth={560}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Promotion</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Claimed</Table.Th>
                <Table.Th>Redeemed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {promotions.map((row) => (
                <Table.Tr key={row.promotion_id}>
                  <Table.Td data-label="Promotion">
                    {row.promotion?.title ?? `Promotion #${row.promotion_id}`}
                  </Table.Td>
                  <Table.Td data-label="Status">
                    <Badge color={row.status === 'redeemed' ? 'green' : 'glow'} variant="light">
                      {row.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td data-label="Claimed">
                    {row.claimed_at ? formatDateTime(row.claimed_at) : '—'}
                  </Table.Td>
                  <Table.Td data-label="Redeemed">
                    {row.redeemed_at ? formatDateTime(row.redeemed_at) : '—'}
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

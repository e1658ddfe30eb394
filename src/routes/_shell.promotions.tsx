import { Badge, Table } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import * as v from 'valibot'
import { getPatient, listPatients } from '#src/api/patients.ts'
import { listPatientPromotions } from '#src/api/promotions.ts'
import { type PatientChoice, PatientPicker } from '#src/features/patients/patient-picker.tsx'
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
  // The chosen patient only, by id: the picker asks the server as the user types.
  loader: ({ deps }) =>
    loadData(async () => {
      if (deps.patient === undefined) return { chosen: null, promotions: null }
      const [patient, promotions] = await Promise.all([
        getPatient(deps.patient),
        listPatientPromotions(deps.patient),
      ])
      return { chosen: toChoice(patient), promotions }
    }),
  component: PromotionsPage,
})

/** A patient as the picker shows it: the name, and the phone that tells two namesakes apart. */
function toChoice(patient: {
  id: number
  first_name: string
  last_name: string
  phone?: string | null
}): PatientChoice {
  const name = `${patient.first_name} ${patient.last_name}`
  return { id: patient.id, label: patient.phone ? `${name} · ${patient.phone}` : name }
}

async function searchPatients(term: string): Promise<PatientChoice[]> {
  const page = await listPatients({ search: term, pageSize: 10 })
  return page.data.map(toChoice)
}

function PromotionsPage() {
  const { chosen, promotions } = Route.useLoaderData()
  const navigate = Route.useNavigate()
  return (
    <AreaPage title="Promotions" description="The promotions each patient has claimed or redeemed.">
      <PatientPicker
        value={chosen}
        search={searchPatients}
        onChange={(next) => void navigate({ search: { patient: next?.id } })}
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

import { IconCopy, IconUpload } from '@tabler/icons-react'
import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { createPatient, listPatients, patientSaveFailure } from '#src/api/patients.ts'
import { fetchReport } from '#src/api/reports.ts'
import { PatientFormModal, toPatientInput } from '#src/features/patients/patient-form.tsx'
import { PatientList } from '#src/features/patients/patient-list.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { ExportCsvButton } from '#src/ui/export-csv-button.tsx'
import { ButtonLink } from '#src/ui/links.tsx'

/** The list's place in the URL: what was searched and which page, so a reload or a link keeps it. */
const PatientsSearchSchema = v.object({
  search: v.optional(v.pipe(v.string(), v.maxLength(100)), ''),
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
})

export const Route = createFileRoute('/_shell/patients/')({
  validateSearch: (search): { search?: string; page?: number } => {
    // A search of digits arrives as a number from the address: it is still a search.
    const raw =
      typeof search.search === 'number' ? { ...search, search: String(search.search) } : search
    const parsed = v.safeParse(PatientsSearchSchema, raw)
    return parsed.success ? parsed.output : {}
  },
  // Defaults stay out of the address: /patients is the first page of everyone.
  search: {
    middlewares: [stripSearchParams<{ search?: string; page?: number }>({ search: '', page: 1 })],
  },
  loaderDeps: ({ search }) => ({ search: search.search ?? '', page: search.page ?? 1 }),
  loader: ({ deps }) =>
    loadData(() => listPatients({ search: deps.search, page: deps.page, pageSize: 25 })),
  component: PatientsPage,
})

function PatientsPage() {
  const page = Route.useLoaderData()
  const search = Route.useSearch({ select: (s) => s.search ?? '' })
  const navigate = Route.useNavigate()
  const action = useAction()
  const [adding, setAdding] = useState(false)
  const canExport = Route.useRouteContext({
    select: (c) => can(toRole(c.session.user.access_rights), 'reports.money'),
  })
  const canImport = Route.useRouteContext({
    select: (c) => can(toRole(c.session.user.access_rights), 'patients.import'),
  })
  const canMerge = Route.useRouteContext({
    select: (c) => can(toRole(c.session.user.access_rights), 'patients.merge'),
  })
  return (
    <AreaPage title="Patients" description="Everyone in your rewards programme.">
      <PatientList
        page={page}
        search={search}
        onSearch={(next) =>
          void navigate({ search: { search: next.trim(), page: 1 }, replace: true })
        }
        onPage={(next) => void navigate({ search: (prev) => ({ ...prev, page: next }) })}
        onAdd={() => setAdding(true)}
        actions={
          (canImport || canExport || canMerge) && (
            <>
              {canMerge && (
                <ButtonLink
                  variant="default"
                  to="/patients/duplicates"
                  leftSection={<IconCopy size={16} aria-hidden />}
                >
                  Possible duplicates
                </ButtonLink>
              )}
              {canImport && (
                <ButtonLink
                  variant="default"
                  to="/patients/import"
                  leftSection={<IconUpload size={16} aria-hidden />}
                >
                  Import CSV
                </ButtonLink>
              )}
              {canExport && (
                <ExportCsvButton download={() => fetchReport('patients')} label="Export CSV" />
              )}
            </>
          )
        }
      />
      <PatientFormModal
        opened={adding}
        title="Add patient"
        submitLabel="Add patient"
        onClose={() => setAdding(false)}
        onSave={(values) =>
          action.run(
            async () => {
              const patient = await createPatient(toPatientInput(values))
              setAdding(false)
              return patient
            },
            {
              failure: patientSaveFailure,
              onSuccess: (patient) =>
                navigate({
                  to: '/patients/$patientId',
                  params: { patientId: String(patient.id) },
                }),
            },
          )
        }
      />
    </AreaPage>
  )
}

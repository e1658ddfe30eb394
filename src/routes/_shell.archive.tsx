import { Stack, TextInput, Title } from '@mantine/core'
import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import * as v from 'valibot'
import { listAppointments } from '#src/api/appointments.ts'
import { listPatients, patientNames } from '#src/api/patients.ts'
import { PatientList } from '#src/features/patients/patient-list.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { AppointmentsTable } from '#src/ui/appointments-table.tsx'
import { AreaPage, EmptyNote } from '#src/ui/area-page.tsx'

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** The archive's place in the URL: the archived patients' search and page, and the past day. */
type ArchiveSearch = { search?: string; page?: number; day?: string }

const SearchSchema = v.object({
  search: v.optional(v.pipe(v.string(), v.maxLength(100)), ''),
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
  day: v.optional(v.pipe(v.string(), v.regex(DAY))),
})

// The UTC day as toDay() of src/api/appointments.ts writes it. Not imported from there: loaderDeps
// stays in the entry chunk of every page, which must not carry the API client.
function yesterday(): string {
  return new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

export const Route = createFileRoute('/_shell/archive')({
  validateSearch: (search): ArchiveSearch => {
    // A search of digits arrives as a number from the address: it is still a search.
    const raw =
      typeof search.search === 'number' ? { ...search, search: String(search.search) } : search
    const parsed = v.safeParse(SearchSchema, raw)
    return parsed.success ? parsed.output : {}
  },
  search: { middlewares: [stripSearchParams<ArchiveSearch>({ search: '', page: 1 })] },
  loaderDeps: ({ search }) => ({
    search: search.search ?? '',
    page: search.page ?? 1,
    day: search.day ?? yesterday(),
  }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const [archived, appointments] = await Promise.all([
        listPatients({ archived: true, search: deps.search, page: deps.page, pageSize: 25 }),
        listAppointments(context.session.practice.id, deps.day),
      ])
      // Only that day's patients, by id: the practice's whole patient table is never loaded.
      const names = await patientNames(appointments.map((a) => a.patient_id))
      return {
        archived,
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
  const { archived, day, rows } = Route.useLoaderData()
  const search = Route.useSearch({ select: (s) => s.search ?? '' })
  const navigate = Route.useNavigate()
  return (
    <AreaPage title="Archive" description="Archived patients, and the appointments of past days.">
      <Stack gap="xl">
        <section aria-labelledby="archived-patients">
          <Title order={2} size="h3" id="archived-patients" mb="sm">
            Archived patients
          </Title>
          <PatientList
            archived
            page={archived}
            search={search}
            onSearch={(next) =>
              void navigate({
                search: (prev) => ({ ...prev, search: next.trim(), page: 1 }),
                replace: true,
              })
            }
            onPage={(next) => void navigate({ search: (prev) => ({ ...prev, page: next }) })}
          />
        </section>
        <section aria-labelledby="past-appointments">
          <Title order={2} size="h3" id="past-appointments" mb="sm">
            Past appointments
          </Title>
          <Stack gap="md">
            <TextInput
              type="date"
              label="Day"
              maw={220}
              value={day}
              onChange={(event) => {
                const next = event.currentTarget.value
                if (DAY.test(next)) void navigate({ search: (prev) => ({ ...prev, day: next }) })
              }}
            />
            {rows.length === 0 ? (
              <EmptyNote>No appointments on this day.</EmptyNote>
            ) : (
              <AppointmentsTable label="Appointments of the day" rows={rows} />
            )}
          </Stack>
        </section>
      </Stack>
    </AreaPage>
  )
}

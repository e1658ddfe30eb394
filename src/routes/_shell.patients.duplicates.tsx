import { Alert } from '@mantine/core'
import { createFileRoute, stripSearchParams, useRouter } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import type { DuplicatePair } from '#domain/patient-merge.ts'
import { can, PERMISSION_REFUSALS, toRole } from '#domain/permissions.ts'
import { formatPhone } from '#domain/phone.ts'
import { listDuplicates } from '#src/api/patient-merge.ts'
import { DuplicateList } from '#src/features/patients/duplicate-list.tsx'
import { MergeDialog } from '#src/features/patients/merge-dialog.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { mergeCalls, searchMergePatients } from './-patient-merge-calls.ts'

const DuplicatesSearchSchema = v.object({
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
})

export const Route = createFileRoute('/_shell/patients/duplicates')({
  validateSearch: (search): { page?: number } => {
    const parsed = v.safeParse(DuplicatesSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  search: { middlewares: [stripSearchParams<{ page?: number }>({ page: 1 })] },
  loaderDeps: ({ search }) => ({ page: search.page ?? 1 }),
  // Staff never reach the server's refusal: the page says what role is needed instead.
  loader: ({ deps, context }) =>
    can(toRole(context.session.user.access_rights), 'patients.merge')
      ? loadData(() => listDuplicates(deps.page))
      : null,
  component: DuplicatesPage,
})

const side = (p: DuplicatePair['first']) => ({
  id: p.id,
  name: `${p.first_name} ${p.last_name}`,
  detail: [formatPhone(p.phone), p.email].filter(Boolean).join(' · ') || undefined,
})

function DuplicatesPage() {
  const page = Route.useLoaderData()
  const navigate = Route.useNavigate()
  const router = useRouter()
  const [merging, setMerging] = useState<DuplicatePair>()
  const [calls, setCalls] = useState(mergeCalls)
  const close = () => {
    setMerging(undefined)
    void router.invalidate()
  }
  return (
    <AreaPage
      title="Possible duplicates"
      description="Patients who share a phone number or an e-mail: merge the pairs that are one person."
    >
      {page === null ? (
        <Alert color="gray" variant="light">
          {PERMISSION_REFUSALS['patients.merge']}
        </Alert>
      ) : (
        <DuplicateList
          page={page}
          onPage={(next) => void navigate({ search: { page: next } })}
          onMerge={(pair) => {
            setCalls(mergeCalls())
            setMerging(pair)
          }}
        />
      )}
      {merging && (
        <MergeDialog
          opened
          onClose={close}
          first={side(merging.first)}
          second={side(merging.second)}
          searchPatients={searchMergePatients}
          preview={calls.preview}
          merge={calls.merge}
          onOpenKept={(keptId) =>
            void navigate({ to: '/patients/$patientId', params: { patientId: String(keptId) } })
          }
        />
      )}
    </AreaPage>
  )
}

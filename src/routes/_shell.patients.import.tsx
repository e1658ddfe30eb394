import { Alert } from '@mantine/core'
import { createFileRoute, useRouter } from '@tanstack/react-router'
import { useActorRef } from '@xstate/react'
import { can, PERMISSION_REFUSALS, toRole } from '#domain/permissions.ts'
import { patientImportMachine } from '#machines/patient-import/patient-import.machine.ts'
import { patientImportActors } from '#src/features/patient-import/patient-import.actors.ts'
import { PatientImportView } from '#src/features/patient-import/patient-import-view.tsx'
import { saveFile } from '#src/lib/save-file.ts'
import { AreaPage } from '#src/ui/area-page.tsx'

export const Route = createFileRoute('/_shell/patients/import')({
  component: PatientImportPage,
})

function PatientImportPage() {
  const allowed = Route.useRouteContext({
    select: (c) => can(toRole(c.session.user.access_rights), 'patients.import'),
  })
  return (
    <AreaPage
      title="Import patients"
      description="Add many patients at once from a CSV file; patients already in the practice are not added twice."
    >
      {allowed ? (
        <ImportFlow />
      ) : (
        <Alert color="gray" variant="light">
          {PERMISSION_REFUSALS['patients.import']}
        </Alert>
      )}
    </AreaPage>
  )
}

function ImportFlow() {
  const router = useRouter()
  const actorRef = useActorRef(
    patientImportMachine.provide({
      actors: patientImportActors,
      actions: {
        onImported: () => {
          void router.invalidate()
        },
        onDownloadRejected: (_, { csv, fileName }) =>
          saveFile(new Blob([csv], { type: 'text/csv;charset=utf-8' }), fileName),
      },
    }),
    { input: {} },
  )
  return <PatientImportView actorRef={actorRef} />
}

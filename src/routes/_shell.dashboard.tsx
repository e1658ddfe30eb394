import { Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { can, toRole } from '#domain/permissions.ts'
import { listAppointments, toDay } from '#src/api/appointments.ts'
import { patientSummary } from '#src/api/patients.ts'
import { fetchReport } from '#src/api/reports.ts'
import { ExportCsvButton } from '#src/features/reports/export-csv-button.tsx'
import { AreaPage } from '#src/features/shell/area-page.tsx'
import { loadData } from '#src/lib/load-data.ts'

export const Route = createFileRoute('/_shell/dashboard')({
  loader: ({ context }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      // Counted in the database: the dashboard never loads the patient table.
      const [summary, appointments] = await Promise.all([
        patientSummary(),
        listAppointments(practiceId, toDay(new Date())),
      ])
      return { ...summary, appointmentsToday: appointments.length }
    }),
  component: DashboardPage,
})

function DashboardPage() {
  const counts = Route.useLoaderData()
  const practice = Route.useRouteContext({ select: (context) => context.session.practice })
  const canExport = Route.useRouteContext({
    select: (context) => can(toRole(context.session.user.access_rights), 'reports.money'),
  })
  const tiles = [
    { label: 'Patients', value: counts.patients },
    { label: 'Subscribed to e-mail', value: counts.subscribed },
    { label: 'Converted patients', value: counts.converted },
    { label: 'Appointments today', value: counts.appointmentsToday },
  ]
  return (
    <AreaPage title="Dashboard" description={practice.practice_name}>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
        {tiles.map((tile) => (
          <Paper key={tile.label} withBorder p="md" radius="md">
            <Text size="sm" c="dimmed">
              {tile.label}
            </Text>
            <Text fz={32} fw={700} lh={1.2}>
              {tile.value}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {canExport && (
        <Paper withBorder p="md" radius="md">
          <Stack gap="sm">
            <Title order={2} size="h4">
              Exports
            </Title>
            <Text size="sm" c="dimmed">
              Every points entry of the practice (earned, redeemed, adjusted, expired, reversed),
              with the patient and the staff member, for your accountant or your own sheets.
            </Text>
            <Group>
              <ExportCsvButton download={() => fetchReport('ledger')} label="Export ledger CSV" />
            </Group>
          </Stack>
        </Paper>
      )}
    </AreaPage>
  )
}

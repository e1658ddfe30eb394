import { Image, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { AreaPage } from '#src/features/shell/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

export const Route = createFileRoute('/_shell/settings')({
  component: SettingsPage,
})

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={500}>{value}</Text>
    </Stack>
  )
}

function SettingsPage() {
  const { user, practice } = Route.useRouteContext({ select: (context) => context.session })
  return (
    <AreaPage title="Settings" description="Your practice and your account.">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <Title order={2} size="h4">
              Practice
            </Title>
            <Row label="Practice name" value={practice.practice_name} />
            <Stack gap={4}>
              <Text size="sm" c="dimmed">
                Logo
              </Text>
              <Image
                src={practice.image_path ?? '/logo.svg'}
                alt="Practice logo"
                h={40}
                w="auto"
                maw={200}
                fit="contain"
              />
            </Stack>
          </Stack>
        </Paper>
        <Paper withBorder p="lg" radius="md">
          <Stack gap="md">
            <Title order={2} size="h4">
              Account
            </Title>
            <Row label="Name" value={`${user.first_name} ${user.last_name}`} />
            <Row label="Email" value={user.email} />
            <Row label="Access rights" value={user.access_rights} />
            <AnchorLink to="/personnel/$userId" params={{ userId: String(user.id) }}>
              Open My Profile
            </AnchorLink>
          </Stack>
        </Paper>
      </SimpleGrid>
    </AreaPage>
  )
}

import { Image, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { createFileRoute, useRouter } from '@tanstack/react-router'
import { can, PERMISSION_REFUSALS, toRole } from '#domain/permissions.ts'
import type { PracticeSettingsInput } from '#domain/practice-settings.ts'
import { getProgrammeRules, saveProgrammeRules } from '#src/api/ledger.ts'
import { getPractice, savePractice } from '#src/api/practice.ts'
import { removePracticeLogo, savePracticeLogo } from '#src/api/uploads.ts'
import { PracticeDetailsSection } from '#src/features/settings/practice-details.tsx'
import { PracticeLogoSection } from '#src/features/settings/practice-logo.tsx'
import { ProgrammeRulesSection } from '#src/features/settings/programme-rules.tsx'
import { SubscriptionSection } from '#src/features/settings/subscription.tsx'
import { AreaPage } from '#src/features/shell/area-page.tsx'
import { apiErrorMessage, apiFieldErrors } from '#src/lib/http.ts'
import { loadData } from '#src/lib/load-data.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'
import { AnchorLink } from '#src/ui/links.tsx'

export const Route = createFileRoute('/_shell/settings')({
  loader: () =>
    loadData(async () => {
      const [rules, details] = await Promise.all([getProgrammeRules(), getPractice()])
      return { rules, details }
    }),
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
  const { rules, details } = Route.useLoaderData()
  const router = useRouter()
  return (
    <AreaPage title="Settings" description="Your practice, its programme rules and your account.">
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
      <PracticeDetailsSection
        practice={details}
        canChange={can(toRole(user.access_rights), 'practice.settings')}
        onSave={async (values) => {
          const answer = await savePracticeDetails(values)
          // The page's practice name reads the session: read it again.
          if (!('message' in answer)) await router.invalidate()
          return answer
        }}
      />
      <PracticeLogoSetting imagePath={practice.image_path} role={user.access_rights} />
      <ProgrammeRulesSection
        rules={rules}
        canChange={can(toRole(user.access_rights), 'practice.settings')}
        onSave={async (next) => {
          try {
            await saveProgrammeRules(next)
            await router.invalidate()
            return undefined
          } catch (error) {
            return apiErrorMessage(error)
          }
        }}
      />
      {can(toRole(user.access_rights), 'subscription.manage') && <SubscriptionSection />}
      {can(toRole(user.access_rights), 'activity.read') && (
        <Paper withBorder p="lg" radius="md">
          <Stack gap="xs" align="flex-start">
            <Title order={2} size="h4">
              Activity log
            </Title>
            <Text c="dimmed">
              Who did what and when: sign-ins, patients opened and changed, points posted, roles
              changed. Filter by person, action and dates, and export it as CSV.
            </Text>
            <AnchorLink to="/settings/activity">Open the activity log</AnchorLink>
          </Stack>
        </Paper>
      )}
    </AreaPage>
  )
}

/**
 * `PUT /practice`; a save updates the stored session's practice name and footer links, so the
 * header and the footer follow at once, without signing in again.
 */
async function savePracticeDetails(values: PracticeSettingsInput) {
  try {
    const saved = await savePractice(values)
    const session = readSession()
    if (session) {
      writeSession(
        {
          ...session,
          practice: {
            ...session.practice,
            practice_name: saved.practice_name,
            footer_links: saved.footer_links,
          },
        },
        isSessionRemembered(),
      )
    }
    return saved
  } catch (error) {
    return { message: await apiErrorMessage(error), fields: await apiFieldErrors(error) }
  }
}

/** The practice logo (issue 19): saved, then the header follows from the stored session. */
function PracticeLogoSetting({ imagePath, role }: { imagePath: string | null; role: string }) {
  const router = useRouter()
  const act = async (action: () => Promise<unknown>) => {
    try {
      await action()
      await router.invalidate()
      return undefined
    } catch (error) {
      return apiErrorMessage(error)
    }
  }
  return (
    <PracticeLogoSection
      imagePath={imagePath}
      readOnlyNote={
        can(toRole(role), 'practice.settings')
          ? undefined
          : PERMISSION_REFUSALS['practice.settings']
      }
      onUpload={(file) => act(() => savePracticeLogo(file))}
      onRemove={() => act(removePracticeLogo)}
    />
  )
}

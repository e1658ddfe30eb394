import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { can, PERMISSION_REFUSALS, toRole } from '#domain/permissions.ts'
import type { PracticeAnswer, PracticeSettingsInput } from '#domain/practice-settings.ts'
import { getProgrammeRules, saveProgrammeRules } from '#src/api/ledger.ts'
import { connectPayments, getPaymentAccount } from '#src/api/memberships.ts'
import { getNextechStatus, testNextechConnection } from '#src/api/nextech.ts'
import { getPractice, savePractice } from '#src/api/practice-settings.ts'
import { removePracticeLogo, savePracticeLogo } from '#src/api/uploads.ts'
import { NextechConnectionSection } from '#src/features/settings/nextech-connection.tsx'
import { PaymentsAccountSection } from '#src/features/settings/payments-account.tsx'
import {
  PracticeDetailsSection,
  type PracticeSaveFailure,
} from '#src/features/settings/practice-details.tsx'
import { PracticeLogoSection } from '#src/features/settings/practice-logo.tsx'
import { ProgrammeRulesSection } from '#src/features/settings/programme-rules.tsx'
import { SubscriptionSection } from '#src/features/settings/subscription.tsx'
import { apiErrorMessage, apiFieldErrors } from '#src/lib/http.ts'
import { loadData, readPart } from '#src/lib/load-data.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { LabelledValue } from '#src/ui/labelled-value.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { SectionCard } from '#src/ui/section-card.tsx'

export const Route = createFileRoute('/_shell/settings')({
  loader: () =>
    loadData(async () => {
      const [rules, details, nextech, payments] = await Promise.all([
        getProgrammeRules(),
        getPractice(),
        getNextechStatus(),
        // Its own section says when it cannot be read; the rest of Settings still shows.
        readPart(getPaymentAccount),
      ])
      return { rules, details, nextech, payments }
    }),
  component: SettingsPage,
})

function SettingsPage() {
  const { user, practice } = Route.useRouteContext({ select: (context) => context.session })
  const { rules, details, nextech, payments } = Route.useLoaderData()
  const action = useAction()
  return (
    <AreaPage title="Settings" description="Your practice, its programme rules and your account.">
      <PracticeDetailsSection
        practice={details}
        canChange={can(toRole(user.access_rights), 'practice.settings')}
        onSave={async (values) => {
          let saved: PracticeAnswer | undefined
          // The session's practice name and footer links changed: the shell reads them again.
          const refused = await action.run(
            async () => {
              saved = await savePracticeDetails(values)
            },
            { failure: practiceSaveFailure },
          )
          return refused ?? (saved as PracticeAnswer)
        }}
      />
      <NextechConnectionSection
        status={nextech}
        readOnlyNote={
          can(toRole(user.access_rights), 'practice.settings')
            ? undefined
            : PERMISSION_REFUSALS['practice.settings']
        }
        onTest={async () => {
          let answer: Awaited<ReturnType<typeof testNextechConnection>> | undefined
          // The status under the button follows: the route's data is read again after the test.
          const refused = await action.run(async () => {
            answer = await testNextechConnection()
          })
          return refused ?? (answer as NonNullable<typeof answer>)
        }}
      />
      <PracticeLogoSetting imagePath={practice.image_path} role={user.access_rights} />
      <ProgrammeRulesSection
        rules={rules}
        canChange={can(toRole(user.access_rights), 'practice.settings')}
        onSave={(next) => action.run(() => saveProgrammeRules(next))}
      />
      <PaymentsAccountSection
        account={payments.ok ? payments.value : payments.message}
        readOnlyNote={
          can(toRole(user.access_rights), 'payments.connect')
            ? undefined
            : PERMISSION_REFUSALS['payments.connect']
        }
        onConnect={() => action.run(connectPayments)}
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
      <SectionCard id="settings-account" title="Your account" align="flex-start">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" w="100%">
          <LabelledValue label="Name" value={`${user.first_name} ${user.last_name}`} />
          <LabelledValue label="Email" value={user.email} />
          <LabelledValue label="Access rights" value={user.access_rights} />
        </SimpleGrid>
        <AnchorLink to="/personnel/$userId" params={{ userId: String(user.id) }}>
          Open My Profile
        </AnchorLink>
      </SectionCard>
    </AreaPage>
  )
}

/**
 * `PUT /practice`; a save updates the stored session's practice name and footer links, so the
 * header and the footer follow at once, without signing in again.
 */
async function savePracticeDetails(values: PracticeSettingsInput) {
  const saved = await savePractice(values)
  const session = readSession()
  if (session) {
    writeSession(
      {
        ...session,
        practice: {
          ...session.practice,
          practice_name: saved.practice_name,
          email: saved.practice_email,
          footer_links: saved.footer_links,
        },
      },
      isSessionRemembered(),
    )
  }
  return saved
}

/** A refused practice save: the sentence, and each field's own message. */
async function practiceSaveFailure(error: unknown): Promise<PracticeSaveFailure> {
  const [message, fields] = await Promise.all([apiErrorMessage(error), apiFieldErrors(error)])
  return { message, fields }
}

/** The practice logo: saved, then the header follows from the stored session. */
function PracticeLogoSetting({ imagePath, role }: { imagePath: string | null; role: string }) {
  const action = useAction()
  return (
    <PracticeLogoSection
      imagePath={imagePath}
      readOnlyNote={
        can(toRole(role), 'practice.settings')
          ? undefined
          : PERMISSION_REFUSALS['practice.settings']
      }
      onUpload={(file) => action.run(() => savePracticeLogo(file))}
      onRemove={() => action.run(removePracticeLogo)}
    />
  )
}

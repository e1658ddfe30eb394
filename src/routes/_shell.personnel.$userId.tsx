import { Avatar, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core'
import { createFileRoute, notFound } from '@tanstack/react-router'
import { useMemo } from 'react'
import type { StaffMember } from '#domain/practice-data.ts'
import {
  changeOwnPhone,
  changePassword,
  sendPhoneCode,
  updateOwnProfile,
  verifyPhoneCode,
} from '#src/api/self-service.ts'
import { removeOwnAvatar, saveOwnAvatar } from '#src/api/uploads.ts'
import { getUser } from '#src/api/users.ts'
import { AvatarUpload } from '#src/features/self-service/avatar-upload.tsx'
import { ChangePasswordForm } from '#src/features/self-service/change-password-form.tsx'
import { PhoneChange, type PhoneChangeCalls } from '#src/features/self-service/phone-change.tsx'
import { ProfileForm } from '#src/features/self-service/profile-form.tsx'
import { withUserMessage } from '#src/lib/http.ts'
import { loadData } from '#src/lib/load-data.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'
import { type Action, useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'

export const Route = createFileRoute('/_shell/personnel/$userId')({
  loader: ({ params }) => {
    // Ids are positive integers; anything else is an unknown page, not a server error.
    if (!/^[1-9]\d{0,9}$/.test(params.userId)) throw notFound()
    return loadData(() => getUser(Number(params.userId)))
  },
  component: ProfilePage,
})

function Field({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={500}>{value}</Text>
    </Stack>
  )
}

function ProfilePage() {
  const member = Route.useLoaderData()
  const ownId = Route.useRouteContext({ select: (context) => context.session.user.id })
  const name = `${member.first_name} ${member.last_name}`
  const own = member.id === ownId
  return (
    <AreaPage title={own ? 'My Profile' : 'Profile'}>
      <Stack gap="lg">
        <Paper withBorder p="lg" radius="md">
          <Stack gap="lg">
            <Group gap="md" wrap="nowrap">
              <Avatar src={member.image_path} alt={name} size="lg" radius="xl" color="glow">
                {member.first_name.charAt(0).toUpperCase()}
              </Avatar>
              <Stack gap={0} miw={0}>
                <Text fw={600} size="lg" truncate="end">
                  {[member.title, name].filter(Boolean).join(' ')}
                </Text>
                <Text c="dimmed" truncate="end">
                  {member.email}
                </Text>
              </Stack>
            </Group>
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
              <Field label="Name" value={name} />
              <Field label="Email" value={member.email} />
              <Field label="Position" value={member.position ?? '—'} />
              <Field label="Access rights" value={member.access_rights} />
            </SimpleGrid>
          </Stack>
        </Paper>
        {own && <OwnAvatar member={member} />}
        {own && <OwnDetails member={member} />}
        {own && <OwnPhone member={member} />}
        {own && <OwnPassword />}
      </Stack>
    </AreaPage>
  )
}

/** My Profile's phone change: the code to the new number, its check, then the verified save. */
function OwnPhone({ member }: { member: StaffMember }) {
  const { run } = useAction()
  // The same calls while the member is the same: the form saves once per verified code.
  const calls = useMemo(() => phoneCalls(member.id, run), [member.id, run])
  return <PhoneChange member={member} calls={calls} />
}

function phoneCalls(id: number, run: Action['run']): PhoneChangeCalls {
  return {
    sendCode: (input) =>
      withUserMessage(() =>
        sendPhoneCode(id, { phone: input.phone, countryCode: input.countryCode }),
      ),
    verifyCode: (input) => withUserMessage(() => verifyPhoneCode(id, input)),
    savePhone: async (verified) => {
      let saved: StaffMember | undefined
      const refused = await run(
        async () => {
          saved = await changeOwnPhone(id, {
            cell_phone: verified.phone,
            country_code: '+1',
            authyId: verified.authyId,
          })
        },
        { invalidate: false },
      )
      return refused ?? (saved as StaffMember)
    },
  }
}

/** The signed-in member's password form; the fresh session it answers replaces the stored one. */
function OwnPassword() {
  const action = useAction()
  return (
    <ChangePasswordForm
      onSave={(values) =>
        action.run(
          async () => {
            // Every other session ends; this browser keeps going with the fresh one, as remembered.
            const remember = isSessionRemembered()
            writeSession(await changePassword({ ...values, remember }), remember)
          },
          { invalidate: false },
        )
      }
    />
  )
}

/** The signed-in member's details; the header's greeting follows the saved names. */
function OwnDetails({ member }: { member: StaffMember }) {
  const action = useAction()
  return (
    <ProfileForm
      member={member}
      onSave={(values) =>
        action.run(async () => {
          const saved = await updateOwnProfile(member.id, values)
          const session = readSession()
          if (session) {
            writeSession(
              {
                ...session,
                user: {
                  ...session.user,
                  title: saved.title,
                  first_name: saved.first_name,
                  last_name: saved.last_name,
                },
              },
              isSessionRemembered(),
            )
          }
        })
      }
    />
  )
}

/** The signed-in member's avatar; the header's follows from the stored session. */
function OwnAvatar({ member }: { member: StaffMember }) {
  const action = useAction()
  return (
    <AvatarUpload
      member={member}
      onUpload={(file) => action.run(() => saveOwnAvatar(member.id, file))}
      onRemove={() => action.run(() => removeOwnAvatar(member.id))}
    />
  )
}

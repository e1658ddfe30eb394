import { Avatar, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core'
import { createFileRoute, notFound, useRouter } from '@tanstack/react-router'
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
import { apiErrorMessage, withUserMessage } from '#src/lib/http.ts'
import { loadData } from '#src/lib/load-data.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'
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
        {own && <PhoneChange member={member} calls={phoneCalls(member.id)} />}
        {own && <OwnPassword />}
      </Stack>
    </AreaPage>
  )
}

/** My Profile's phone change: the code to the new number, its check, then the verified save. */
function phoneCalls(id: number): PhoneChangeCalls {
  return {
    sendCode: (input) =>
      withUserMessage(() =>
        sendPhoneCode(id, { phone: input.phone, countryCode: input.countryCode }),
      ),
    verifyCode: (input) => withUserMessage(() => verifyPhoneCode(id, input)),
    savePhone: async (verified) => {
      try {
        return await changeOwnPhone(id, {
          cell_phone: verified.phone,
          country_code: '+1',
          authyId: verified.authyId,
        })
      } catch (error) {
        return apiErrorMessage(error)
      }
    },
  }
}

/** The signed-in member's password form; the fresh session it answers replaces the stored one. */
function OwnPassword() {
  return (
    <ChangePasswordForm
      onSave={async (values) => {
        // Every other session ends; this browser keeps going with the fresh one, as remembered.
        const remember = isSessionRemembered()
        try {
          writeSession(await changePassword({ ...values, remember }), remember)
          return undefined
        } catch (error) {
          return apiErrorMessage(error)
        }
      }}
    />
  )
}

/** The signed-in member's details; the header's greeting follows the saved names. */
function OwnDetails({ member }: { member: StaffMember }) {
  const router = useRouter()
  return (
    <ProfileForm
      member={member}
      onSave={async (values) => {
        try {
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
          await router.invalidate()
          return undefined
        } catch (error) {
          return apiErrorMessage(error)
        }
      }}
    />
  )
}

/** The signed-in member's avatar; the header's follows from the stored session. */
function OwnAvatar({ member }: { member: StaffMember }) {
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
    <AvatarUpload
      member={member}
      onUpload={(file) => act(() => saveOwnAvatar(member.id, file))}
      onRemove={() => act(() => removeOwnAvatar(member.id))}
    />
  )
}

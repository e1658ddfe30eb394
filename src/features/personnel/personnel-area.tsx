import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { type ReactNode, useState } from 'react'
import * as v from 'valibot'
import type { ActorRefFrom } from 'xstate'
import { POSITIONS, TITLES } from '#domain/fields.ts'
import {
  type InvitePersonnelFormInput,
  InvitePersonnelInputSchema,
  type PersonnelInvitation,
} from '#domain/personnel.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import type {
  InvitationRef,
  personnelInvitationsMachine,
} from '#machines/personnel/personnel-invitations.machine.ts'
import { AnchorLink } from '#src/ui/links.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

/** The Personnel area's actor (invite, resend, revoke). */
export type PersonnelInvitationsActorRef = ActorRefFrom<typeof personnelInvitationsMachine>

/** How a person's status reads in the list. */
export type PersonStatus = 'active' | 'invited' | 'expired' | 'revoked'

const STATUS_COLORS: Record<PersonStatus, string> = {
  active: 'green',
  invited: 'glow',
  expired: 'orange',
  revoked: 'gray',
}

/** A row of the list: a staff member, or an invitation not used yet. */
type PersonRow =
  | { kind: 'staff'; key: string; member: StaffMember; status: 'active' }
  | { kind: 'invitation'; key: string; invitation: PersonnelInvitation; status: PersonStatus }

/** The list's rows: staff first (active), then invitations not used (invited, expired, revoked). */
export function personnelRows(
  staff: StaffMember[],
  invitations: PersonnelInvitation[],
): PersonRow[] {
  const people: PersonRow[] = staff.map((member) => ({
    kind: 'staff',
    key: `user-${member.id}`,
    member,
    status: 'active',
  }))
  for (const invitation of invitations) {
    // A used invitation is a staff member now; the list shows the person once.
    if (invitation.status === 'used') continue
    people.push({
      kind: 'invitation',
      key: `invitation-${invitation.id ?? `${invitation.email}-${invitation.created_at}`}`,
      invitation,
      status: invitation.status === 'pending' ? 'invited' : invitation.status,
    })
  }
  return people
}

function fullName(person: { title?: string | null; first_name: string; last_name: string }) {
  return [person.title, person.first_name, person.last_name].filter(Boolean).join(' ')
}

/** Props of {@link PersonnelArea}. */
export type PersonnelAreaProps = {
  staff: StaffMember[]
  invitations: PersonnelInvitation[]
  /** Why the invitations could not be read, if they could not. */
  invitationsError?: string | null
  /** Admins see the invite form and the resend and revoke buttons. */
  isAdmin: boolean
  actorRef: PersonnelInvitationsActorRef
}

/**
 * The Personnel area (issue 5): the practice's people with their status (active, invited,
 * expired, revoked) and, for an Admin, the Invite form and the Resend and Revoke buttons of
 * pending invitations, with the success or failure message of the last action.
 */
export function PersonnelArea({
  staff,
  invitations,
  invitationsError,
  isAdmin,
  actorRef,
}: PersonnelAreaProps) {
  const notice = useSelector(actorRef, (s) => s.context.notice)
  const sentCount = useSelector(actorRef, (s) => s.context.sentCount)
  const rows = personnelRows(staff, invitations)
  const [revoking, setRevoking] = useState<InvitationRef | null>(null)
  return (
    <Stack gap="lg">
      <RevokeDialog
        invitation={revoking}
        onCancel={() => setRevoking(null)}
        onConfirm={(invitation) => {
          setRevoking(null)
          actorRef.send({ type: 'invitation.revoke', invitation })
        }}
      />
      {notice && (
        <Alert
          color={notice.type === 'success' ? 'green' : 'red'}
          role={notice.type === 'success' ? 'status' : 'alert'}
          withCloseButton
          closeButtonLabel="Close message"
          onClose={() => actorRef.send({ type: 'notice.dismiss' })}
        >
          {notice.message}
        </Alert>
      )}
      {isAdmin && <InviteForm key={sentCount} actorRef={actorRef} />}
      {invitationsError && (
        <Alert color="orange" role="alert">
          Invitations could not be loaded: {invitationsError}
        </Alert>
      )}
      <TableScroll label="Personnel" minWidth={isAdmin ? 600 : 440}>
        <Table striped verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              {/* Status next to the name, so a phone shows it without scrolling sideways. */}
              <Table.Th>Status</Table.Th>
              <Table.Th>Position</Table.Th>
              {isAdmin && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) =>
              row.kind === 'staff' ? (
                <Table.Tr key={row.key}>
                  <Table.Td data-label="Name">
                    <PersonCell email={row.member.email}>
                      <AnchorLink
                        to="/personnel/$userId"
                        params={{ userId: String(row.member.id) }}
                      >
                        {fullName(row.member)}
                      </AnchorLink>
                      {row.member.access_rights === 'Admin' && (
                        <Badge size="xs" variant="outline" color="gray.8">
                          Admin
                        </Badge>
                      )}
                    </PersonCell>
                  </Table.Td>
                  <Table.Td data-label="Status">
                    <StatusBadge status={row.status} />
                  </Table.Td>
                  <Table.Td data-label="Position">{row.member.position ?? '—'}</Table.Td>
                  {isAdmin && <Table.Td data-label="Actions" />}
                </Table.Tr>
              ) : (
                <InvitationRow
                  key={row.key}
                  invitation={row.invitation}
                  status={row.status}
                  isAdmin={isAdmin}
                  actorRef={actorRef}
                  onRevoke={setRevoking}
                />
              ),
            )}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Stack>
  )
}

/** A person's name (and badges) over their e-mail address. */
function PersonCell({ email, children }: { email: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Group gap="xs" wrap="wrap">
        {children}
      </Group>
      <Text size="sm" c="dimmed">
        {email}
      </Text>
    </Stack>
  )
}

/**
 * Revoking cannot be undone (the link stops working for good), so it asks first (issue 21);
 * Cancel, Escape or a click outside leave the invitation as it is.
 */
function RevokeDialog({
  invitation,
  onCancel,
  onConfirm,
}: {
  invitation: InvitationRef | null
  onCancel: () => void
  onConfirm: (invitation: InvitationRef) => void
}) {
  return (
    <Modal
      opened={invitation !== null}
      onClose={onCancel}
      title="Revoke invitation?"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Text size="sm">
        The registration link sent to {invitation?.email} will stop working. You can invite the
        person again later.
      </Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button color="red" onClick={() => invitation && onConfirm(invitation)} data-autofocus>
          Revoke invitation
        </Button>
      </Group>
    </Modal>
  )
}

function StatusBadge({ status }: { status: PersonStatus }) {
  return (
    <Badge color={STATUS_COLORS[status]} variant="light">
      {status}
    </Badge>
  )
}

function InvitationRow({
  invitation,
  status,
  isAdmin,
  actorRef,
  onRevoke,
}: {
  invitation: PersonnelInvitation
  status: PersonStatus
  isAdmin: boolean
  actorRef: PersonnelInvitationsActorRef
  /** Asks whether to revoke (the dialog of {@link RevokeDialog}). */
  onRevoke: (invitation: InvitationRef) => void
}) {
  const busy = useSelector(actorRef, (s) => !s.matches('idle'))
  const working = useSelector(actorRef, (s) =>
    s.context.working?.id === invitation.id ? (s.matches('resending') ? 'resend' : 'revoke') : null,
  )
  const id = invitation.id
  const open = status === 'invited' || status === 'expired'
  return (
    <Table.Tr>
      <Table.Td data-label="Name">
        <PersonCell email={invitation.email}>
          <Text size="sm">{fullName(invitation)}</Text>
        </PersonCell>
      </Table.Td>
      <Table.Td data-label="Status">
        <StatusBadge status={status} />
      </Table.Td>
      <Table.Td data-label="Position">{invitation.position}</Table.Td>
      {isAdmin && (
        <Table.Td data-label="Actions">
          {open && id && (
            <Group gap="xs" wrap="nowrap">
              <Button
                size="xs"
                variant="light"
                aria-label={`Resend invitation to ${invitation.email}`}
                disabled={busy && working !== 'resend'}
                loading={working === 'resend'}
                onClick={() =>
                  actorRef.send({
                    type: 'invitation.resend',
                    invitation: { id, email: invitation.email },
                  })
                }
              >
                Resend
              </Button>
              <Button
                size="xs"
                variant="subtle"
                color="red"
                aria-label={`Revoke invitation to ${invitation.email}`}
                disabled={busy && working !== 'revoke'}
                loading={working === 'revoke'}
                onClick={() => onRevoke({ id, email: invitation.email })}
              >
                Revoke
              </Button>
            </Group>
          )}
        </Table.Td>
      )}
    </Table.Tr>
  )
}

type InviteFormValues = Omit<InvitePersonnelFormInput, 'position' | 'title'> & {
  position: string | null
  title: string | null
}

function InviteForm({ actorRef }: { actorRef: PersonnelInvitationsActorRef }) {
  const inviting = useSelector(actorRef, (s) => s.matches('inviting'))
  const busy = useSelector(actorRef, (s) => !s.matches('idle'))
  const form = useForm<InviteFormValues>({
    mode: 'uncontrolled',
    initialValues: { email: '', first_name: '', last_name: '', title: null, position: null },
    validate: schemaResolver(InvitePersonnelInputSchema, { sync: true }),
    validateInputOnBlur: true,
  })
  return (
    <Paper withBorder p="lg" radius="md">
      <form
        noValidate
        aria-labelledby="invite-title"
        onSubmit={form.onSubmit((values) =>
          actorRef.send({
            type: 'invite.submit',
            input: v.parse(InvitePersonnelInputSchema, values),
          }),
        )}
      >
        <Stack gap="md">
          <Stack gap={2}>
            <Title order={2} size="h4" id="invite-title">
              Invite
            </Title>
            <Text size="sm" c="dimmed">
              We e-mail a registration link that works for 14 days.
            </Text>
          </Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              label="Email"
              style={{ gridColumn: '1 / -1' }}
              type="email"
              autoComplete="off"
              withAsterisk
              errorProps={{ role: 'alert' }}
              key={form.key('email')}
              {...form.getInputProps('email')}
            />
            <TextInput
              label="First name"
              autoComplete="off"
              withAsterisk
              errorProps={{ role: 'alert' }}
              key={form.key('first_name')}
              {...form.getInputProps('first_name')}
            />
            <TextInput
              label="Last name"
              autoComplete="off"
              withAsterisk
              errorProps={{ role: 'alert' }}
              key={form.key('last_name')}
              {...form.getInputProps('last_name')}
            />
            <Select
              label="Title"
              placeholder="Choose a title"
              data={[...TITLES]}
              clearable
              key={form.key('title')}
              {...form.getInputProps('title')}
            />
            <Select
              label="Position"
              placeholder="Choose a position"
              data={[...POSITIONS]}
              withAsterisk
              errorProps={{ role: 'alert' }}
              key={form.key('position')}
              {...form.getInputProps('position')}
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button type="submit" loading={inviting} disabled={busy && !inviting}>
              Invite
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  )
}

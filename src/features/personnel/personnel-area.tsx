import { Alert, Badge, Button, Group, Select, SimpleGrid, Stack, Table, Text } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { type ReactNode, useState } from 'react'
import * as v from 'valibot'
import type { ActorRefFrom } from 'xstate'
import { POSITIONS, TITLES } from '#domain/fields.ts'
import { ROLES, type Role } from '#domain/permissions.ts'
import {
  type InvitePersonnelFormInput,
  InvitePersonnelInputSchema,
  type PersonnelInvitation,
} from '#domain/personnel.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import type {
  InvitationRef,
  personnelInvitationsMachine,
} from '#machines/personnel/personnel-invitations.machine.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { FormFields, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { FormCard } from '#src/ui/section-card.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

/** The Personnel area's actor (invite, resend, revoke). */
export type PersonnelInvitationsActorRef = ActorRefFrom<typeof personnelInvitationsMachine>

/** The member a row's control acts on. */
export type MemberRef = { id: number; name: string }

/** What an Admin asks of a member: a new role, deactivation or reactivation. */
export type MemberChange =
  | { kind: 'role'; member: MemberRef; role: Role }
  | { kind: 'deactivate'; member: MemberRef }
  | { kind: 'reactivate'; member: MemberRef }

/** Saves a member change; answers the refusal to show, or nothing when it was saved. */
export type SaveMemberChange = (change: MemberChange) => Promise<string | undefined>

function changedMessage(change: MemberChange): string {
  switch (change.kind) {
    case 'role':
      return SELF_SERVICE_MESSAGES.roleChanged(change.member.name, change.role)
    case 'deactivate':
      return SELF_SERVICE_MESSAGES.deactivatedMember(change.member.name)
    case 'reactivate':
      return SELF_SERVICE_MESSAGES.reactivatedMember(change.member.name)
  }
}

/** How a person's status reads in the list. */
export type PersonStatus = 'active' | 'deactivated' | 'invited' | 'expired' | 'revoked'

const STATUS_COLORS: Record<PersonStatus, string> = {
  active: 'green',
  deactivated: 'red',
  invited: 'glow',
  expired: 'orange',
  revoked: 'gray',
}

/** A row of the list: a staff member, or an invitation not used yet. */
type PersonRow =
  | { kind: 'staff'; key: string; member: StaffMember; status: 'active' | 'deactivated' }
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
    status: member.deactivated_at ? 'deactivated' : 'active',
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
  /** Saves an Admin's member change; the role menus and status buttons show with it. */
  onMemberChange?: SaveMemberChange | undefined
  /** The signed-in user, who cannot deactivate themselves. */
  ownId?: number | undefined
}

/**
 * The Personnel area: the practice's people with their status (active, invited,
 * expired, revoked) and, for an Admin, the Invite form and the Resend and Revoke buttons of
 * pending invitations, with the success or failure message of the last action.
 */
export function PersonnelArea({
  staff,
  invitations,
  invitationsError,
  isAdmin,
  actorRef,
  onMemberChange,
  ownId,
}: PersonnelAreaProps) {
  const notice = useSelector(actorRef, (s) => s.context.notice)
  const sentCount = useSelector(actorRef, (s) => s.context.sentCount)
  const rows = personnelRows(staff, invitations)
  const [revoking, setRevoking] = useState<InvitationRef | null>(null)
  const [deactivating, setDeactivating] = useState<MemberRef | null>(null)
  // A role change waits for the Admin's confirmation; the menu keeps the old role.
  const [changingRole, setChangingRole] = useState<RoleRequest | null>(null)
  // One member change at a time; its outcome stays until the next one or the close button.
  const [working, setWorking] = useState<MemberChange | null>(null)
  const [memberNotice, setMemberNotice] = useState<{ ok: boolean; message: string } | null>(null)
  const manage = isAdmin && onMemberChange !== undefined
  const changeMember = async (change: MemberChange) => {
    if (!onMemberChange || working) return
    setWorking(change)
    setMemberNotice(null)
    const failure = await onMemberChange(change)
    setWorking(null)
    setMemberNotice(
      failure ? { ok: false, message: failure } : { ok: true, message: changedMessage(change) },
    )
  }
  return (
    <Stack gap="lg">
      {manage && (
        <DeactivateDialog
          member={deactivating}
          onCancel={() => setDeactivating(null)}
          onConfirm={(member) => {
            setDeactivating(null)
            void changeMember({ kind: 'deactivate', member })
          }}
        />
      )}
      {manage && (
        <RoleDialog
          request={changingRole}
          onCancel={() => setChangingRole(null)}
          onConfirm={(request) => {
            setChangingRole(null)
            void changeMember({ kind: 'role', member: request.member, role: request.role })
          }}
        />
      )}
      <RevokeDialog
        invitation={revoking}
        onCancel={() => setRevoking(null)}
        onConfirm={(invitation) => {
          setRevoking(null)
          actorRef.send({ type: 'invitation.revoke', invitation })
        }}
      />
      {memberNotice && (
        <Alert
          color={memberNotice.ok ? 'green' : 'red'}
          role={memberNotice.ok ? 'status' : 'alert'}
          withCloseButton
          closeButtonLabel="Close message"
          onClose={() => setMemberNotice(null)}
        >
          {memberNotice.message}
        </Alert>
      )}
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
      <TableScroll label="Personnel" minWidth={manage ? 860 : isAdmin ? 600 : 440}>
        <Table striped verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              {/* Status next to the name, so a phone shows it without scrolling sideways. */}
              <Table.Th>Status</Table.Th>
              {manage && <Table.Th>Role</Table.Th>}
              <Table.Th>Position</Table.Th>
              {manage && <Table.Th>Last sign-in</Table.Th>}
              {isAdmin && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) =>
              row.kind === 'staff' && manage ? (
                <ManagedStaffRow
                  key={row.key}
                  member={row.member}
                  status={row.status}
                  working={working}
                  isSelf={row.member.id === ownId}
                  onChange={(change) => void changeMember(change)}
                  onRoleChange={setChangingRole}
                  onDeactivate={setDeactivating}
                />
              ) : row.kind === 'staff' ? (
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
                  manage={manage}
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
 * Revoking cannot be undone (the link stops working for good), so it asks first;
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
    <AppModal
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
        <Button color="red" onClick={() => invitation && onConfirm(invitation)}>
          Revoke invitation
        </Button>
      </Group>
    </AppModal>
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
  manage,
  actorRef,
  onRevoke,
}: {
  invitation: PersonnelInvitation
  status: PersonStatus
  isAdmin: boolean
  /** The member columns (role, last sign-in) are shown: empty cells keep the rows aligned. */
  manage: boolean
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
      {manage && <Table.Td data-label="Role">—</Table.Td>}
      <Table.Td data-label="Position">{invitation.position}</Table.Td>
      {manage && <Table.Td data-label="Last sign-in">—</Table.Td>}
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

/**
 * Deactivating signs the member out everywhere at once, so it asks first; Cancel, Escape or a
 * click outside leave the member as they are.
 */
function DeactivateDialog({
  member,
  onCancel,
  onConfirm,
}: {
  member: MemberRef | null
  onCancel: () => void
  onConfirm: (member: MemberRef) => void
}) {
  return (
    <AppModal
      opened={member !== null}
      onClose={onCancel}
      title="Deactivate member?"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Text size="sm">
        {member?.name} will be signed out on every device at once and cannot sign in until an admin
        reactivates the account. Their history stays.
      </Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button color="red" onClick={() => member && onConfirm(member)}>
          Deactivate
        </Button>
      </Group>
    </AppModal>
  )
}

/** A role an Admin picked for a member, waiting for their confirmation. */
type RoleRequest = { member: MemberRef; from: Role; role: Role }

/**
 * A role changes what a colleague may do from their next request, so it asks first and says what
 * changes; Cancel, Escape or a click outside leave the role as it was.
 */
function RoleDialog({
  request,
  onCancel,
  onConfirm,
}: {
  request: RoleRequest | null
  onCancel: () => void
  onConfirm: (request: RoleRequest) => void
}) {
  return (
    <AppModal
      opened={request !== null}
      onClose={onCancel}
      title={request ? SELF_SERVICE_MESSAGES.roleQuestion(request.member.name, request.role) : ''}
      centered
    >
      <Text size="sm">
        {request &&
          SELF_SERVICE_MESSAGES.roleConsequence(request.member.name, request.from, request.role)}
      </Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button onClick={() => request && onConfirm(request)}>
          {request ? `Make ${request.role}` : 'Change role'}
        </Button>
      </Group>
    </AppModal>
  )
}

/** A member's row for an Admin: the role menu, the last sign-in, Deactivate or Reactivate. */
function ManagedStaffRow({
  member,
  status,
  working: current,
  isSelf,
  onChange,
  onRoleChange,
  onDeactivate,
}: {
  member: StaffMember
  status: PersonStatus
  /** The change being saved, if any (all controls wait for it). */
  working: MemberChange | null
  isSelf: boolean
  onChange: (change: MemberChange) => void
  /** Asks to confirm a new role; nothing changes before. */
  onRoleChange: (request: RoleRequest) => void
  onDeactivate: (member: MemberRef) => void
}) {
  const busy = current !== null
  const working = current?.member.id === member.id ? current.kind : null
  const name = `${member.first_name} ${member.last_name}`
  const ref: MemberRef = { id: member.id, name }
  return (
    <Table.Tr>
      <Table.Td data-label="Name">
        <PersonCell email={member.email}>
          <AnchorLink to="/personnel/$userId" params={{ userId: String(member.id) }}>
            {fullName(member)}
          </AnchorLink>
        </PersonCell>
      </Table.Td>
      <Table.Td data-label="Status">
        <StatusBadge status={status} />
      </Table.Td>
      <Table.Td data-label="Role">
        <Select
          aria-label={`Role of ${name}`}
          data={[...ROLES]}
          value={member.access_rights}
          allowDeselect={false}
          size="xs"
          w={130}
          disabled={busy}
          onChange={(value) => {
            if (!value || value === member.access_rights) return
            onRoleChange({ member: ref, from: member.access_rights as Role, role: value as Role })
          }}
        />
      </Table.Td>
      <Table.Td data-label="Position">{member.position ?? '—'}</Table.Td>
      <Table.Td data-label="Last sign-in">
        {member.last_sign_in_at ? formatDateTime(member.last_sign_in_at) : 'Never'}
      </Table.Td>
      <Table.Td data-label="Actions">
        {isSelf ? (
          <Text size="sm" c="dimmed">
            You
          </Text>
        ) : status === 'deactivated' ? (
          <Button
            size="xs"
            variant="light"
            aria-label={`Reactivate ${name}`}
            disabled={busy && working !== 'reactivate'}
            loading={working === 'reactivate'}
            onClick={() => onChange({ kind: 'reactivate', member: ref })}
          >
            Reactivate
          </Button>
        ) : (
          <Button
            size="xs"
            variant="subtle"
            color="red"
            aria-label={`Deactivate ${name}`}
            disabled={busy && working !== 'deactivate'}
            loading={working === 'deactivate'}
            onClick={() => onDeactivate(ref)}
          >
            Deactivate
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  )
}

type InviteFormValues = Omit<InvitePersonnelFormInput, 'position' | 'title'> & {
  position: string | null
  title: string | null
}

const INVITEE_FIELDS: TextFieldSpec<keyof InviteFormValues>[] = [
  { path: 'email', label: 'Email', style: { gridColumn: '1 / -1' }, type: 'email' },
  { path: 'first_name', label: 'First name' },
  { path: 'last_name', label: 'Last name' },
]

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
    <FormCard
      id="invite-title"
      title="Invite"
      intro="We e-mail a registration link that works for 14 days."
      onSubmit={form.onSubmit((values) =>
        actorRef.send({
          type: 'invite.submit',
          input: v.parse(InvitePersonnelInputSchema, values),
        }),
      )}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <FormFields
          form={form}
          common={{ autoComplete: 'off', withAsterisk: true }}
          fields={INVITEE_FIELDS}
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
    </FormCard>
  )
}

import { Button, Group, Stack, Text, Title } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import { MEMBERSHIP_STATUSES, type MembershipStatus, type Plan } from '#domain/memberships.ts'
import { can, PERMISSION_REFUSALS, toRole } from '#domain/permissions.ts'
import {
  archivePlan,
  createPlan,
  getPaymentAccount,
  listMemberships,
  listPlans,
  updatePlan,
} from '#src/api/memberships.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { MemberList } from '#src/features/memberships/member-list.tsx'
import { retryScheduleSentence } from '#src/features/memberships/membership-texts.ts'
import { PaymentsNotConnected } from '#src/features/memberships/payments-notice.tsx'
import { PlanFormModal, planValues } from '#src/features/memberships/plan-form.tsx'
import { PlanList } from '#src/features/memberships/plan-list.tsx'
import { loadData, readPart } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { TaskModal } from '#src/ui/app-modal.tsx'
import { AreaPage } from '#src/ui/area-page.tsx'
import { ConfirmDialog } from '#src/ui/dialog-actions.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { ButtonLink } from '#src/ui/links.tsx'

type MembershipsSearch = { archived?: true; status?: MembershipStatus; page?: number }

/** The plans shown, the members' status filter and page, in the address; bad values dropped. */
const MembershipsSearchSchema = v.object({
  archived: v.fallback(v.optional(v.literal(true)), undefined),
  status: v.fallback(v.optional(v.picklist(MEMBERSHIP_STATUSES)), undefined),
  page: v.fallback(v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))), undefined),
})

export const Route = createFileRoute('/_shell/memberships')({
  validateSearch: (search): MembershipsSearch => {
    const { archived, status, page } = v.parse(MembershipsSearchSchema, search)
    return {
      ...(archived ? { archived } : {}),
      ...(status ? { status } : {}),
      ...(page && page > 1 ? { page } : {}),
    }
  },
  loaderDeps: ({ search }) => ({
    archived: search.archived === true,
    status: search.status,
    page: search.page ?? 1,
  }),
  loader: ({ deps, context }) =>
    loadData(async () => {
      const [plans, members, treatments, account] = await Promise.all([
        listPlans({ archived: deps.archived }),
        listMemberships({ status: deps.status, page: deps.page }),
        listProcedures(context.session.practice.id),
        readPart(getPaymentAccount),
      ])
      return { plans, members, treatments, account }
    }),
  component: MembershipsPage,
})

function MembershipsPage() {
  const { plans, members, treatments, account } = Route.useLoaderData()
  const search = Route.useSearch()
  const navigate = Route.useNavigate()
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const canManage = can(role, 'memberships.plans')
  const action = useAction()
  const [editing, setEditing] = useState<Plan | 'new' | null>(null)
  const [archiving, setArchiving] = useState<Plan | null>(null)
  const treatmentNames = new Map(treatments.map((t) => [t.id, t.name]))
  return (
    <AreaPage
      title="Memberships"
      description="Plans patients pay for each cycle, their perks, and who is on them."
    >
      <Group>
        <ButtonLink to="/memberships/dashboard" variant="default">
          Memberships dashboard
        </ButtonLink>
      </Group>
      <Stack gap="sm" component="section" aria-labelledby="plans-heading">
        <Group justify="space-between">
          <Title order={2} size="h4" id="plans-heading">
            Plans
          </Title>
          {canManage && <Button onClick={() => setEditing('new')}>New plan</Button>}
        </Group>
        {!canManage && (
          <Text size="sm" c="dimmed">
            {PERMISSION_REFUSALS['memberships.plans']}
          </Text>
        )}
        {account.ok && !account.value.connected && (
          <PaymentsNotConnected canConnect={can(role, 'payments.connect')} />
        )}
        <PlanList
          plans={plans}
          archived={search.archived === true}
          canManage={canManage}
          treatmentNames={treatmentNames}
          onShowArchived={(archived) =>
            void navigate({
              search: (prev) => ({ ...prev, archived: archived ? true : undefined }),
            })
          }
          onEdit={setEditing}
          onArchive={setArchiving}
        />
      </Stack>
      <Stack gap="sm" component="section" aria-labelledby="members-heading">
        <Title order={2} size="h4" id="members-heading">
          Members
        </Title>
        <MemberList
          page={members}
          status={search.status}
          onStatus={(status) =>
            void navigate({ search: (prev) => ({ ...prev, status, page: undefined }) })
          }
          onPage={(page) => void navigate({ search: (prev) => ({ ...prev, page }) })}
        />
        {account.ok ? (
          <Text size="sm" c="dimmed">
            {retryScheduleSentence(account.value.retry_schedule_days)} After the last, the
            membership is unpaid: its perks stop, and the bank stays the patient’s.
          </Text>
        ) : (
          <FailureAlert>{account.message}</FailureAlert>
        )}
      </Stack>
      {editing && (
        <PlanFormModal
          title={editing === 'new' ? 'New plan' : `Edit ${editing.name}`}
          submitLabel={editing === 'new' ? 'Create plan' : 'Save plan'}
          initial={planValues(editing === 'new' ? undefined : editing)}
          treatments={treatments}
          members={editing === 'new' ? 0 : editing.active_members}
          onClose={() => setEditing(null)}
          onSave={(input) =>
            action.run(async () => {
              if (editing === 'new') await createPlan(input)
              else await updatePlan(editing.id, input)
              setEditing(null)
            })
          }
        />
      )}
      <TaskModal
        subject={archiving}
        onClose={() => setArchiving(null)}
        title={archiving ? `Archive ${archiving.name}` : 'Archive plan'}
      >
        {(plan, finish) => (
          <ConfirmDialog
            text={
              plan.active_members > 0
                ? `Nobody new can join ${plan.name}. Its ${plan.active_members.toLocaleString('en-US')} current ${plan.active_members === 1 ? 'member keeps' : 'members keep'} it until they leave or are moved.`
                : `Nobody new can join ${plan.name}. It stays in the archived plans.`
            }
            actionLabel="Archive plan"
            color="red"
            onCancel={() => setArchiving(null)}
            onConfirm={() => finish(action.run(() => archivePlan(plan.id)))}
          />
        )}
      </TaskModal>
    </AreaPage>
  )
}

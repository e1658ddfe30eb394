import { Badge, Button, Group, SegmentedControl, Stack, Table, Text } from '@mantine/core'
import { money, type Plan } from '#domain/memberships.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'
import { perksSummary, planPrice } from './membership-texts.ts'

/**
 * The practice's plans, active or archived (the choice is in the address): each plan's name and
 * description, price per cycle and cadence, setup fee, perks, version and members. Managers and
 * admins edit and archive a plan; everyone else reads.
 */
export function PlanList({
  plans,
  archived,
  canManage,
  treatmentNames,
  onShowArchived,
  onEdit,
  onArchive,
}: {
  plans: readonly Plan[]
  archived: boolean
  canManage: boolean
  treatmentNames: ReadonlyMap<number, string>
  onShowArchived: (archived: boolean) => void
  onEdit: (plan: Plan) => void
  onArchive: (plan: Plan) => void
}) {
  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="Which plans"
        w="fit-content"
        value={archived ? 'archived' : 'active'}
        onChange={(value) => onShowArchived(value === 'archived')}
        data={[
          { value: 'active', label: 'Active plans' },
          { value: 'archived', label: 'Archived plans' },
        ]}
      />
      {plans.length === 0 ? (
        <EmptyNote>
          {archived
            ? 'No plan is archived.'
            : canManage
              ? 'No plans yet: “New plan” builds the first one, with its price and perks.'
              : 'No plans yet: a manager or an admin builds them here.'}
        </EmptyNote>
      ) : (
        <TableScroll label={archived ? 'Archived plan list' : 'Plan list'} minWidth={760}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Plan</Table.Th>
                <Table.Th>Price</Table.Th>
                <Table.Th>Perks each cycle</Table.Th>
                <Table.Th>Version</Table.Th>
                <Table.Th>Members</Table.Th>
                {canManage && !archived && <Table.Th>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {plans.map((plan) => (
                <Table.Tr key={plan.id}>
                  <Table.Td data-label="Plan">
                    <Stack gap={2}>
                      <Group gap="xs">
                        <Text fw={600}>{plan.name}</Text>
                        {plan.archived && (
                          <Badge color="gray" variant="light" size="sm">
                            Archived
                          </Badge>
                        )}
                      </Group>
                      {plan.description && (
                        <Text size="sm" c="dimmed">
                          {plan.description}
                        </Text>
                      )}
                    </Stack>
                  </Table.Td>
                  <Table.Td data-label="Price">
                    <Text>{planPrice(plan)}</Text>
                    {plan.setup_fee_cents > 0 && (
                      <Text size="sm" c="dimmed">
                        + {money(plan.setup_fee_cents)} setup fee
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td data-label="Perks each cycle">
                    {perksSummary(plan.perks, treatmentNames)}
                  </Table.Td>
                  <Table.Td data-label="Version">{plan.version}</Table.Td>
                  <Table.Td data-label="Members">
                    {plan.active_members.toLocaleString('en-US')}
                  </Table.Td>
                  {canManage && !archived && (
                    <Table.Td data-label="Actions">
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="default"
                          aria-label={`Edit ${plan.name}`}
                          onClick={() => onEdit(plan)}
                        >
                          Edit
                        </Button>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Archive ${plan.name}`}
                          onClick={() => onArchive(plan)}
                        >
                          Archive
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </Stack>
  )
}

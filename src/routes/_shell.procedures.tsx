import { Stack, Table, Title } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { listProcedures } from '#src/api/procedures.ts'
import { listProducts } from '#src/api/products.ts'
import { AreaPage, EmptyNote } from '#src/features/shell/area-page.tsx'
import { formatCents } from '#src/features/shell/format.ts'
import { loadData } from '#src/lib/load-data.ts'
import { TableScroll } from '#src/ui/table-scroll.tsx'

export const Route = createFileRoute('/_shell/procedures')({
  loader: ({ context }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      const [procedures, products] = await Promise.all([
        listProcedures(practiceId),
        listProducts(practiceId),
      ])
      return { procedures, products }
    }),
  component: ProceduresPage,
})

type CatalogueItem = { id: number; name: string; price: number; points: number }

function CatalogueTable({ caption, items }: { caption: string; items: CatalogueItem[] }) {
  if (items.length === 0) return <EmptyNote>No {caption.toLowerCase()} yet.</EmptyNote>
  return (
    <TableScroll label={caption} minWidth={420}>
      <Table striped verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th ta="right">Price</Table.Th>
            <Table.Th ta="right">Reward points</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={item.id}>
              <Table.Td data-label="Name">{item.name}</Table.Td>
              <Table.Td data-label="Price" ta="right">
                {formatCents(item.price)}
              </Table.Td>
              <Table.Td data-label="Reward points" ta="right">
                {item.points}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  )
}

function ProceduresPage() {
  const { procedures, products } = Route.useLoaderData()
  return (
    <AreaPage title="Procedures" description="The treatments and products that earn rewards.">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Treatments
        </Title>
        <CatalogueTable caption="Treatments" items={procedures} />
      </Stack>
      <Stack gap="xs">
        <Title order={2} size="h4">
          Products
        </Title>
        <CatalogueTable caption="Products" items={products} />
      </Stack>
    </AreaPage>
  )
}

import { Group, SegmentedControl } from '@mantine/core'
import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import { can, toRole } from '#domain/permissions.ts'
import type { CatalogueItem, CatalogueItemInput } from '#domain/practice-data.ts'
import {
  type CatalogueKind,
  listCatalogue,
  saveCatalogueItem,
  setCatalogueItemArchived,
} from '#src/api/catalogue.ts'
import { getProgrammeRules } from '#src/api/ledger.ts'
import { CatalogueSection, type SaveRefusal } from '#src/features/catalogue/catalogue-section.tsx'
import { apiErrorMessage, apiRefusedField } from '#src/lib/http.ts'
import { loadData } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'

/** Which items show: the catalogue (the default, kept out of the address) or the archived ones. */
type ProceduresSearch = { show?: 'active' | 'archived' }

export const Route = createFileRoute('/_shell/procedures')({
  validateSearch: (search): ProceduresSearch =>
    search.show === 'archived' ? { show: 'archived' } : {},
  search: { middlewares: [stripSearchParams<ProceduresSearch>({ show: 'active' })] },
  loaderDeps: ({ search }) => ({ archived: search.show === 'archived' }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      const [procedures, products, rules] = await Promise.all([
        listCatalogue('procedures', practiceId, deps.archived),
        listCatalogue('products', practiceId, deps.archived),
        getProgrammeRules(),
      ])
      return { procedures, products, pointsPerDollar: rules.points_per_dollar }
    }),
  component: ProceduresPage,
})

/** A refused save: the sentence, under the name field when the name is what was refused. */
async function catalogueSaveFailure(error: unknown): Promise<SaveRefusal> {
  const [message, field] = await Promise.all([apiErrorMessage(error), apiRefusedField(error)])
  return field === 'name' ? { message, field } : { message }
}

function ProceduresPage() {
  const { procedures, products, pointsPerDollar } = Route.useLoaderData()
  const archived = Route.useSearch({ select: (s) => s.show === 'archived' })
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const canManage = can(role, 'catalogue.manage')
  const navigate = Route.useNavigate()
  // Each change reloads the lists; a refused name shows under its field.
  const action = useAction()
  const handlers = (kind: CatalogueKind) => ({
    onSave: (input: CatalogueItemInput, id?: number) =>
      action.run(() => saveCatalogueItem(kind, input, id), { failure: catalogueSaveFailure }),
    onArchive: (item: CatalogueItem, archive: boolean) =>
      action.run(() => setCatalogueItemArchived(kind, item.id, archive)),
  })

  return (
    <AreaPage
      title="Procedures"
      description={
        canManage
          ? 'The treatments and products that earn rewards.'
          : 'The treatments and products that earn rewards. Only a manager or an admin can change them.'
      }
    >
      <Group>
        <SegmentedControl
          aria-label="Show"
          value={archived ? 'archived' : 'active'}
          onChange={(value) =>
            void navigate({ search: value === 'archived' ? { show: 'archived' } : {} })
          }
          data={[
            { value: 'active', label: 'Catalogue' },
            { value: 'archived', label: 'Archived' },
          ]}
        />
      </Group>
      {(
        [
          { kind: 'procedures', title: 'Treatments', noun: 'treatment', items: procedures },
          { kind: 'products', title: 'Products', noun: 'product', items: products },
        ] as const
      ).map(({ kind, title, noun, items }) => (
        <CatalogueSection
          key={kind}
          title={title}
          noun={noun}
          items={items}
          archived={archived}
          canManage={canManage}
          pointsPerDollar={pointsPerDollar}
          {...handlers(kind)}
        />
      ))}
    </AreaPage>
  )
}

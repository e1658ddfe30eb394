import { Button, Group } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { PROMOTION_STATUSES, type PromotionStatus } from '#domain/promotion-statuses.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { createPromotion, listPromotions } from '#src/api/promotions.ts'
import {
  PromotionFormModal,
  promotionValues,
  toPromotionInput,
} from '#src/features/promotions/promotion-form.tsx'
import { PromotionList } from '#src/features/promotions/promotion-list.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'

type PromotionsSearch = { status?: PromotionStatus; page?: number }

/** The tab and the page in the address; a bad value in a hand-edited address is dropped. */
const PromotionsSearchSchema = v.object({
  status: v.fallback(v.optional(v.picklist(PROMOTION_STATUSES)), undefined),
  page: v.fallback(v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))), undefined),
})

export const Route = createFileRoute('/_shell/promotions/')({
  validateSearch: (search): PromotionsSearch => {
    const { status, page } = v.parse(PromotionsSearchSchema, search)
    return {
      ...(status && status !== 'live' ? { status } : {}),
      ...(page && page > 1 ? { page } : {}),
    }
  },
  loaderDeps: ({ search }) => ({ status: search.status ?? 'live', page: search.page ?? 1 }),
  loader: ({ deps, context }) =>
    loadData(async () => {
      const [page, procedures] = await Promise.all([
        listPromotions(deps),
        listProcedures(context.session.practice.id),
      ])
      return { page, procedures }
    }),
  component: PromotionsPage,
})

function PromotionsPage() {
  const { page, procedures } = Route.useLoaderData()
  const procedureNames = new Map(procedures.map((p) => [p.id, p.name]))
  const search = Route.useSearch()
  const navigate = Route.useNavigate()
  const action = useAction()
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const [creating, setCreating] = useState(false)
  return (
    <AreaPage
      title="Promotions"
      description="Your offers: patients claim them, then redeem them at the desk."
    >
      {can(role, 'promotions.manage') && (
        <Group>
          <Button onClick={() => setCreating(true)}>New offer</Button>
        </Group>
      )}
      <PromotionList
        status={search.status ?? 'live'}
        page={page}
        procedureNames={procedureNames}
        onTab={(status) => void navigate({ search: status === 'live' ? {} : { status } })}
        onPage={(next) => void navigate({ search: { ...search, page: next } })}
      />
      {creating && (
        <PromotionFormModal
          opened
          title="New offer"
          submitLabel="Save draft"
          initial={promotionValues()}
          procedures={procedures}
          onClose={() => setCreating(false)}
          onSave={(values) =>
            action.run(
              async () => {
                const draft = await createPromotion(toPromotionInput(values))
                setCreating(false)
                return draft
              },
              {
                onSuccess: (draft) =>
                  navigate({
                    to: '/promotions/$promotionId',
                    params: { promotionId: String(draft.id) },
                  }),
              },
            )
          }
        />
      )}
    </AreaPage>
  )
}

import { createFileRoute, notFound, useRouter } from '@tanstack/react-router'
import { useState } from 'react'
import { can, toRole } from '#domain/permissions.ts'
import type { PromotionChange } from '#domain/promotions.ts'
import { sendPromotion, sentMessage } from '#src/api/offers.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { getPromotion, promotionAction, updatePromotion } from '#src/api/promotions.ts'
import { PromotionDetailView } from '#src/features/promotions/promotion-detail.tsx'
import {
  PromotionFormModal,
  promotionValues,
  toPromotionInput,
} from '#src/features/promotions/promotion-form.tsx'
import { showAlert } from '#src/lib/alerts.ts'
import { apiErrorMessage } from '#src/lib/http.ts'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

export const Route = createFileRoute('/_shell/promotions/$promotionId')({
  loader: ({ params, context }) => {
    if (!/^[1-9]\d{0,9}$/.test(params.promotionId)) throw notFound()
    const id = Number(params.promotionId)
    return loadData(async () => {
      const [offer, procedures] = await Promise.all([
        getPromotion(id),
        listProcedures(context.session.practice.id),
      ])
      return { offer, procedures }
    })
  },
  component: PromotionPage,
})

function PromotionPage() {
  const { offer, procedures } = Route.useLoaderData()
  const procedureNames = new Map(procedures.map((p) => [p.id, p.name]))
  const router = useRouter()
  const navigate = Route.useNavigate()
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const [editing, setEditing] = useState(false)
  const live = offer.status === 'live'
  return (
    <AreaPage title={offer.title} description="Offer">
      <AnchorLink to="/promotions" search={{ status: offer.status }} size="sm">
        Back to Promotions
      </AnchorLink>
      <PromotionDetailView
        offer={offer}
        canManage={can(role, 'promotions.manage')}
        procedureNames={procedureNames}
        onEdit={() => setEditing(true)}
        onAction={async (action) => {
          try {
            if (action === 'send') {
              const { queued } = await sendPromotion(offer.id)
              await router.invalidate()
              showAlert({ type: 'success', message: sentMessage(queued) })
              return undefined
            }
            const answer = await promotionAction(offer.id, action)
            if (action === 'duplicate') {
              await navigate({
                to: '/promotions/$promotionId',
                params: { promotionId: String(answer.id) },
              })
            } else {
              await router.invalidate()
            }
            return undefined
          } catch (error) {
            return apiErrorMessage(error)
          }
        }}
      />
      {editing && (
        <PromotionFormModal
          opened
          title="Edit offer"
          submitLabel="Save changes"
          initial={promotionValues(offer)}
          live={live}
          procedures={procedures}
          onClose={() => setEditing(false)}
          onSave={async (values) => {
            const input = toPromotionInput(values)
            // A live offer sends only what it may still change.
            const change: PromotionChange = live
              ? {
                  title: input.title,
                  description: input.description,
                  ends_at: input.ends_at,
                  max_redemptions: input.max_redemptions,
                  per_patient_limit: input.per_patient_limit,
                }
              : input
            try {
              await updatePromotion(offer.id, change)
              setEditing(false)
              await router.invalidate()
              return undefined
            } catch (error) {
              return apiErrorMessage(error)
            }
          }}
        />
      )}
    </AreaPage>
  )
}

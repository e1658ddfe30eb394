import { createFileRoute, notFound } from '@tanstack/react-router'
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
import { loadData } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
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
  const { run } = useAction()
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
        onAction={(action) => {
          if (action === 'send') {
            return run(() => sendPromotion(offer.id), {
              onSuccess: ({ queued }) =>
                showAlert({ type: 'success', message: sentMessage(queued) }),
            })
          }
          if (action === 'duplicate') {
            // The copy opens at once: its own page reads it.
            return run(() => promotionAction(offer.id, action), {
              invalidate: false,
              onSuccess: (answer) =>
                navigate({
                  to: '/promotions/$promotionId',
                  params: { promotionId: String(answer.id) },
                }),
            })
          }
          return run(() => promotionAction(offer.id, action))
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
          onSave={(values) => {
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
            return run(async () => {
              await updatePromotion(offer.id, change)
              setEditing(false)
            })
          }}
        />
      )}
    </AreaPage>
  )
}

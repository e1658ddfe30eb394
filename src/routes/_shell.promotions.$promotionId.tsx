import { createFileRoute, notFound } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { CLAIM_STATUSES, type ClaimStatus } from '#domain/promotion-statuses.ts'
import type { PromotionChange } from '#domain/promotions.ts'
import { sendPromotion, sentMessage } from '#src/api/offers.ts'
import { listProcedures } from '#src/api/procedures.ts'
import {
  getPromotion,
  listOfferClaims,
  OFFER_CLAIMS_PAGE_SIZE,
  promotionAction,
  updatePromotion,
} from '#src/api/promotions.ts'
import { OfferClaims } from '#src/features/promotions/offer-claims.tsx'
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

/** `?claims=redeemed&claimsPage=2`: which claims the page lists; anything else lists them all. */
const ClaimsSearchSchema = v.object({
  claims: v.optional(v.picklist(CLAIM_STATUSES)),
  claimsPage: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(100_000))),
})
type ClaimsSearch = { claims?: ClaimStatus; claimsPage?: number }

export const Route = createFileRoute('/_shell/promotions/$promotionId')({
  validateSearch: (search): ClaimsSearch => {
    const parsed = v.safeParse(ClaimsSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  loaderDeps: ({ search }) => ({ status: search.claims, page: search.claimsPage ?? 1 }),
  loader: ({ params, context, deps }) => {
    if (!/^[1-9]\d{0,9}$/.test(params.promotionId)) throw notFound()
    const id = Number(params.promotionId)
    return loadData(async () => {
      const [offer, procedures, claims] = await Promise.all([
        getPromotion(id),
        listProcedures(context.session.practice.id),
        listOfferClaims(id, deps),
      ])
      return { offer, procedures, claims }
    })
  },
  component: PromotionPage,
})

function PromotionPage() {
  const { offer, procedures, claims } = Route.useLoaderData()
  const { claims: claimStatus } = Route.useSearch()
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
      <OfferClaims
        claims={claims}
        status={claimStatus}
        pageSize={OFFER_CLAIMS_PAGE_SIZE}
        onStatus={(status) => void navigate({ search: { claims: status }, resetScroll: false })}
        onPage={(page) =>
          void navigate({
            search: (prev) => ({ ...prev, claimsPage: page > 1 ? page : undefined }),
            resetScroll: false,
          })
        }
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

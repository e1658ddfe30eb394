import { createFileRoute } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { useEffect, useState } from 'react'
import { OFFER_MESSAGES } from '#domain/offers.ts'
import { claimOffer, getOffer } from '#src/api/offers.ts'
import { OfferView, type OfferViewState } from '#src/features/offers/offer-view.tsx'
import { apiErrorMessage } from '#src/lib/http.ts'

async function failure(error: unknown): Promise<string> {
  const status = error instanceof HTTPError ? error.response.status : 0
  if (status === 404) return OFFER_MESSAGES.notFound
  return apiErrorMessage(error)
}

export const Route = createFileRoute('/offers/$token')({
  // The page renders at once (its prerendered first paint stays as it is) and shows the offer
  // when it arrives: never a blank page.
  component: OfferPage,
})

function OfferPage() {
  const { token } = Route.useParams()
  const [state, setState] = useState<OfferViewState>({ kind: 'loading' })
  useEffect(() => {
    let current = true
    setState({ kind: 'loading' })
    getOffer(token).then(
      (offer) => current && setState({ kind: 'offer', offer, claiming: false, error: null }),
      async (error: unknown) => {
        const message = await failure(error)
        if (current) setState({ kind: 'failed', message })
      },
    )
    return () => {
      current = false
    }
  }, [token])

  const claim = async () => {
    if (state.kind !== 'offer' || state.claiming) return
    setState({ ...state, claiming: true, error: null })
    try {
      const offer = await claimOffer(token)
      setState({ kind: 'offer', offer, claiming: false, error: null })
    } catch (error) {
      setState({ ...state, claiming: false, error: await failure(error) })
    }
  }

  return <OfferView state={state} onClaim={() => void claim()} />
}

import { createFileRoute } from '@tanstack/react-router'
import { getCardLink } from '#src/api/memberships.ts'
import { CardLinkPage } from '#src/features/memberships/card-link-page.tsx'
import { membershipCalls } from '#src/features/memberships/memberships.actors.ts'
import { loadData } from '#src/lib/load-data.ts'

/**
 * `/membership-card/<token>`: the public page of the link a patient gets after a declined
 * renewal (e-mail or text), where they put a new card on file and pay what is due, without a
 * password. Never prerendered: what it shows is the link's.
 */
export const Route = createFileRoute('/membership-card/$token')({
  loader: ({ params }) => loadData(() => getCardLink(params.token)),
  component: CardLinkRoute,
})

function CardLinkRoute() {
  const link = Route.useLoaderData()
  const { token } = Route.useParams()
  return <CardLinkPage token={token} link={link} calls={membershipCalls} />
}

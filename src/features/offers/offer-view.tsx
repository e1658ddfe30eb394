import { Alert, Button, Group, Image, Loader, Stack, Text, Title } from '@mantine/core'
import { OFFER_MESSAGES, type OfferAnswer } from '#domain/offers.ts'
import { PublicPage } from '#src/ui/public-page.tsx'

/** What the offer page shows: loading, the offer, or why there is none. */
export type OfferViewState =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'offer'; offer: OfferAnswer; claiming: boolean; error: string | null }

const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'long' })

function points(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'point' : 'points'}`
}

/** The terms line: what it costs, what it gives, when it ends. */
function terms(offer: OfferAnswer['offer']): string {
  return [
    offer.points_cost > 0 ? `Costs ${points(offer.points_cost)}` : 'Free',
    ...(offer.bonus_points > 0 ? [`earns ${points(offer.bonus_points)}`] : []),
    ...(offer.ends_at ? [`ends ${dateFormat.format(new Date(offer.ends_at))}`] : []),
  ].join(' · ')
}

function Outcome({ answer }: { answer: OfferAnswer }) {
  switch (answer.state) {
    case 'claimed':
      return (
        <Alert color="green" role="status">
          {OFFER_MESSAGES.claimed}
        </Alert>
      )
    case 'redeemed':
      return (
        <Alert color="green" role="status">
          {OFFER_MESSAGES.redeemed}
        </Alert>
      )
    default:
      return (
        <Alert color="gray" role="status">
          {answer.reason ?? OFFER_MESSAGES.ended}
        </Alert>
      )
  }
}

/**
 * /offers/:token (issue 18): the offer of a patient's personal e-mail link, with its practice's
 * name and logo and a "Claim offer" button. The text above the offer is the same in every state,
 * so the build prerenders the page with `loading` as its first paint (the largest text is painted
 * before the app has loaded) and the app fills the part below when the offer arrives.
 */
export function OfferView({ state, onClaim }: { state: OfferViewState; onClaim: () => void }) {
  return (
    <PublicPage title="Your offer">
      <Text ta="center">
        An offer from your practice, sent to you by e-mail. Claim it here, then show the e-mail at
        your next visit.
      </Text>
      {state.kind === 'loading' && (
        <Alert color="gray" role="status">
          <Group gap="xs" justify="center" wrap="nowrap">
            <Loader size="xs" aria-hidden />
            <span>Please wait...</span>
          </Group>
        </Alert>
      )}
      {state.kind === 'failed' && (
        <Alert color="red" role="alert">
          {state.message}
        </Alert>
      )}
      {state.kind === 'offer' && (
        <Stack gap="sm">
          <Group gap="sm" justify="center" wrap="nowrap">
            {state.offer.practice.logo && (
              <Image
                src={state.offer.practice.logo}
                alt=""
                h={40}
                w={40}
                fit="contain"
                radius="sm"
              />
            )}
            <Text fw={600}>{state.offer.practice.name}</Text>
          </Group>
          <Title order={2} size="h3" ta="center">
            {state.offer.offer.title}
          </Title>
          {state.offer.offer.description && (
            <Text size="sm" ta="center" style={{ whiteSpace: 'pre-line' }}>
              {state.offer.offer.description}
            </Text>
          )}
          <Text size="sm" c="dimmed" ta="center">
            {terms(state.offer.offer)}
          </Text>
          {state.error && (
            <Alert color="red" role="alert">
              {state.error}
            </Alert>
          )}
          {state.offer.state === 'open' ? (
            <Button onClick={onClaim} loading={state.claiming} fullWidth>
              Claim offer
            </Button>
          ) : (
            <Outcome answer={state.offer} />
          )}
        </Stack>
      )}
    </PublicPage>
  )
}

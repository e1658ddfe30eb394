import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { apiError, stubApi } from '#tests/support/fake-api.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { subscriptionCalls } from './subscription.actors.ts'
import { SubscriptionSection } from './subscription.tsx'

// Settings → Subscription when it cannot be read: a failure the server may get over
// offers "Try again"; a refusal by permission says what is missing and offers nothing to retry.
describe('Settings → Subscription when it cannot be read', () => {
  it('offers "Try again" after a failure of the server, and asks again when clicked', async () => {
    const calls = stubApi({
      'GET /practice/subscription': apiError(503, 'The payments service is not answering.'),
    })
    renderInRouter(() => <SubscriptionSection calls={subscriptionCalls} />, '/settings')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('The payments service is not answering.')
    // The HTTP client retries a 503 on its own before the page shows it: count what one load asks.
    const asked = () => calls.filter((call) => call.path === '/practice/subscription').length
    const firstLoad = asked()
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The payments service is not answering.',
    )
    expect(asked()).toBe(2 * firstLoad)
  })

  it('says what is missing on a refusal by permission, without "Try again"', async () => {
    stubApi({
      'GET /practice/subscription': apiError(
        403,
        'Only an admin can see the subscription.',
        'ForbiddenError',
      ),
    })
    renderInRouter(() => <SubscriptionSection calls={subscriptionCalls} />, '/settings')
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Only an admin can see the subscription.',
    )
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull()
  })
})

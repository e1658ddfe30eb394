import {
  createMemoryHistory,
  createRootRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router'
import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import { type LockPaymentInput, signUpMachine } from '#machines/sign-up/sign-up.machine.ts'
import { SignUpView } from '#src/features/sign-up/sign-up-view.tsx'
import { fixturePlansAnswer, storedProgress } from '#tests/flows/sign-up/model.ts'
import { renderWithProviders } from '#tests/support/render.tsx'

// Stripe.js loads from Stripe's servers; this stand-in mounts nothing and records what it is asked.
const mounted: string[] = []
const fakeStripe = {
  elements: () => ({
    create: (kind: string) => ({
      mount: () => mounted.push(kind),
      on: () => {},
      destroy: () => {},
    }),
  }),
  createToken: vi.fn(),
}
vi.mock('#src/features/sign-up/sign-up.actors.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('#src/features/sign-up/sign-up.actors.ts')>()),
  loadStripeJs: () => Promise.resolve(fakeStripe),
}))

describe('billing step with Stripe', () => {
  it('shows Stripe Elements for the card and pays without the card number reaching the page', async () => {
    const payments: LockPaymentInput[] = []
    const actor = createActor(
      signUpMachine.provide({
        actors: {
          loadPlans: fromPromise(async () => fixturePlansAnswer),
          lockPayment: fromPromise<{ id: string }, LockPaymentInput>(async ({ input }) => {
            payments.push(input)
            return { id: 'cus_stripe' }
          }),
        },
      }),
      {
        input: {
          // Paying takes the signed agreement.
          restore: {
            ...storedProgress('billing', false),
            signature: { signature: 'J. Doe', signer_name: 'Jane Doe', date: '2026-06-15' },
          },
        },
      },
    ).start()
    const onStripeFieldsChange = vi.fn()
    const root = createRootRoute({
      component: () => (
        <SignUpView
          actorRef={actor}
          paymentsMode="stripe"
          onStripeFieldsChange={onStripeFieldsChange}
        />
      ),
    })
    const router = createRouter({
      routeTree: root,
      history: createMemoryHistory({ initialEntries: ['/signup'] }),
    })
    const { user } = renderWithProviders(<RouterProvider router={router as never} />)

    await screen.findByRole('region', { name: 'Price summary' })
    await waitFor(() => expect(mounted).toEqual(['cardNumber', 'cardExpiry', 'cardCvc']))
    expect(onStripeFieldsChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ createToken: expect.any(Function) }),
    )
    expect(screen.getByText('Card number')).toBeVisible()
    expect(screen.getByText('Expiration date')).toBeVisible()
    // The page has no inputs of its own for the number, expiry or CVV.
    expect(screen.queryByRole('combobox', { name: /^Expiration month/ })).toBeNull()
    expect(document.querySelector('input[autocomplete="cc-number"]')).toBeNull()

    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(actor.getSnapshot().matches('confirmation')).toBe(true))
    expect(payments).toHaveLength(1)
    expect(payments[0]?.card).toMatchObject({ number: '', cvv: '', name: 'Jane Doe' })
    expect(payments[0]?.billingInformation).toMatchObject({ billing_zip: '62701' })
    actor.stop()
  })
})

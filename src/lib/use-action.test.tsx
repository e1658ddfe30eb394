import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, stubApi } from '#tests/support/fake-api.ts'
import { clearAlert, getAlert } from './alerts.ts'
import { http } from './http.ts'
import { SESSION_ENDED_MESSAGE } from './messages.ts'
import { clearSession, readSession, writeSession } from './session.ts'
import { type ActionFailure, useAction } from './use-action.ts'

afterEach(() => {
  clearSession()
  clearAlert()
})

/** A screen with one save button; what the hook answered and its state, as text. */
function SaveScreen({ failure }: { failure?: (error: unknown) => Promise<ActionFailure> }) {
  const action = useAction()
  const [answer, setAnswer] = useState<string>('none yet')
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          const refused = await action.run(() => http.post('things').json(), { failure })
          setAnswer(refused === undefined ? 'saved' : JSON.stringify(refused))
        }}
      >
        Save
      </button>
      <button type="button" onClick={action.reset}>
        Dismiss
      </button>
      <output aria-label="answer">{answer}</output>
      <output aria-label="pending">{String(action.pending)}</output>
      <output aria-label="error">{action.error ?? 'none'}</output>
    </>
  )
}

/** The screen at / (its loader counts its runs) and a sign-in page, in memory. */
function renderScreen(failure?: (error: unknown) => Promise<ActionFailure>) {
  const loads = { count: 0 }
  const root = createRootRoute()
  const home = createRoute({
    getParentRoute: () => root,
    path: '/',
    loader: () => {
      loads.count += 1
    },
    component: () => <SaveScreen failure={failure} />,
  })
  const signIn = createRoute({
    getParentRoute: () => root,
    path: '/signin',
    component: () => <p>Sign in page</p>,
  })
  const router = createRouter({
    routeTree: root.addChildren([home, signIn]),
    history: createMemoryHistory({ initialEntries: ['/'] }),
  })
  render(<RouterProvider router={router as never} />)
  return { router, loads, user: userEvent.setup() }
}

const output = (name: string) => screen.getByRole('status', { name })

describe('useAction', () => {
  it('reloads the route after a write that succeeded and answers nothing', async () => {
    const calls = stubApi({ 'POST /things': { id: 1 } })
    const { loads, user } = renderScreen()
    await screen.findByRole('button', { name: 'Save' })
    expect(loads.count).toBe(1)

    await user.click(screen.getByRole('button', { name: 'Save' }))

    await waitFor(() => expect(output('answer')).toHaveTextContent('saved'))
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /things'])
    expect(loads.count).toBe(2)
    expect(output('pending')).toHaveTextContent('false')
    expect(output('error')).toHaveTextContent('none')
  })

  it('answers the refusal, keeps it as the error until reset, and is no longer pending', async () => {
    stubApi({ 'POST /things': () => apiError(409, 'That name is already taken.') })
    const { loads, user } = renderScreen()
    await screen.findByRole('button', { name: 'Save' })

    await user.click(screen.getByRole('button', { name: 'Save' }))

    await waitFor(() => expect(output('answer')).toHaveTextContent('"That name is already taken."'))
    expect(output('pending')).toHaveTextContent('false')
    expect(output('error')).toHaveTextContent('That name is already taken.')
    expect(loads.count).toBe(1)

    await user.click(screen.getByRole('button', { name: 'Dismiss' }))
    expect(output('error')).toHaveTextContent('none')
  })

  it('is pending while the write is under way', async () => {
    let answer: (response: Response) => void = () => {}
    stubApi({ 'POST /things': () => new Promise<Response>((resolve) => (answer = resolve)) })
    const { user } = renderScreen()
    await screen.findByRole('button', { name: 'Save' })

    await user.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(output('pending')).toHaveTextContent('true'))

    answer(new Response('{}', { headers: { 'content-type': 'application/json' } }))
    await waitFor(() => expect(output('answer')).toHaveTextContent('saved'))
    expect(output('pending')).toHaveTextContent('false')
  })

  it('answers what the screen makes of a refusal when it asks for more than the sentence', async () => {
    stubApi({ 'POST /things': () => apiError(400, 'Check the name.') })
    const { user } = renderScreen(async () => ({ message: 'Check the name.', field: 'name' }))
    await screen.findByRole('button', { name: 'Save' })

    await user.click(screen.getByRole('button', { name: 'Save' }))

    await waitFor(() =>
      expect(output('answer')).toHaveTextContent('{"message":"Check the name.","field":"name"}'),
    )
    expect(output('error')).toHaveTextContent('Check the name.')
  })

  it('signs out and goes to sign in with the reason when the session is no longer accepted', async () => {
    writeSession(demoSession, false)
    stubApi({ 'POST /things': () => apiError(401, 'Unauthorized') })
    const { router, loads, user } = renderScreen()
    await screen.findByRole('button', { name: 'Save' })

    await user.click(screen.getByRole('button', { name: 'Save' }))

    expect(await screen.findByText('Sign in page')).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/signin')
    expect(readSession()).toBeNull()
    expect(getAlert()).toEqual({ type: 'danger', message: SESSION_ENDED_MESSAGE, persist: true })
    expect(loads.count).toBe(1)
  })
})

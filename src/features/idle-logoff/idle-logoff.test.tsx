import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { demoPractice, demoSession } from '#tests/support/demo-session.ts'
import { stubApi } from '#tests/support/fake-api.ts'
import { NEXTECH_NOT_CHOSEN } from '#tests/support/nextech.ts'
import { renderRoute, renderWithProviders } from '#tests/support/render.tsx'
import { IDLE_WARNING_TITLE, IdleLogoff, idleWarningText, STAY_SIGNED_IN } from './idle-logoff.tsx'

const MINUTE = 60_000

describe('automatic logoff (HIPAA)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-06-01T09:00:00Z'), shouldAdvanceTime: false })
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  const advance = (ms: number) =>
    act(() => {
      vi.advanceTimersByTime(ms)
    })

  it('warns a minute before, counts down, and "Stay signed in" keeps the session', () => {
    const onTimeout = vi.fn()
    renderWithProviders(<IdleLogoff timeoutMinutes={15} onTimeout={onTimeout} />)
    advance(14 * MINUTE - 1000)
    expect(screen.queryByRole('dialog')).toBeNull()
    advance(1000)
    const dialog = screen.getByRole('dialog', { name: IDLE_WARNING_TITLE })
    expect(dialog).toHaveTextContent('You will be signed out in 60 seconds')
    advance(1000)
    expect(dialog).toHaveTextContent(idleWarningText(59))
    fireEvent.click(screen.getByRole('button', { name: STAY_SIGNED_IN }))
    expect(screen.queryByRole('dialog')).toBeNull()
    advance(14 * MINUTE - 1000)
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(onTimeout).not.toHaveBeenCalled()
  })

  it('signs out after the timeout without activity; activity before the warning restarts it', () => {
    const onTimeout = vi.fn()
    renderWithProviders(<IdleLogoff timeoutMinutes={15} onTimeout={onTimeout} />)
    advance(10 * MINUTE)
    fireEvent.keyDown(window, { key: 'a' })
    advance(10 * MINUTE)
    expect(onTimeout).not.toHaveBeenCalled()
    fireEvent.pointerDown(document.body)
    advance(15 * MINUTE)
    expect(onTimeout).toHaveBeenCalledTimes(1)
  })

  it('in the shell, signs out after 15 minutes: the server is told and both storages are emptied', async () => {
    // Fake time that also moves with real time, so Testing Library's polling still runs.
    vi.useRealTimers()
    vi.useFakeTimers({ now: new Date('2026-06-01T09:00:00Z'), shouldAdvanceTime: true })
    const calls = stubApi({
      'POST /auth/logout': { ok: true },
      'GET /practice/rules': DEFAULT_PROGRAMME_RULES,
      'GET /practice': demoPractice,
      'GET /practice/integrations/nextech': NEXTECH_NOT_CHOSEN,
    })
    const { router } = renderRoute('/settings', { session: demoSession, remember: true })
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeVisible()
    await act(async () => {
      await vi.advanceTimersByTimeAsync(14 * MINUTE)
    })
    expect(screen.getByRole('dialog', { name: IDLE_WARNING_TITLE })).toBeVisible()
    await act(async () => {
      await vi.advanceTimersByTimeAsync(MINUTE)
    })
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    await waitFor(() =>
      expect(calls.map((c) => `${c.method} ${c.path}`)).toContain('POST /auth/logout'),
    )
  })
})

describe('/logout', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('tells the server with the bearer token, then forgets the user', async () => {
    const headers: (string | null)[] = []
    stubApi({
      'POST /auth/logout': () => ({ ok: true }),
    })
    const fetchStub = globalThis.fetch
    vi.stubGlobal('fetch', (input: Request | string | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init)
      headers.push(request.headers.get('Authorization'))
      return fetchStub(request)
    })
    const { router } = renderRoute('/logout', { session: demoSession })
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    await waitFor(() => expect(headers).toEqual([`Bearer ${demoSession.jwt}`]))
  })

  it('signs out in the browser even when the server cannot be reached', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')))
    const { router } = renderRoute('/logout', { session: demoSession, remember: true })
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
  })
})

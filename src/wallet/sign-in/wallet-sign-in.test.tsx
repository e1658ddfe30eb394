/**
 * WalletSignIn as the wallet renders it, against a faked fetch: the requests it makes, the
 * sentences and focus of each refusal and failure, and that what the patient typed stays.
 */
import { act, fireEvent, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { WALLET_MESSAGES } from '#domain/wallet.ts'
import { json, stubFetch } from '#src/lib/testing/fetch-stub.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { formatLockEnd } from './sign-in-calls.ts'
import { WalletSignIn } from './wallet-sign-in.tsx'

const fetchMock = stubFetch()

const session = { token: 'patient-session-1', expires_at: '2026-06-15T10:30:00.000Z' }
const sent = { sent: true, resend_after_seconds: 30 }

/** The server's error shape with the wallet's reason. */
function refusal(status: number, message: string, details: Record<string, unknown> = {}) {
  return json({ error: { status, name: 'Error', message, details } }, status)
}

type Answer = Response | Error
type Seen = { path: string; body: unknown; headers: Headers }

/** Answers each call to `/code` and `/session` from its own queue, in order; records the requests. */
function server(answers: { code?: Answer[]; session?: Answer[] }) {
  const seen: Seen[] = []
  fetchMock.mockImplementation(async (request: Request) => {
    const path = new URL(request.url).pathname
    seen.push({ path, body: await request.clone().json(), headers: request.headers })
    const queue = path.endsWith('/code') ? answers.code : answers.session
    const answer = queue?.shift()
    if (!answer) throw new Error(`no answer left for ${request.method} ${path}`)
    if (answer instanceof Error) throw answer
    return answer
  })
  return seen
}

function open(user = userEvent.setup()) {
  const onSignedIn = vi.fn()
  renderWithProviders(
    <WalletSignIn practiceId={3} practiceName="Glow Demo Med Spa" onSignedIn={onSignedIn} />,
  )
  return { user, onSignedIn }
}

const contactField = () => screen.getByRole('textbox', { name: /^E-mail or mobile phone/ })
const codeField = () => screen.getByRole('textbox', { name: /^6-digit code/ })
const button = (name: string) => screen.getByRole('button', { name })

/** Types the contact and asks for a code; resolves once the code step shows. */
async function toCode(user: ReturnType<typeof userEvent.setup>, contact = 'jane@example.com') {
  await user.type(contactField(), contact)
  await user.click(button('Send me a code'))
  await screen.findByRole('textbox', { name: /^6-digit code/ })
}

afterEach(() => {
  vi.useRealTimers()
  // biome-ignore lint/suspicious/noDocumentCookie: the test sets the page's XSRF cookie and removes it.
  document.cookie = 'XSRF-TOKEN=; expires=Thu, 01 Jan 1970 00:00:00 GMT'
})

describe('WalletSignIn', () => {
  it('signs in with the code from the message and hands over the session', async () => {
    // biome-ignore lint/suspicious/noDocumentCookie: the page's XSRF cookie, as the server sets it.
    document.cookie = 'XSRF-TOKEN=xsrf-1'
    const seen = server({ code: [json(sent, 202)], session: [json(session)] })
    const { user, onSignedIn } = open()
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your wallet' })).toBeVisible()
    expect(screen.getByText(/at Glow Demo Med Spa/)).toBeVisible()

    await toCode(user, '  Jane@Example.com ')
    expect(screen.getByRole('status')).toHaveTextContent(
      'We sent a 6-digit code to Jane@Example.com.',
    )
    expect(codeField()).toHaveFocus()
    expect(codeField()).toHaveAttribute('autocomplete', 'one-time-code')
    expect(codeField()).toHaveAttribute('inputmode', 'numeric')
    expect(screen.getByText('Send a new code in 30 s')).toBeVisible()

    await user.type(codeField(), '123 456')
    await user.click(button('Sign in'))
    expect(await screen.findByText('You are signed in.')).toBeVisible()
    expect(onSignedIn).toHaveBeenCalledExactlyOnceWith(session)
    expect(seen.map(({ path, body }) => ({ path, body }))).toEqual([
      { path: '/api/wallet/3/code', body: { contact: 'Jane@Example.com' } },
      { path: '/api/wallet/3/session', body: { contact: 'Jane@Example.com', code: '123456' } },
    ])
    expect(seen.every(({ headers }) => headers.get('X-XSRF-TOKEN') === 'xsrf-1')).toBe(true)
    expect(seen.every(({ headers }) => !headers.has('Authorization'))).toBe(true)
  })

  it('checks the contact before sending: an e-mail or a mobile phone', async () => {
    const seen = server({ code: [json(sent, 202)] })
    const { user } = open()
    await user.click(button('Send me a code'))
    expect(screen.getByRole('alert')).toHaveTextContent(WALLET_MESSAGES.contactRequired)
    expect(contactField()).toHaveFocus()
    expect(contactField()).toBeInvalid()

    await user.type(contactField(), 'jane@')
    expect(screen.queryByRole('alert')).toBeNull()
    await user.click(button('Send me a code'))
    expect(screen.getByRole('alert')).toHaveTextContent(WALLET_MESSAGES.contactInvalid)
    expect(contactField()).toHaveAccessibleDescription(
      expect.stringContaining(WALLET_MESSAGES.contactInvalid),
    )
    expect(seen).toEqual([])

    await user.clear(contactField())
    await user.type(contactField(), '(415) 555-0142')
    await user.click(button('Send me a code'))
    expect(await screen.findByRole('status')).toHaveTextContent(
      'We sent a 6-digit code to (415) 555-0142.',
    )
    expect(seen[0]?.body).toEqual({ contact: '(415) 555-0142' })
  })

  it('says when the code is not right, keeps it, and signs in with the right one', async () => {
    const seen = server({
      code: [json(sent, 202)],
      session: [
        refusal(401, 'This code is not right. Please check it, or ask for a new code.', {
          reason: 'wrong',
        }),
        json(session),
      ],
    })
    const { user, onSignedIn } = open()
    await toCode(user)
    await user.type(codeField(), '111111')
    await user.click(button('Sign in'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'That code is not right. Check it and try again.',
    )
    expect(codeField()).toHaveValue('111111')
    expect(codeField()).toHaveFocus()
    expect(codeField()).toBeInvalid()

    await user.clear(codeField())
    await user.type(codeField(), '222222')
    expect(screen.queryByRole('alert')).toBeNull()
    await user.click(button('Sign in'))
    await screen.findByText('You are signed in.')
    expect(onSignedIn).toHaveBeenCalledWith(session)
    expect(seen.map((s) => s.body)).toEqual([
      { contact: 'jane@example.com' },
      { contact: 'jane@example.com', code: '111111' },
      { contact: 'jane@example.com', code: '222222' },
    ])
  })

  it('an expired code offers a new one, sent to the same contact', async () => {
    const seen = server({
      code: [json(sent, 202), json(sent, 202)],
      session: [
        refusal(410, 'This code has expired. Please ask for a new code.', { reason: 'expired' }),
      ],
    })
    const { user } = open()
    await toCode(user)
    await user.type(codeField(), '123456')
    await user.click(button('Sign in'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This code has expired. We can send you a new one.',
    )
    expect(button('Send a new code')).toHaveFocus()

    await user.click(button('Send a new code'))
    await screen.findByRole('textbox', { name: /^6-digit code/ })
    expect(codeField()).toHaveValue('')
    expect(codeField()).toHaveFocus()
    expect(seen.map((s) => s.path)).toEqual([
      '/api/wallet/3/code',
      '/api/wallet/3/session',
      '/api/wallet/3/code',
    ])
    expect(seen[2]?.body).toEqual({ contact: 'jane@example.com' })
  })

  it('a lock says until when; another contact keeps what was typed', async () => {
    const now = new Date('2026-06-15T18:27:00.000Z')
    vi.useFakeTimers({ now, toFake: ['Date'] })
    server({
      code: [json(sent, 202)],
      session: [
        refusal(429, 'Too many wrong codes.', { reason: 'locked', retry_after_seconds: 900 }),
      ],
    })
    const { user } = open()
    await toCode(user, '415 555 0142')
    await user.type(codeField(), '999999')
    await user.click(button('Sign in'))
    const until = formatLockEnd(new Date(now.getTime() + 900_000))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      `Too many tries. Try again after ${until}.`,
    )
    expect(until).toMatch(/\d{1,2}:42/)
    expect(screen.queryByRole('textbox')).toBeNull()
    expect(button('Use a different e-mail or phone')).toHaveFocus()

    await user.click(button('Use a different e-mail or phone'))
    expect(contactField()).toHaveValue('415 555 0142')
    expect(contactField()).toHaveFocus()
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('no connection: says so, keeps the contact, and Try again sends it', async () => {
    const seen = server({
      code: [new TypeError('Failed to fetch'), json(sent, 202)],
    })
    const { user } = open()
    await user.type(contactField(), 'jane@example.com')
    await user.click(button('Send me a code'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'We could not reach your practice. Check your connection and try again.',
    )
    expect(contactField()).toHaveValue('jane@example.com')
    expect(button('Try again')).toHaveFocus()
    await user.click(button('Try again'))
    await screen.findByRole('textbox', { name: /^6-digit code/ })
    expect(seen.map((s) => s.body)).toEqual([
      { contact: 'jane@example.com' },
      { contact: 'jane@example.com' },
    ])
  })

  it("too many codes asked for: the server's sentence", async () => {
    server({
      code: [
        refusal(429, 'Too many codes were asked for. Please wait a few minutes and try again.', {
          reason: 'rate_limited',
        }),
      ],
    })
    const { user } = open()
    await user.type(contactField(), 'jane@example.com')
    await user.click(button('Send me a code'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many codes were asked for. Please wait a few minutes and try again.',
    )
    expect(contactField()).toHaveValue('jane@example.com')
  })

  it('a server failure while checking keeps the code; Try again checks it again', async () => {
    const seen = server({
      code: [json(sent, 202)],
      session: [refusal(500, 'Internal failure at line 12'), json({ unexpected: true })],
    })
    const { user } = open()
    await toCode(user)
    await user.type(codeField(), '123456')
    await user.click(button('Sign in'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Something went wrong on our side. Please try again.',
    )
    expect(codeField()).toHaveValue('123456')
    expect(button('Try again')).toHaveFocus()
    await user.click(button('Try again'))
    // An answer that is not a session reads as our failure too.
    await vi.waitFor(() => expect(seen).toHaveLength(3))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Something went wrong on our side. Please try again.',
    )
    expect(seen[2]?.body).toEqual({ contact: 'jane@example.com', code: '123456' })
  })

  it('counts down to a new code on the timers and offers it after 30 s', async () => {
    // Only the timeouts are simulated (the machine's wait and the countdown run on them); the
    // steps are fired directly, since user-event and findBy wait on timeouts of their own.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    server({ code: [json(sent, 202), json(sent, 202)] })
    open()
    fireEvent.change(contactField(), { target: { value: 'jane@example.com' } })
    fireEvent.click(button('Send me a code'))
    await vi.waitFor(() => expect(codeField()).toBeVisible())
    expect(screen.getByText('Send a new code in 30 s')).toBeVisible()
    for (let s = 0; s < 3; s++) act(() => vi.advanceTimersByTime(1000))
    expect(screen.getByText('Send a new code in 27 s')).toBeVisible()
    expect(screen.queryByRole('button', { name: 'Send a new code' })).toBeNull()
    for (let s = 0; s < 27; s++) act(() => vi.advanceTimersByTime(1000))
    fireEvent.click(button('Send a new code'))
    await vi.waitFor(() => expect(screen.getByText('Send a new code in 30 s')).toBeVisible())
    expect(fetchMock).toHaveBeenCalledTimes(2)
  })
})

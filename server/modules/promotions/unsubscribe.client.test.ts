// @vitest-environment jsdom
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { unsubscribePage } from './pages.ts'

// jsdom's URL is not Node's: the path is made from the module's address as a string.
const SCRIPT = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), 'unsubscribe.client.js'),
  'utf8',
)

/** Puts the server's page for `id` in the document and runs its script, as a browser would. */
function open(id: string) {
  const html = unsubscribePage(id, '/assets/unsubscribe-page-test.js')
  document.body.innerHTML = /<body>([\s\S]*)<\/body>/.exec(html)?.[1] ?? ''
  new Function(SCRIPT)()
}

/** What a sighted visitor reads: the text of the page without the hidden outcomes. */
function visibleText(): string {
  const copy = document.body.cloneNode(true) as HTMLElement
  for (const hidden of copy.querySelectorAll('[hidden], noscript')) hidden.remove()
  return (copy.textContent ?? '').replace(/\s+/g, ' ').trim()
}

const answer = (status: number, body: unknown = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  })

describe('the unsubscribe page in the browser', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    // biome-ignore lint/suspicious/noDocumentCookie: the test clears the cookie it set.
    document.cookie = 'XSRF-TOKEN=; expires=Thu, 01 Jan 1970 00:00:00 GMT'
  })

  it('sends the spec call on opening, with the XSRF pair, and says the patient is unsubscribed', async () => {
    // biome-ignore lint/suspicious/noDocumentCookie: the cookie the server's page answer sets.
    document.cookie = 'XSRF-TOKEN=pair-123'
    const fetch = vi.fn(async () => answer(200, { email_subscription: false }))
    vi.stubGlobal('fetch', fetch)
    open('abc-token')
    expect(visibleText()).toContain('Please wait...')
    await vi.waitFor(() => expect(visibleText()).toContain('You are successfully unsubscribed!'))
    expect(visibleText()).toContain(
      'You will no longer receive marketing e-mails from this practice.',
    )
    expect(visibleText()).not.toContain('Please wait...')
    expect(fetch).toHaveBeenCalledWith('/api/patients/unsubscribe/abc-token', {
      method: 'PUT',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-XSRF-TOKEN': 'pair-123',
      },
      credentials: 'same-origin',
      body: JSON.stringify({ email_subscription: false }),
    })
  })

  it('says so clearly when the link is not valid', async () => {
    vi.stubGlobal('fetch', async () =>
      answer(404, { error: { message: 'This unsubscribe link is not valid.' } }),
    )
    open('gone')
    await vi.waitFor(() =>
      expect(visibleText()).toContain('This unsubscribe link is not valid or has expired.'),
    )
    expect(visibleText()).toContain(
      'If you keep receiving e-mails you did not ask for, contact the practice that sent them.',
    )
    expect(visibleText()).not.toContain('You are successfully unsubscribed!')
  })

  it("shows the server's own sentence for another refusal", async () => {
    vi.stubGlobal('fetch', async () =>
      answer(429, { error: { message: 'Too many requests. Please wait a minute.' } }),
    )
    open('busy')
    await vi.waitFor(() =>
      expect(visibleText()).toContain('Too many requests. Please wait a minute.'),
    )
  })

  it('explains a network failure instead of waiting for ever', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')))
    open('offline')
    await vi.waitFor(() =>
      expect(visibleText()).toContain(
        'We could not reach the server. Check your connection and try again.',
      ),
    )
    expect(visibleText()).not.toContain('Please wait...')
  })
})

// The one script of /unsubscribe/:id (server/modules/promotions/pages.ts). Opening the page is the
// action (spec section 2): it sends the spec's call, PUT /api/patients/unsubscribe/{id}, and shows
// the outcome the page already holds, hidden. A refusal other than an unknown link shows the
// server's own message instead of the page's. Plain script, no framework: it is all the page runs.
;(() => {
  const outcome = document.getElementById('outcome')
  if (!outcome) return
  const id = outcome.getAttribute('data-link') || ''
  const NETWORK = 'We could not reach the server. Check your connection and try again.'
  const FALLBACK = 'Something went wrong. Please try again.'

  function show(kind, message) {
    for (const block of document.querySelectorAll('[data-outcome]')) {
      block.hidden = block.getAttribute('data-outcome') !== kind
    }
    // An unknown link keeps the page's own sentence; another refusal says the server's.
    if (message) {
      const text = outcome.querySelector('[data-outcome="failed"] .alert')
      if (text) text.textContent = message
    }
  }

  // The double-submit pair of the API (docs/decisions/001-xsrf-double-submit.md): this page's
  // answer set the cookie; the call echoes it.
  const cookie = /(?:^|;\s*)XSRF-TOKEN=([^;]*)/.exec(document.cookie)
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' }
  if (cookie) headers['X-XSRF-TOKEN'] = decodeURIComponent(cookie[1])

  fetch(`/api/patients/unsubscribe/${encodeURIComponent(id)}`, {
    method: 'PUT',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify({ email_subscription: false }),
  }).then(
    async (response) => {
      // Read whatever the answer is: a body left unread keeps the request open in Chromium, and
      // a page whose network never goes quiet looks unfinished to tools that wait for it.
      const body = await response.json().catch(() => null)
      if (response.ok) return show('done')
      if (response.status === 404 || response.status === 400) return show('failed')
      const message = body?.error?.message
      show('failed', typeof message === 'string' && message ? message : FALLBACK)
    },
    () => show('failed', NETWORK),
  )
})()

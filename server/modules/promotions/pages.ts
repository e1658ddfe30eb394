/**
 * The two pages a patient opens from an e-mail: `/unsubscribe/:id` and
 * `/offers/:token`, rendered by the server as whole documents with their content in them.
 *
 * A patient opens them once, on a phone, often on a slow connection, and does one thing there.
 * The app's bundle (React, the router, Mantine: 160 KB gzip) took 0.7-1.2 s of main thread at 4x
 * CPU before these pages answered, and the offer could only show after it and a call: Lighthouse
 * mobile 73-78. Here the first response is the page, styled by a few hundred bytes of inline CSS,
 * with no framework: it paints with its first bytes. The offer's claim is a plain form; the
 * unsubscribe page runs one small script, because opening it is the action and a
 * link scanner that fetches it without running scripts must not unsubscribe anybody.
 * (docs/decisions/012-patient-email.md, "The patient's pages".)
 */
import { OFFER_MESSAGES, type OfferAnswer, offerTerms } from '#domain/offers.ts'
import { PRODUCT_NAME, pageTitle } from '#domain/page-titles.ts'
import { escapeHtml } from '#server/lib/html.ts'

/** The unsubscribe page's sentences (the first is the product's own wording). */
export const UNSUBSCRIBE_PAGE = {
  intro:
    'This link stops the marketing e-mails of the practice that sent it: its offers, points reminders and points statements.',
  pending: 'Please wait...',
  done: 'You are successfully unsubscribed!',
  doneNext: 'You will no longer receive marketing e-mails from this practice.',
  invalid: 'This unsubscribe link is not valid or has expired.',
  failedNext:
    'If you keep receiving e-mails you did not ask for, contact the practice that sent them.',
  noScript: 'Press Unsubscribe to stop these e-mails.',
  button: 'Unsubscribe',
  // The way back.
  again: 'Subscribe again',
  againHint: 'Changed your mind? You can receive these e-mails again.',
  subscribed: 'You are subscribed again!',
  subscribedNext: "You will receive this practice's e-mails again.",
} as const

/** The form of "Subscribe again": a plain POST, so it works without scripts. */
const subscribeAgainForm = (id: string) =>
  `<form method="post" action="${escapeHtml(`/unsubscribe/${encodeURIComponent(id)}/subscribe`)}"><button type="submit">${escapeHtml(UNSUBSCRIBE_PAGE.again)}</button></form>`

/** The offer page's sentences beyond the outcomes of domain/offers.ts. */
export const OFFER_PAGE = {
  intro:
    'An offer from your practice, sent to you by e-mail. Claim it here, then show the e-mail at your next visit.',
  button: 'Claim offer',
  /** The link to the practice's wallet, below the offer. */
  wallet: 'See all my points',
} as const

// Mantine's look of the app's public pages (src/ui/public-page.tsx, src/app/theme.ts): the teal
// brand, the soft gradient, a bordered card; colours chosen for WCAG AA contrast on their tints.
const CSS = `*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',sans-serif;font-size:16px;line-height:1.55;color:#000;background:#fff;-webkit-font-smoothing:antialiased}
main{min-height:100dvh;padding:32px 16px;background:linear-gradient(160deg,#e6f6f5 0%,#f8f9fa 55%,#fff 100%)}
.frame{max-width:440px;margin:0 auto;display:flex;flex-direction:column;gap:24px}
.logo{display:block;margin:0 auto;width:200px;height:40px}
.card{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.05),0 10px 15px -5px rgba(0,0,0,.05),0 7px 7px -5px rgba(0,0,0,.04);display:flex;flex-direction:column;gap:16px;overflow-wrap:anywhere}
h1,h2,p{margin:0}
h1{font-size:26px;line-height:1.35;font-weight:650;text-align:center}
h2{font-size:22px;line-height:1.4;font-weight:650;text-align:center}
.c{text-align:center}.s{font-size:14px}.d{color:#495057}.pre{white-space:pre-line}
.practice{display:flex;flex-wrap:wrap;align-items:center;justify-content:center;gap:8px 12px;font-weight:600;text-align:center}
.practice img{display:block;width:auto;height:auto;max-width:min(200px,100%);max-height:56px;border-radius:4px}
.alert{border-radius:8px;padding:12px 16px;font-size:14px;text-align:center}
.gray{background:#f1f3f5;color:#212529}.green{background:#ebfbee;color:#1e6b31}.red{background:#fff5f5;color:#c92a2a}
button{width:100%;min-height:42px;border:0;border-radius:8px;padding:0 18px;font:inherit;font-weight:600;color:#fff;background:#0b5a5a;cursor:pointer}
button:hover{background:#074444}button:focus-visible{outline:2px solid #0b5a5a;outline-offset:2px}
form{margin:0}[hidden]{display:none!important}
@media (max-width:36em){main{padding:16px 10px}.card{padding:16px}}`

type Page = {
  /** The page's address, for its title (domain/page-titles.ts). */
  path: string
  heading: string
  /** The card's content below the heading: markup made here, every value escaped. */
  body: string
  /** A script of our own origin, deferred (the CSP allows no inline script). */
  script?: string
}

/** A whole patient page: the product logo above a card with its heading (escaped) and body. */
function document({ path, heading, body, script }: Page): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="theme-color" content="#0b5a5a">
<title>${escapeHtml(pageTitle(path))}</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<style>${CSS}</style>
${script ? `<script src="${escapeHtml(script)}" defer></script>\n` : ''}</head>
<body>
<main>
<div class="frame">
<img class="logo" src="/logo.svg" alt="${PRODUCT_NAME}" width="200" height="40">
<div class="card">
<h1>${escapeHtml(heading)}</h1>
${body}
</div>
</div>
</main>
</body>
</html>
`
}

const paragraph = (text: string, className = 'c') =>
  `<p class="${className}">${escapeHtml(text)}</p>`

/** A message on a tint; `role` makes it a live region, announced when it appears. */
const alert = (color: 'gray' | 'green' | 'red', text: string, role?: 'status' | 'alert') =>
  `<div class="alert ${color}"${role ? ` role="${role}"` : ''}>${escapeHtml(text)}</div>`

/**
 * `/unsubscribe/:id` as it opens: the page's text, and a status line that the page's script
 * (unsubscribe.client.js) fills with the outcome of the spec's call. Every outcome's text is in the
 * page, hidden until it applies. Without scripts, a form sends the same unsubscribe.
 */
export function unsubscribePage(id: string, script: string): string {
  const action = `/unsubscribe/${encodeURIComponent(id)}`
  return document({
    path: action,
    heading: 'Unsubscribe',
    script,
    body: `${paragraph(UNSUBSCRIBE_PAGE.intro)}
<div id="outcome" data-link="${escapeHtml(id)}">
<div data-outcome="pending">${alert('gray', UNSUBSCRIBE_PAGE.pending, 'status')}</div>
<div data-outcome="done" hidden>${alert('green', UNSUBSCRIBE_PAGE.done, 'status')}</div>
<div data-outcome="failed" hidden>${alert('red', UNSUBSCRIBE_PAGE.invalid, 'alert')}</div>
</div>
<p class="c s" data-outcome="done" hidden>${escapeHtml(UNSUBSCRIBE_PAGE.doneNext)}</p>
<div data-outcome="done" hidden>${paragraph(UNSUBSCRIBE_PAGE.againHint, 'c s d')}${subscribeAgainForm(id)}</div>
<p class="c s" data-outcome="failed" hidden>${escapeHtml(UNSUBSCRIBE_PAGE.failedNext)}</p>
<noscript><style>[data-outcome="pending"]{display:none}</style>${paragraph(UNSUBSCRIBE_PAGE.noScript, 'c s')}<form method="post" action="${escapeHtml(action)}"><button type="submit">${UNSUBSCRIBE_PAGE.button}</button></form></noscript>`,
  })
}

/** `/unsubscribe/:id` after the form without scripts was sent: the outcome, rendered here. */
export function unsubscribedPage(
  id: string,
  outcome: { ok: true } | { ok: false; message: string },
) {
  return document({
    path: `/unsubscribe/${encodeURIComponent(id)}`,
    heading: 'Unsubscribe',
    body: [
      paragraph(UNSUBSCRIBE_PAGE.intro),
      outcome.ok
        ? alert('green', UNSUBSCRIBE_PAGE.done, 'status')
        : alert('red', outcome.message, 'alert'),
      paragraph(outcome.ok ? UNSUBSCRIBE_PAGE.doneNext : UNSUBSCRIBE_PAGE.failedNext, 'c s'),
      ...(outcome.ok
        ? [paragraph(UNSUBSCRIBE_PAGE.againHint, 'c s d'), subscribeAgainForm(id)]
        : []),
    ].join('\n'),
  })
}

/**
 * `/unsubscribe/:id` after "Subscribe again": subscribed again (with the way to unsubscribe once
 * more), or why not.
 */
export function resubscribedPage(
  id: string,
  outcome: { ok: true } | { ok: false; message: string },
) {
  const action = `/unsubscribe/${encodeURIComponent(id)}`
  return document({
    path: action,
    heading: 'Unsubscribe',
    body: [
      outcome.ok
        ? alert('green', UNSUBSCRIBE_PAGE.subscribed, 'status')
        : alert('red', outcome.message, 'alert'),
      paragraph(outcome.ok ? UNSUBSCRIBE_PAGE.subscribedNext : UNSUBSCRIBE_PAGE.failedNext, 'c s'),
      ...(outcome.ok
        ? [
            `<form method="post" action="${escapeHtml(action)}"><button type="submit">${UNSUBSCRIBE_PAGE.button}</button></form>`,
          ]
        : []),
    ].join('\n'),
  })
}

/** Where the offer stands, below its terms: a button while it can be claimed, else why not. */
function offerOutcome(answer: OfferAnswer, action: string): string {
  switch (answer.state) {
    case 'open':
      return `<form method="post" action="${escapeHtml(action)}"><button type="submit">${OFFER_PAGE.button}</button></form>`
    case 'claimed':
      return alert('green', OFFER_MESSAGES.claimed, 'status')
    case 'redeemed':
      return alert('green', OFFER_MESSAGES.redeemed, 'status')
    default:
      return alert('gray', answer.reason ?? OFFER_MESSAGES.ended, 'status')
  }
}

/**
 * `/offers/:token`: the offer of a patient's personal link with its practice's name and logo, and
 * a "Claim offer" button (a form posted to the same address) while it can be claimed; or, for a
 * link that names nothing, why. `error` is what a claim just refused, shown above the button.
 */
export function offerPage(
  token: string,
  view: { answer: OfferAnswer; error?: string | undefined } | { failed: string },
): string {
  const path = `/offers/${encodeURIComponent(token)}`
  const parts = [paragraph(OFFER_PAGE.intro)]
  if ('failed' in view) {
    parts.push(alert('red', view.failed, 'alert'))
  } else {
    const { answer, error } = view
    const logo = answer.practice.logo
      ? // At its own aspect ratio within 200 × 56 px: a wide logo is not squeezed.
        `<img src="${escapeHtml(answer.practice.logo)}" alt="">`
      : ''
    parts.push(
      `<div class="practice">${logo}<span>${escapeHtml(answer.practice.name)}</span></div>`,
      `<h2>${escapeHtml(answer.offer.title)}</h2>`,
      ...(answer.offer.description ? [paragraph(answer.offer.description, 'c s pre')] : []),
      paragraph(offerTerms(answer.offer), 'c s d'),
      ...(error ? [alert('red', error, 'alert')] : []),
      offerOutcome(answer, path),
      ...(answer.practice.wallet_url
        ? [
            `<p class="c s"><a href="${escapeHtml(answer.practice.wallet_url)}">${OFFER_PAGE.wallet}</a></p>`,
          ]
        : []),
    )
  }
  return document({ path, heading: 'Your offer', body: parts.join('\n') })
}

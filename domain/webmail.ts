/**
 * The webmail of the best-known free mail providers, by the domain of an address, for the
 * "Check email" button after a password reset was asked for: it opens the inbox where
 * the link is waiting. Any other domain has no known inbox page, and a `mailto:` link would only
 * open an empty message to write, so then there is no button.
 */
const WEBMAIL: Readonly<Record<string, string>> = {
  'gmail.com': 'https://mail.google.com/',
  'googlemail.com': 'https://mail.google.com/',
  'outlook.com': 'https://outlook.live.com/mail/',
  'hotmail.com': 'https://outlook.live.com/mail/',
  'live.com': 'https://outlook.live.com/mail/',
  'msn.com': 'https://outlook.live.com/mail/',
  'yahoo.com': 'https://mail.yahoo.com/',
  'ymail.com': 'https://mail.yahoo.com/',
  'icloud.com': 'https://www.icloud.com/mail/',
  'me.com': 'https://www.icloud.com/mail/',
  'mac.com': 'https://www.icloud.com/mail/',
  'aol.com': 'https://mail.aol.com/',
  'proton.me': 'https://mail.proton.me/',
  'protonmail.com': 'https://mail.proton.me/',
  'pm.me': 'https://mail.proton.me/',
  'gmx.com': 'https://www.gmx.com/',
  'zoho.com': 'https://mail.zoho.com/',
}

/** The inbox page of the address's mail provider, or null when the domain is not a known one. */
export function webmailFor(email: string): string | null {
  const domain = email.trim().toLowerCase().split('@').pop() ?? ''
  return WEBMAIL[domain] ?? null
}

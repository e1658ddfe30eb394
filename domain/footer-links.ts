/**
 * The shell footer's links (PORTAL.md section 4; issue 19): a practice's own about, privacy and
 * support links where it set them (Settings, domain/practice-settings.ts), else the product's own
 * views. Never a dead address. Kept apart from the settings' rules: every signed-in page needs it.
 */

/** One link of the shell's footer; `external` when it leaves the product. */
export type FooterLink = { label: string; href: string; external: boolean }

/** The support address when none is configured (VITE_SUPPORT_EMAIL): the product's own domain. */
export const DEFAULT_SUPPORT_EMAIL = 'support@glowrewards.example'

/** Whether a text is a full https address of a host (`https://clinic.com/privacy`). */
export function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text.trim())
    return url.protocol === 'https:' && url.hostname.includes('.') && !url.username
  } catch {
    return false
  }
}

/**
 * The footer's links: the practice's about, privacy and support links where set, else About,
 * the privacy section of the Terms, the Terms, the Business Associates Agreement and an e-mail
 * to support.
 */
export function footerLinks(
  practice: { about?: string; privacy?: string; support?: string } | null | undefined,
  supportEmail: string = DEFAULT_SUPPORT_EMAIL,
): FooterLink[] {
  const own = (href: string | undefined) => (href?.trim() ? href.trim() : undefined)
  const support = own(practice?.support)
  const supportHref = support
    ? isHttpsUrl(support)
      ? support
      : `mailto:${support.replace(/^mailto:/i, '')}`
    : `mailto:${supportEmail}`
  const about = own(practice?.about)
  const privacy = own(practice?.privacy)
  return [
    { label: 'About', href: about ?? '/about', external: about !== undefined },
    { label: 'Privacy', href: privacy ?? '/terms#privacy', external: privacy !== undefined },
    { label: 'Terms', href: '/terms', external: false },
    { label: 'Agreements', href: '/agreement', external: false },
    { label: 'Support Centre', href: supportHref, external: true },
  ]
}

/**
 * The shell footer's links: a practice's own about, privacy and
 * support links where it set them (Settings, domain/practice-settings.ts), else the product's own
 * views. Never a dead address. Kept apart from the settings' rules: every signed-in page needs it.
 */

/** One link of the shell's footer; `external` when it leaves the product. */
export type FooterLink = { label: string; href: string; external: boolean }

/**
 * The support address when none is configured (`SUPPORT_EMAIL` on the server, or
 * `VITE_SUPPORT_EMAIL` at build time) and the practice has no e-mail of its own.
 */
export const DEFAULT_SUPPORT_EMAIL = 'support@glowrewards.com'

/** The first year of the product, where the footer's copyright years start. */
export const FIRST_YEAR = 2018

/** The footer's copyright line, its years ending at the current year of `now`: `© 2018-2026 Glow Rewards`. */
export function copyrightLine(now: Date = new Date()): string {
  const year = now.getFullYear()
  return `© ${year > FIRST_YEAR ? `${FIRST_YEAR}-${year}` : FIRST_YEAR} Glow Rewards`
}

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
 * to support: the practice's own support link, else the practice's e-mail (Settings), else the
 * configured support address.
 */
export function footerLinks(
  practice: { about?: string; privacy?: string; support?: string } | null | undefined,
  supportEmail: string = DEFAULT_SUPPORT_EMAIL,
  practiceEmail?: string | null,
): FooterLink[] {
  const own = (href: string | undefined) => (href?.trim() ? href.trim() : undefined)
  const support = own(practice?.support)
  const supportHref = support
    ? isHttpsUrl(support)
      ? support
      : `mailto:${support.replace(/^mailto:/i, '')}`
    : `mailto:${practiceEmail?.trim() || supportEmail}`
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

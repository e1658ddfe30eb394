/**
 * Every page's own document title: "Sign In – Glow Rewards", "Patients – Glow Rewards".
 * The names are the spec's names of the screens (section 2) and the shell's areas. The browser
 * sets the title on each navigation; the server writes it into the prerendered pages, so a page
 * carries its title before any script runs.
 */

/** The product's name, the end of every title and the title of a page with no name of its own. */
export const PRODUCT_NAME = 'Glow Rewards'

const PAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/signin$/, 'Sign In'],
  [/^\/reset(=.*)?$/, 'Reset Password'],
  [/^\/signup$/, 'Sign Up'],
  [/^\/signup\/personnel\/[^/]+$/, 'Registration'],
  [/^\/thankyou$/, 'Congratulations'],
  [/^\/terms$/, 'Terms and Conditions'],
  [/^\/agreement$/, 'Business Associates Agreement'],
  [/^\/about$/, 'About'],
  [/^\/unsubscribe\/[^/]+$/, 'Unsubscribe'],
  [/^\/offers\/[^/]+$/, 'Your offer'],
  [/^\/membership-card\/[^/]+$/, 'Update your card'],
  [/^\/404$/, 'Page not found'],
  [/^\/dashboard$/, 'Dashboard'],
  [/^\/appointments$/, 'Appointments'],
  [/^\/checkout$/, 'Checkout'],
  [/^\/patients$/, 'Patients'],
  [/^\/patients\/import$/, 'Import patients'],
  [/^\/patients\/duplicates$/, 'Possible duplicates'],
  [/^\/promotions$/, 'Promotions'],
  [/^\/memberships$/, 'Memberships'],
  [/^\/memberships\/dashboard$/, 'Memberships dashboard'],
  [/^\/procedures$/, 'Procedures'],
  [/^\/personnel$/, 'Personnel'],
  [/^\/personnel\/[^/]+$/, 'Profile'],
  [/^\/archive$/, 'Archive'],
  [/^\/settings$/, 'Settings'],
]

/** The name of the page at `pathname` (a trailing slash ignored), or null for an unknown path. */
export function pageName(pathname: string): string | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname
  return PAGES.find(([pattern]) => pattern.test(path))?.[1] ?? null
}

/** The document title of the page at `pathname`: "Name – Glow Rewards", or the product's name. */
export function pageTitle(pathname: string): string {
  const name = pageName(pathname)
  return name ? `${name} – ${PRODUCT_NAME}` : PRODUCT_NAME
}

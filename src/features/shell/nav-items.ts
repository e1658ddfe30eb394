import {
  IconArchive,
  IconCalendarEvent,
  IconGift,
  IconId,
  IconLayoutDashboard,
  IconSettings,
  IconStethoscope,
  IconUsers,
} from '@tabler/icons-react'

/** The eight areas of the signed-in shell (spec section 2), in menu order. */
export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Dashboard', icon: IconLayoutDashboard },
  { to: '/appointments', label: 'Appointments', icon: IconCalendarEvent },
  { to: '/patients', label: 'Patients', icon: IconUsers },
  { to: '/promotions', label: 'Promotions', icon: IconGift },
  { to: '/procedures', label: 'Procedures', icon: IconStethoscope },
  { to: '/personnel', label: 'Personnel', icon: IconId },
  { to: '/archive', label: 'Archive', icon: IconArchive },
  { to: '/settings', label: 'Settings', icon: IconSettings },
] as const

/**
 * Links of the shell footer (spec section 2). The spec names the pages but not their addresses:
 * they live on the product's public site, configured here in one place.
 */
export const SITE_URL = 'https://glowrewards.example'
export const FOOTER_LINKS = [
  { href: `${SITE_URL}/about`, label: 'About' },
  { href: `${SITE_URL}/privacy`, label: 'Privacy' },
  { href: `${SITE_URL}/terms`, label: 'Terms' },
  { href: `${SITE_URL}/agreements`, label: 'Agreements' },
  { href: `${SITE_URL}/support`, label: 'Support Centre' },
] as const

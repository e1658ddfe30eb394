import {
  IconArchive,
  IconCalendarEvent,
  IconGift,
  IconId,
  IconLayoutDashboard,
  IconRosetteDiscountCheck,
  IconSettings,
  IconStethoscope,
  IconUsers,
} from '@tabler/icons-react'

/** The nine areas of the signed-in shell, in menu order. */
export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Dashboard', icon: IconLayoutDashboard },
  { to: '/appointments', label: 'Appointments', icon: IconCalendarEvent },
  { to: '/patients', label: 'Patients', icon: IconUsers },
  { to: '/promotions', label: 'Promotions', icon: IconGift },
  { to: '/memberships', label: 'Memberships', icon: IconRosetteDiscountCheck },
  { to: '/procedures', label: 'Procedures', icon: IconStethoscope },
  { to: '/personnel', label: 'Personnel', icon: IconId },
  { to: '/archive', label: 'Archive', icon: IconArchive },
  { to: '/settings', label: 'Settings', icon: IconSettings },
] as const

import { IconLock } from '@tabler/icons-react'

/**
 * The props that lock a text input or select whose value was confirmed (a verified phone, a paid
 * card, the invited person's e-mail): read-only at the normal text contrast, unlike a disabled
 * field's pale grey, so the person can still read and check it, with a lock in place of the
 * field's right-hand control as the cue. Unlocked: nothing.
 */
export function lockedProps(locked: boolean) {
  if (!locked) return {}
  return {
    readOnly: true,
    rightSection: <IconLock size={16} stroke={1.8} role="img" aria-label="Locked" />,
    rightSectionPointerEvents: 'none' as const,
    'data-locked': true,
  }
}

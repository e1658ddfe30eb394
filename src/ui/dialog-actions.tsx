import { Button, Group } from '@mantine/core'
import type { ReactNode } from 'react'
import { FailureAlert } from '#src/ui/failure-alert.tsx'

/**
 * The foot of a dialog's form: why the last try was refused (when it was), then Cancel (or its
 * `cancelLabel`) and the
 * action. The action submits the form, or runs `onAction` where there is no form (a confirmation).
 */
export function DialogActions({
  failure,
  busy,
  actionLabel,
  cancelLabel = 'Cancel',
  color,
  cancelLockedWhileBusy = false,
  onCancel,
  onAction,
}: {
  failure?: ReactNode
  busy: boolean
  actionLabel: string
  /** The label of the way out ("Keep appointment" where "Cancel" would read as the action). */
  cancelLabel?: string
  color?: string
  /** Cancel waits for the action to finish instead of closing over it. */
  cancelLockedWhileBusy?: boolean
  onCancel: () => void
  onAction?: () => void
}) {
  return (
    <>
      <FailureAlert>{failure}</FailureAlert>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel} disabled={cancelLockedWhileBusy && busy}>
          {cancelLabel}
        </Button>
        <Button
          type={onAction ? 'button' : 'submit'}
          color={color}
          loading={busy}
          onClick={onAction}
        >
          {actionLabel}
        </Button>
      </Group>
    </>
  )
}

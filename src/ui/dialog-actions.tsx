import { Button, Group, Stack, Text } from '@mantine/core'
import type { UseFormReturnType } from '@mantine/form'
import { type ReactNode, useState } from 'react'
import { FailureAlert } from '#src/ui/failure-alert.tsx'

/** Props of {@link DialogActions}. */
export type DialogActionsProps = {
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
}

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
}: DialogActionsProps) {
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

/**
 * The state of a dialog's action while it runs: `busy` until its promise settles, then the
 * refusal it returned (if any) as `failure`. `run` does nothing when given nothing (a form that
 * refused its values before sending them).
 */
function useDialogAction() {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const run = async (action: Promise<string | undefined> | undefined) => {
    if (!action) return
    setBusy(true)
    setFailure(await action)
    setBusy(false)
  }
  return { busy, failure, run }
}

/** What {@link DialogForm} and {@link ConfirmDialog} pass on to their {@link DialogActions}. */
type ActionsOf = Omit<DialogActionsProps, 'failure' | 'busy' | 'onAction'>

/**
 * A dialog's form: its fields, then {@link DialogActions}. Valid values go to `onSubmit`, whose
 * refusal (if any) shows above the buttons; `onSubmit` returns nothing when it sends nothing.
 */
export function DialogForm<V>({
  form,
  onSubmit,
  children,
  ...actions
}: ActionsOf & {
  form: UseFormReturnType<V>
  onSubmit: (values: V) => Promise<string | undefined> | undefined
  children: ReactNode
}) {
  const { busy, failure, run } = useDialogAction()
  return (
    <form noValidate onSubmit={form.onSubmit((values) => run(onSubmit(values)))}>
      <Stack gap="md">
        {children}
        <DialogActions {...actions} failure={failure} busy={busy} />
      </Stack>
    </form>
  )
}

/** A dialog that asks before an action: what will happen, then Cancel (or `cancelLabel`) and the action. */
export function ConfirmDialog({
  text,
  onConfirm,
  ...actions
}: ActionsOf & {
  text: string
  onConfirm: () => Promise<string | undefined>
}) {
  const { busy, failure, run } = useDialogAction()
  return (
    <Stack gap="md">
      <Text size="sm">{text}</Text>
      <DialogActions {...actions} failure={failure} busy={busy} onAction={() => run(onConfirm())} />
    </Stack>
  )
}

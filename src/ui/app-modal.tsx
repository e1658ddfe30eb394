import { Modal, type ModalProps } from '@mantine/core'

/** What counts as a field: something a person types in, picks or ticks. */
const FIELD =
  'input:not([type="hidden"]):not([disabled]):not([tabindex="-1"]), textarea:not([disabled]), select:not([disabled])'

/**
 * Where a dialog's focus lands when it opens: what the dialog marked itself
 * (`data-autofocus`), else its first field, else its first enabled button (the way out comes
 * first in every dialog's foot, so a confirmation focuses its least destructive choice), never
 * the close button of its header. Marks that element with `data-autofocus`, which Mantine's
 * focus trap focuses once the dialog is in the page.
 */
export function markInitialFocus(body: HTMLElement | null): void {
  if (!body || body.querySelector('[data-autofocus]')) return
  const target =
    body.querySelector<HTMLElement>(FIELD) ??
    body.querySelector<HTMLElement>('button:not([disabled])')
  target?.setAttribute('data-autofocus', '')
}

/**
 * The portal's dialog: Mantine's Modal with its close button named "Close", opening with the
 * focus on its first field, or on its first button when it has no field ({@link markInitialFocus}).
 */
export function AppModal({ children, closeButtonProps, ...props }: ModalProps) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close', ...closeButtonProps }} {...props}>
      <div ref={markInitialFocus} style={{ display: 'contents' }}>
        {children}
      </div>
    </Modal>
  )
}

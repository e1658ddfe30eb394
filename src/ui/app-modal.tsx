import { Modal, type ModalProps } from '@mantine/core'
import type { ReactNode } from 'react'

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

/** Props of {@link TaskModal}. */
export type TaskModalProps<S> = Omit<ModalProps, 'opened' | 'children'> & {
  /** What the dialog is about; it is open while there is one (`true` for a dialog about nothing). */
  subject: S | null | undefined | false
  /**
   * The dialog's content for its subject. `finish` hands on what the task answered and closes the
   * dialog when that is no failure: a refusal keeps it open, with what was typed.
   */
  children: (subject: S, finish: <F>(answer: Promise<F>) => Promise<F>) => ReactNode
}

/** A dialog for one task of a screen, about one subject: the entry to reverse, the visit to move. */
export function TaskModal<S>({ subject, onClose, children, ...props }: TaskModalProps<S>) {
  const open = subject !== undefined && subject !== null && subject !== false
  const finish = async <F,>(answer: Promise<F>) => {
    const failure = await answer
    if (!failure) onClose()
    return failure
  }
  return (
    <AppModal opened={open} onClose={onClose} {...props}>
      {open && children(subject as S, finish)}
    </AppModal>
  )
}

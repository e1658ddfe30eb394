import { Title } from '@mantine/core'
import type { FormErrors, UseFormReturnType } from '@mantine/form'
import { type ReactNode, useEffect, useRef } from 'react'
import type { ActorRefFrom } from 'xstate'
import type { signUpMachine } from '#machines/sign-up/sign-up.machine.ts'

/** The wizard's actor, as every view of the wizard receives it. */
export type SignUpActorRef = ActorRefFrom<typeof signUpMachine>

/** The id of the step form the footer's Continue button submits. */
export const STEP_FORM_ID = 'sign-up-step-form'

/**
 * Moves focus to the first field (in the page's order) that a refused Continue marked invalid, so
 * keyboard and screen-reader users land on what needs fixing.
 */
export function focusFirstInvalid(form: HTMLFormElement | null, errors: FormErrors): void {
  if (!form) return
  const paths = new Set(Object.keys(errors))
  for (const node of form.querySelectorAll<HTMLElement>('[data-path]')) {
    const path = node.getAttribute('data-path') ?? ''
    if (paths.has(path) && !node.hasAttribute('disabled')) {
      node.focus()
      return
    }
  }
}

/** Props of {@link StepForm}. */
export type StepFormProps<V> = {
  form: UseFormReturnType<V>
  /** Takes the step's valid values (the wizard moves on with them). */
  onContinue: (values: V) => void
  hidden?: boolean
  children: ReactNode
}

/**
 * A step's form, the one the footer's Continue submits: valid values go to `onContinue`; refused
 * ones move the focus to the first invalid field.
 */
export function StepForm<V>({ form, onContinue, hidden, children }: StepFormProps<V>) {
  const ref = useRef<HTMLFormElement>(null)
  return (
    <form
      id={STEP_FORM_ID}
      ref={ref}
      noValidate
      hidden={hidden}
      onSubmit={form.onSubmit(onContinue, (errors) => focusFirstInvalid(ref.current, errors))}
    >
      {children}
    </form>
  )
}

/**
 * A ref that focuses its element once, when it first appears (if `enabled` then). Later renders
 * never move focus again, so typing elsewhere is never interrupted.
 */
export function useFocusOnMount<T extends HTMLElement>(enabled: boolean) {
  const ref = useRef<T>(null)
  const enabledOnMount = useRef(enabled)
  useEffect(() => {
    if (enabledOnMount.current) ref.current?.focus()
  }, [])
  return ref
}

/** Props of {@link StepHeading}. */
export type StepHeadingProps = {
  children: ReactNode
  /** Focus the heading when it appears (after Continue or Back, not on the first page load). */
  focusOnMount: boolean
}

/**
 * A step's heading (h2). It takes focus when the wizard moves to its step, so screen readers
 * announce the new step and keyboard users continue from its top.
 */
export function StepHeading({ children, focusOnMount }: StepHeadingProps) {
  const ref = useFocusOnMount<HTMLHeadingElement>(focusOnMount)
  return (
    <Title order={2} size="h3" tabIndex={-1} style={{ outline: 'none' }} ref={ref}>
      {children}
    </Title>
  )
}

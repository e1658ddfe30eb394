import { useRef } from 'react'
import type { SignInScreenInput } from '#machines/auth/sign-in-screen.machine.ts'
import { showAlert } from '#src/lib/alerts.ts'
import { useDeferredActor } from '#src/lib/deferred-actor.ts'
import { loadForgotPasswordView } from './forgot-password-view-loader.ts'
import type { SignInScreenActions, SignInScreenSource } from './sign-in-screen-view.ts'

/** Shown in the page's banner when the sign-in screen's code could not be fetched. */
export const SIGN_IN_UNAVAILABLE_MESSAGE =
  'The sign-in form could not load. Check your connection and try again.'

type Kit = typeof import('./sign-in-screen-actor.ts')

let loaded: Kit | undefined
let loading: Promise<Kit> | undefined

/**
 * The sign-in screen's machine and XState (sign-in-screen-actor.ts), with the view only the
 * machine can open (Forgot Password), fetched once. A route whose first view depends on the
 * machine (a reset code) awaits it in its loader.
 */
export function loadSignInScreenMachine(): Promise<Kit> {
  loading ??= Promise.all([import('./sign-in-screen-actor.ts'), loadForgotPasswordView()]).then(
    ([kit]) => {
      loaded = kit
      return kit
    },
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}

/**
 * The sign-in screen's actor for the route's lifetime. The machine's code is not part of the
 * page's first load: it is fetched at the first focus, pointer or key press (or at once when the
 * address carries a reset code), and the form shows the machine's first state meanwhile. The
 * input is read once, when the screen opens; the actions may change on every render.
 */
export function useSignInScreenActor(
  input: SignInScreenInput,
  actions: SignInScreenActions,
): SignInScreenSource {
  const latest = useRef(actions)
  latest.current = actions
  return useDeferredActor({
    load: loadSignInScreenMachine,
    loaded,
    create: (kit) => kit.createSignInScreenActor(input, () => latest.current),
    onLoadFailure: () => showAlert({ type: 'danger', message: SIGN_IN_UNAVAILABLE_MESSAGE }),
    eager: Boolean(input.resetCode),
  })
}

import { useActorRef } from '@xstate/react'
import type { Session } from '#domain/session.ts'
import {
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import { signInScreenActors } from './sign-in.actors.ts'

/** What the route decides the screen's action slots mean. */
export type SignInScreenActions = {
  /** Signed in by the form or by a reset: store the session, move on. */
  onSignedIn: (params: { session: Session; remember: boolean }) => void
  /** A reset code was submitted (successfully or not): remember it. */
  onResetCodeUsed: (params: { code: string }) => void
  /** The screen shows 'Password Reset link is outdated!' on the sign-in view: fix the address. */
  onResetLinkOutdated: (params: { code: string | null }) => void
}

/**
 * Starts the sign-in screen's machine with the real API actors and the route's actions. The
 * input is read once, when the screen opens; the actions may change on every render.
 */
export function useSignInScreenActor(input: SignInScreenInput, actions: SignInScreenActions) {
  return useActorRef(
    signInScreenMachine.provide({
      actors: signInScreenActors,
      actions: {
        onSignedIn: (_, params) => actions.onSignedIn(params),
        onResetCodeUsed: (_, params) => actions.onResetCodeUsed(params),
        onResetLinkOutdated: (_, params) => actions.onResetLinkOutdated(params),
      },
    }),
    { input },
  )
}

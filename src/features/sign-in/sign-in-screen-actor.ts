import { createActor } from 'xstate'
import {
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import { signInScreenActors } from './sign-in.actors.ts'
import type { SignInScreenActions } from './sign-in-screen-view.ts'

/**
 * The sign-in screen's actor (not started) with the real API actors and the route's actions,
 * read when they run (`actions()`), so a route that re-renders is heard. This module brings
 * XState and the machine: the screen loads it when someone starts to use it
 * (use-sign-in-screen-actor.ts).
 */
export function createSignInScreenActor(
  input: SignInScreenInput,
  actions: () => SignInScreenActions,
) {
  return createActor(
    signInScreenMachine.provide({
      actors: signInScreenActors,
      actions: {
        onSignedIn: (_, params) => actions().onSignedIn(params),
        onResetCodeUsed: (_, params) => actions().onResetCodeUsed(params),
        onResetLinkOutdated: (_, params) => actions().onResetLinkOutdated(params),
      },
    }),
    { input },
  )
}

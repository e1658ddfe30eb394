import { useActorRef } from '@xstate/react'
import { useEffect, useRef, useState } from 'react'
import type { SignUpAnswer } from '#domain/sign-up/api.ts'
import { restoreSignUpInput, signUpMachine } from '#machines/sign-up/sign-up.machine.ts'
import { selectPersistable } from '#machines/sign-up/sign-up.selectors.ts'
import { env } from '#src/lib/env.ts'
import {
  createSignUpActors,
  type PaymentsMode,
  paymentsMode,
  type StripeCardFields,
} from './sign-up.actors.ts'
import { readSignUpProgress, writeSignUpProgress } from './sign-up-storage.ts'

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Whether the wizard runs in test mode, which pre-fills steps 2 onward: tester
 * mode, or a non-production build opened on this machine (localhost).
 */
export function isSignUpTestMode(
  hostname: string = globalThis.location?.hostname ?? '',
  config: { VITE_TESTER_MODE: boolean; VITE_PRODUCTION: boolean } = env,
): boolean {
  return config.VITE_TESTER_MODE || (LOCAL_HOSTS.has(hostname) && !config.VITE_PRODUCTION)
}

/** What the route decides the wizard's action slots mean. */
export type SignUpActions = {
  /** Back on step 1. */
  onBackToSignIn: () => void
  /** The account exists; the stored progress is already gone. */
  onSubmitted: (answer: SignUpAnswer) => void
}

/**
 * Starts the wizard's machine with the real API actors and the route's actions. Stored progress
 * (sessionStorage) is read once, when the wizard opens, and written again after every change
 * through the machine's `selectPersistable`, which never holds passwords, the card number, the
 * CVV or the code; it is removed once the account exists.
 */
export function useSignUpActor(actions: SignUpActions) {
  const stripeFields = useRef<StripeCardFields | null>(null)
  const [mode] = useState<PaymentsMode>(() => paymentsMode())
  const [actors] = useState(() =>
    createSignUpActors({ mode, getStripeFields: () => stripeFields.current }),
  )
  const [input] = useState(() =>
    restoreSignUpInput(readSignUpProgress(), { testMode: isSignUpTestMode() }),
  )
  const actorRef = useActorRef(
    signUpMachine.provide({
      actors,
      actions: {
        onBackToSignIn: () => actions.onBackToSignIn(),
        onSubmitted: (_, { answer }) => {
          writeSignUpProgress(null)
          actions.onSubmitted(answer)
        },
      },
    }),
    { input },
  )

  useEffect(() => {
    const save = () => writeSignUpProgress(selectPersistable(actorRef.getSnapshot()))
    save()
    const subscription = actorRef.subscribe(save)
    return () => subscription.unsubscribe()
  }, [actorRef])

  return {
    actorRef,
    paymentsMode: mode,
    onStripeFieldsChange: (fields: StripeCardFields | null) => {
      stripeFields.current = fields
    },
  }
}

import { fromPromise } from 'xstate'
import type { ForgotPasswordForm, SignInPayload } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import type { ResetPasswordActorInput } from '#machines/auth/sign-in-screen.machine.ts'
import { forgotPassword, resetPassword, signIn } from '#src/api/auth.ts'
import { apiErrorMessage } from '#src/lib/http.ts'

/** Runs a call and turns any failure into an Error carrying the sentence the user should read. */
async function withUserMessage<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw new Error(await apiErrorMessage(error))
  }
}

/** The address of the reset page e-mailed links should open: this app's `/reset`. */
export function resetPageUrl(origin: string = globalThis.location.origin): string {
  return new URL('/reset', origin).toString()
}

/** The real effects of the sign-in screen's machine: its actors bound to the auth API. */
export const signInScreenActors = {
  signIn: fromPromise<Session, SignInPayload>(({ input }) => withUserMessage(() => signIn(input))),
  requestPasswordReset: fromPromise<void, ForgotPasswordForm>(({ input }) =>
    withUserMessage(() => forgotPassword({ email: input.email.trim(), url: resetPageUrl() })),
  ),
  resetPassword: fromPromise<Session, ResetPasswordActorInput>(({ input }) =>
    withUserMessage(() => resetPassword(input)),
  ),
}

import { fromPromise } from 'xstate'
import type { ForgotPasswordForm, SignInPayload } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import type { ResetPasswordActorInput } from '#machines/auth/sign-in-screen.machine.ts'
import { loadSignInApi } from './sign-in-api.actors.ts'

type AuthApi = typeof import('#src/api/auth.ts')

/**
 * Runs a call of the auth API, loaded on first use, and turns any failure into the sentence the
 * user should read (the HTTP client's `withUserMessage`, loaded with it).
 */
async function withAuthApi<T>(call: (auth: AuthApi) => Promise<T>): Promise<T> {
  const [auth, http] = await loadSignInApi()
  return http.withUserMessage(() => call(auth))
}

/** The address of the reset page e-mailed links should open: this app's `/reset`. */
export function resetPageUrl(origin: string = globalThis.location.origin): string {
  return new URL('/reset', origin).toString()
}

/** The real effects of the sign-in screen's machine: its actors bound to the auth API. */
export const signInScreenActors = {
  signIn: fromPromise<Session, SignInPayload>(({ input }) =>
    withAuthApi((auth) => auth.signIn(input)),
  ),
  requestPasswordReset: fromPromise<void, ForgotPasswordForm>(({ input }) =>
    withAuthApi((auth) => auth.forgotPassword({ email: input.email.trim(), url: resetPageUrl() })),
  ),
  resetPassword: fromPromise<Session, ResetPasswordActorInput>(({ input }) =>
    withAuthApi((auth) => auth.resetPassword(input)),
  ),
}

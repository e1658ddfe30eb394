import { fromPromise } from 'xstate'
import type { ForgotPasswordForm, SignInPayload } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import type { ResetPasswordActorInput } from '#machines/auth/sign-in-screen.machine.ts'

type AuthApi = typeof import('#src/api/auth.ts')

let api: Promise<[AuthApi, typeof import('#src/lib/http.ts')]> | undefined

/**
 * The auth API and its HTTP client, loaded on first use: nobody needs them to see the form, so
 * they stay out of the first load of /signin (issue 8). The view asks for them as soon as the
 * form gets focus, so they are in before the first submit.
 */
export function loadSignInApi() {
  api ??= Promise.all([import('#src/api/auth.ts'), import('#src/lib/http.ts')])
  return api
}

/** Runs a call and turns any failure into an Error carrying the sentence the user should read. */
async function withUserMessage<T>(call: (auth: AuthApi) => Promise<T>): Promise<T> {
  const [auth, http] = await loadSignInApi()
  try {
    return await call(auth)
  } catch (error) {
    throw new Error(await http.apiErrorMessage(error))
  }
}

/**
 * Judges a reset link when it is opened (issue 14): asks the server whether `code` is still good,
 * and when it is not, remembers it as the last used code, so that the sign-in screen shows
 * 'Password Reset link is outdated!' for 3 seconds instead of the form. A link already remembered
 * needs no question; when the server cannot be asked, the form shows and the reset itself judges.
 * Answers whether the link is outdated.
 */
export async function judgeResetLink(
  code: string,
  remembered: { read(): string | null; write(code: string): void },
): Promise<boolean> {
  if (remembered.read() === code) return true
  try {
    const [auth] = await loadSignInApi()
    if (await auth.resetCodeStatus(code)) return false
  } catch {
    return false
  }
  remembered.write(code)
  return true
}

/** The address of the reset page e-mailed links should open: this app's `/reset`. */
export function resetPageUrl(origin: string = globalThis.location.origin): string {
  return new URL('/reset', origin).toString()
}

/** The real effects of the sign-in screen's machine: its actors bound to the auth API. */
export const signInScreenActors = {
  signIn: fromPromise<Session, SignInPayload>(({ input }) =>
    withUserMessage((auth) => auth.signIn(input)),
  ),
  requestPasswordReset: fromPromise<void, ForgotPasswordForm>(({ input }) =>
    withUserMessage((auth) =>
      auth.forgotPassword({ email: input.email.trim(), url: resetPageUrl() }),
    ),
  ),
  resetPassword: fromPromise<Session, ResetPasswordActorInput>(({ input }) =>
    withUserMessage((auth) => auth.resetPassword(input)),
  ),
}

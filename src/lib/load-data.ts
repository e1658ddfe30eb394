import { redirect } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { showAlert } from '#src/lib/alerts.ts'
import { apiErrorMessage } from '#src/lib/http.ts'
import { SESSION_ENDED_MESSAGE } from '#src/lib/messages.ts'
import { clearSession } from '#src/lib/session.ts'
import { UserFacingError } from './user-facing-error.ts'

export { UserFacingError }

/** Whether a failed call was the server no longer accepting the stored session (401). */
export function isSessionRefused(error: unknown): boolean {
  return error instanceof HTTPError && error.response.status === 401
}

/**
 * Forgets a session the server no longer accepts. Nobody is signed out without a word: the alert
 * persists to the sign-in page the caller goes to next, and says why.
 */
export function forgetRefusedSession(): void {
  clearSession()
  showAlert({ type: 'danger', message: SESSION_ENDED_MESSAGE, persist: true })
}

/**
 * Runs a route loader's API reads. A 401 means the stored session is no longer accepted: it is
 * cleared and the user goes to sign in. Any other failure becomes a {@link UserFacingError}
 * carrying the message `apiErrorMessage` chose and the answer's status, for the route's error view.
 */
export async function loadData<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (isSessionRefused(error)) {
      forgetRefusedSession()
      throw redirect({ to: '/signin' })
    }
    const status = error instanceof HTTPError ? error.response.status : undefined
    throw new UserFacingError(await apiErrorMessage(error), { status })
  }
}

/** A part of a page read on its own: its value, or the sentence its section shows instead. */
export type PartRead<T> = { ok: true; value: T } | { ok: false; message: string }

/**
 * Reads one part of a page whose failure must not take the whole page down (a section of the
 * profile or of Settings): a failure becomes the sentence that section shows. A 401 still throws,
 * for {@link loadData} to send the user to sign in.
 */
export async function readPart<T>(read: () => Promise<T>): Promise<PartRead<T>> {
  try {
    return { ok: true, value: await read() }
  } catch (error) {
    if (isSessionRefused(error)) throw error
    return { ok: false, message: await apiErrorMessage(error) }
  }
}

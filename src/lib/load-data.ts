import { redirect } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { showAlert } from '#src/lib/alerts.ts'
import { apiErrorMessage } from '#src/lib/http.ts'
import { SESSION_ENDED_MESSAGE } from '#src/lib/messages.ts'
import { clearSession } from '#src/lib/session.ts'
import { UserFacingError } from './user-facing-error.ts'

export { UserFacingError }

/**
 * Runs a route loader's API reads. A 401 means the stored session is no longer accepted: it is
 * cleared and the user goes to sign in. Any other failure becomes a {@link UserFacingError}
 * carrying the message `apiErrorMessage` chose and the answer's status, for the route's error view.
 */
export async function loadData<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof HTTPError && error.response.status === 401) {
      clearSession()
      // Nobody is signed out without a word: the sign-in page says why.
      showAlert({ type: 'danger', message: SESSION_ENDED_MESSAGE, persist: true })
      throw redirect({ to: '/signin' })
    }
    const status = error instanceof HTTPError ? error.response.status : undefined
    throw new UserFacingError(await apiErrorMessage(error), { status })
  }
}

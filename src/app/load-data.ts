import { redirect } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { apiErrorMessage } from '#src/lib/http.ts'
import { clearSession } from '#src/lib/session.ts'
import { UserFacingError } from './user-facing-error.ts'

export { UserFacingError }

/**
 * Runs a route loader's API reads. A 401 means the stored session is no longer accepted: it is
 * cleared and the user goes to sign in. Any other failure becomes a {@link UserFacingError}
 * carrying the message `apiErrorMessage` chose, for the route's error view.
 */
export async function loadData<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof HTTPError && error.response.status === 401) {
      clearSession()
      throw redirect({ to: '/signin' })
    }
    throw new UserFacingError(await apiErrorMessage(error))
  }
}

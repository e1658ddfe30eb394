/** Shown when nothing more specific is known (also by the route error view, without ky). */
export const FALLBACK_ERROR_MESSAGE = 'Something went wrong. Please try again.'

/** Shown on the sign-in page when the server no longer accepts the session (expired or revoked). */
export const SESSION_ENDED_MESSAGE = 'Your session has ended. Please sign in again.'

/** Shown on the sign-in page after the automatic logoff. */
export function idleSignOutMessage(minutes: number): string {
  return `You were signed out after ${minutes} minutes without activity.`
}

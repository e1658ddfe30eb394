/** Shown when nothing more specific is known (also by the route error view, without ky). */
export const FALLBACK_ERROR_MESSAGE = 'Something went wrong. Please try again.'

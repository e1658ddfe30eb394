/**
 * The text to show for a failed call. Actors reject with an `Error` whose message is the server's
 * (or the payment provider's) own message; anything else gets the fallback.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof Error && error.message.trim() !== '') return error.message
  if (typeof error === 'string' && error.trim() !== '') return error
  return fallback
}

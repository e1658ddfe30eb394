/**
 * A failure whose message is already the sentence the user should read. In a module of its own,
 * without ky, so that the route error view (in the entry chunk of every page) stays small.
 */
export class UserFacingError extends Error {
  override name = 'UserFacingError'
}

/**
 * A failure whose message is already the sentence the user should read. In a module of its own,
 * without ky, so that the route error view (in the entry chunk of every page) stays small.
 * `status` is the HTTP status of the answer it came from, when there was one: a refusal by
 * permission (403) is not worth trying again.
 */
export class UserFacingError extends Error {
  override name = 'UserFacingError'
  readonly status: number | undefined

  constructor(message: string, { status }: { status?: number } = {}) {
    super(message)
    this.status = status
  }
}

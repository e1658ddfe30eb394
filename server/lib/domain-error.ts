/**
 * What a use case refuses, in the domain's terms. Services throw these and know nothing of HTTP;
 * the app's error handler answers each kind with its status (server/http/errors.ts,
 * `apiErrorOf`), the sentence as the user reads it, and the details.
 */
export type DomainErrorKind =
  /** The input is not acceptable as given (400). */
  | 'invalid'
  /** Nothing by that id in the caller's practice (404). */
  | 'not-found'
  /** The change conflicts with the current state (409). */
  | 'conflict'
  /** The caller may not do this to this record (403). */
  | 'not-allowed'
  /** Well-formed, but refused on its merits: a wrong code, a declined check (422). */
  | 'rejected'
  /** The thing existed and is no longer there: an ended offer, a used link (410). */
  | 'gone'
  /** Too many attempts or requests; `details.retryAfterSeconds` says when to try again (429). */
  | 'too-many'
  /** A payment was declined (402). */
  | 'payment-declined'
  /** A provider we depend on did not answer; try again (503). */
  | 'unavailable'

/** A use case's refusal: its kind, the sentence the user reads, and details for the client. */
export class DomainError extends Error {
  readonly kind: DomainErrorKind
  readonly details: Record<string, unknown>

  constructor(kind: DomainErrorKind, message: string, details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'DomainError'
    this.kind = kind
    this.details = details
  }
}

/** The input is not acceptable; `details.field` names the field when there is one. */
export const invalid = (message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', message, details)

/** Nothing by that id (in the caller's practice: another practice's row is not found either). */
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new DomainError('not-found', message, details)

/** The change conflicts with the current state of the record. */
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new DomainError('conflict', message, details)

/** The caller may not do this; the sentence says what is missing. */
export const notAllowed = (message: string, details?: Record<string, unknown>) =>
  new DomainError('not-allowed', message, details)

/** Refused on its merits (a wrong code). */
export const rejected = (message: string, details?: Record<string, unknown>) =>
  new DomainError('rejected', message, details)

/** No longer there. */
export const gone = (message: string, details?: Record<string, unknown>) =>
  new DomainError('gone', message, details)

/** Too many attempts: try again in `retryAfterSeconds` (the answer's `Retry-After`). */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new DomainError('too-many', message, { retryAfterSeconds })

import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { API_ERROR_NAMES, type ApiErrorBody } from '#domain/api-error.ts'
import type { DomainError, DomainErrorKind } from '#server/lib/domain-error.ts'

/**
 * An error the API answers on purpose, with the one JSON shape of domain/api-error.ts. Throw it
 * from a handler or middleware; the app's error handler turns it into the response.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode
  readonly details: unknown

  constructor(status: ContentfulStatusCode, name: string, message: string, details?: unknown) {
    super(message)
    this.name = name
    this.status = status
    this.details = details ?? {}
  }

  /** The JSON body of this error. */
  toBody(): ApiErrorBody {
    return errorBody(this.status, this.name, this.message, this.details)
  }
}

/** Builds `{ error: { status, name, message, details } }`. */
export function errorBody(
  status: number,
  name: string,
  message: string,
  details: unknown = {},
): ApiErrorBody {
  return { error: { status, name, message, details } }
}

/** 400: the request is not acceptable as sent. */
export const badRequest = (message: string, details?: unknown) =>
  new ApiError(400, API_ERROR_NAMES.validation, message, details)

/** 401: no valid session. */
export const unauthorized = (message = 'Please sign in to continue.') =>
  new ApiError(401, API_ERROR_NAMES.unauthorized, message)

/** 403: signed in, but the row belongs to another practice (or the role may not do this). */
export const forbidden = (message = 'You do not have access to this record.') =>
  new ApiError(403, API_ERROR_NAMES.forbidden, message)

/** 404: nothing by that id. */
export const notFound = (message = 'Not found.') =>
  new ApiError(404, API_ERROR_NAMES.notFound, message)

/** 409: the request conflicts with the current state. */
export const conflict = (message: string) => new ApiError(409, API_ERROR_NAMES.conflict, message)

const DOMAIN_STATUS: Record<DomainErrorKind, { status: ContentfulStatusCode; name: string }> = {
  invalid: { status: 400, name: API_ERROR_NAMES.validation },
  'not-found': { status: 404, name: API_ERROR_NAMES.notFound },
  conflict: { status: 409, name: API_ERROR_NAMES.conflict },
  'not-allowed': { status: 403, name: API_ERROR_NAMES.forbidden },
  rejected: { status: 422, name: API_ERROR_NAMES.validation },
  gone: { status: 410, name: API_ERROR_NAMES.gone },
  'too-many': { status: 429, name: API_ERROR_NAMES.rateLimit },
  'payment-declined': { status: 402, name: API_ERROR_NAMES.payment },
  unavailable: { status: 503, name: API_ERROR_NAMES.unavailable },
}

/** The answer of a use case's refusal: the status of its kind, its sentence and details as they are. */
export function apiErrorOf(error: DomainError): ApiError {
  const { status, name } = DOMAIN_STATUS[error.kind]
  return new ApiError(status, name, error.message, error.details)
}

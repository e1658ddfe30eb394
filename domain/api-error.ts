import * as v from 'valibot'

/**
 * The JSON error shape every API error uses:
 * `{ "error": { "status": 400, "name": "ValidationError", "message": "…", "details": {} } }`.
 * The client shows `error.message` to the user.
 */
export const ApiErrorBodySchema = v.object({
  error: v.object({
    status: v.number(),
    name: v.string(),
    message: v.string(),
    details: v.optional(v.unknown()),
  }),
})
export type ApiErrorBody = v.InferOutput<typeof ApiErrorBodySchema>

/** Error names the server uses in `error.name`. */
export const API_ERROR_NAMES = {
  validation: 'ValidationError',
  unauthorized: 'UnauthorizedError',
  forbidden: 'ForbiddenError',
  notFound: 'NotFoundError',
  conflict: 'ConflictError',
  gone: 'GoneError',
  payment: 'PaymentError',
  rateLimit: 'RateLimitError',
  payloadTooLarge: 'PayloadTooLargeError',
  unsupportedMediaType: 'UnsupportedMediaTypeError',
  internal: 'InternalServerError',
  unavailable: 'ServiceUnavailableError',
} as const

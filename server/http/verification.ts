import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { VerificationError } from '#server/messaging/verification.ts'
import { ApiError, badRequest } from './errors.ts'

/** A phone verification's failure as the API answers it: 400, or 429 with when to try again. */
export function verificationFailure(error: VerificationError): ApiError {
  return error.status === 429
    ? new ApiError(429, API_ERROR_NAMES.rateLimit, error.message, {
        retryAfterSeconds: error.retryAfterSeconds ?? 60,
      })
    : badRequest(error.message)
}

/** Runs a verification step (issue or check a code), answering its failure as the API does. */
export async function verifying<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (error instanceof VerificationError) throw verificationFailure(error)
    throw error
  }
}

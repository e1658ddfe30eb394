import { VerificationError } from '#server/messaging/verification.ts'
import { type ApiError, badRequest } from './errors.ts'
import { tooManyRequests } from './rate-limited.ts'

/** A phone verification's failure as the API answers it: 400, or 429 with when to try again. */
export function verificationFailure(error: VerificationError): ApiError {
  return error.status === 429
    ? tooManyRequests(error.message, error.retryAfterSeconds ?? 60)
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

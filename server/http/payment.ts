import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { PaymentError } from '#server/payments/index.ts'
import { ApiError } from './errors.ts'

/**
 * Runs a step that calls the payment provider, answering a {@link PaymentError} it lets through
 * (a bad token: 400, the provider unreachable: 502, a declined card: 402) with its status, the
 * provider's message and `details.code`.
 */
export async function answeringPayment<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (error instanceof PaymentError) {
      throw new ApiError(error.status, API_ERROR_NAMES.payment, error.message, { code: error.code })
    }
    throw error
  }
}

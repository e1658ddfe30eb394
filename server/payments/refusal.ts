import { DomainError } from '#server/lib/domain-error.ts'
import { PaymentError } from './provider.ts'

/**
 * Runs a call to the payment provider. A declined card (the provider's 402) becomes the use
 * case's refusal `payment-declined`, with the provider's message and `details.code`; any other
 * failure (a bad token, the provider unreachable) passes on as the {@link PaymentError} it is.
 */
export async function providerCall<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof PaymentError && error.status === 402) {
      throw new DomainError('payment-declined', error.message, { code: error.code })
    }
    throw error
  }
}

import { useCallback, useState } from 'react'
import type { WalletActionAnswer, WalletMe } from '#domain/wallet.ts'
import { WalletSignedOutError } from './api.ts'

/** What a section of the home screen needs to change something. */
export type SectionProps = {
  wallet: WalletMe
  /** The wallet as the change's answer has it. */
  onWallet: (wallet: WalletMe) => void
  /** The session ended (401): back to sign-in. */
  onSignedOut: () => void
}

/**
 * One change at a time in a section: busy while it runs, then the answer's sentence (and the
 * wallet as it is now), or the refusal's sentence; a 401 signs out. What was entered stays: the
 * form is not reset on a failure.
 */
export function useWalletAction({ onWallet, onSignedOut }: Omit<SectionProps, 'wallet'>) {
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const run = useCallback(
    async (work: () => Promise<WalletActionAnswer>): Promise<boolean> => {
      setBusy(true)
      setError(null)
      setMessage(null)
      try {
        const answer = await work()
        onWallet(answer.wallet)
        setMessage(answer.message)
        return true
      } catch (failure) {
        if (failure instanceof WalletSignedOutError) {
          onSignedOut()
          return false
        }
        setError((failure as Error).message)
        return false
      } finally {
        setBusy(false)
      }
    },
    [onWallet, onSignedOut],
  )
  return { busy, message, error, run, setError }
}

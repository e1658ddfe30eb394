import './styles.ts'
import { MantineProvider } from '@mantine/core'
import { type ReactNode, startTransition, useLayoutEffect } from 'react'
import { createRoot } from 'react-dom/client'
import { cssVariablesResolver, theme } from '#src/app/theme.ts'
import { registerWalletWorker } from './register-worker.ts'
import { readWalletSession } from './session.ts'
import { WalletSignIn } from './sign-in/wallet-sign-in.tsx'
import { walletAddress } from './wallet-address.ts'
import { WalletApp } from './wallet-app.tsx'

const root = document.getElementById('root')
if (!root) throw new Error('wallet.html has no #root element')

const address = walletAddress(window.location.pathname, document)
// With a session, the signed-in screens are fetched now, alongside the wallet's data.
if (address.practiceId !== null && readWalletSession(address.practiceId)) void import('./home.tsx')

/** Once the app's first screen is in, #root no longer holds the prerendered one. */
function FirstCommit({ children }: { children: ReactNode }) {
  useLayoutEffect(() => {
    root?.removeAttribute('data-wallet-prerendered')
  }, [])
  return children
}
// Rendered as a transition: React renders the first screen in slices and lets the browser paint
// and answer between them, instead of one long task. The prerendered sign-in in #root stays on
// screen until then, and is replaced by the same screen.
const reactRoot = createRoot(root)
startTransition(() =>
  reactRoot.render(
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
      forceColorScheme="light"
    >
      <FirstCommit>
        <WalletApp
          practiceId={address.practiceId}
          practiceName={address.practiceName}
          signIn={WalletSignIn}
        />
      </FirstCommit>
    </MantineProvider>,
  ),
)
registerWalletWorker()

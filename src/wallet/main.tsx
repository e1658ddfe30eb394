import './styles.ts'
import { MantineProvider } from '@mantine/core'
import { startTransition } from 'react'
import { createRoot } from 'react-dom/client'
import { cssVariablesResolver, theme } from '#src/app/theme.ts'
import { registerWalletWorker } from './register-worker.ts'
import { WalletSignIn } from './sign-in/wallet-sign-in.tsx'
import { walletAddress } from './wallet-address.ts'
import { WalletApp } from './wallet-app.tsx'

const root = document.getElementById('root')
if (!root) throw new Error('wallet.html has no #root element')

const address = walletAddress(window.location.pathname, document)
// Rendered as a transition: React renders the first screen in slices and lets the browser paint
// and answer between them, instead of one long task.
const reactRoot = createRoot(root)
startTransition(() =>
  reactRoot.render(
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
      forceColorScheme="light"
    >
      <WalletApp
        practiceId={address.practiceId}
        practiceName={address.practiceName}
        signIn={WalletSignIn}
      />
    </MantineProvider>,
  ),
)
registerWalletWorker()
